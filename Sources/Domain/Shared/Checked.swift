/// A command's input read at the edge whose refusal waits for the decider: `CheckedInput`, for
/// commands where the state speaks before the draft (a goal's member rule: 404 or 403; a
/// category that is not there; a kind that cannot change) or adds to what the draft got wrong (an
/// amount's digits in a currency the stored goal or transaction has, a date after today, a
/// category of the wrong kind). Answering the draft's errors at the edge would change those
/// answers: a stranger would hear 422 where they hear 404, and a request with a bad note and a
/// wrong category would name one field where it names two.
///
/// So the draft is read at the edge (`checked(from:)`: every field that reads, typed; one that
/// does not is left out, as if not sent, and its error kept), and the decider, once its state
/// has said what it says first, refuses with the draft's errors and its own in one 422
/// (`Checked.get(adding:)`), in the order of the draft's fields.
public protocol CheckedInput: Sendable {
    associatedtype Draft: Decodable & Sendable
    /// The fields in the order one refusal names them.
    static var fieldOrder: [String] { get }
    /// The draft read: the typed input with the errors found in it, or `.failure` for a draft no
    /// command can be made of (a required field missing where nothing else is checked before
    /// it), answered at once.
    static func checked(from draft: Draft) -> Result<Checked<Self>, ValidationFailure>
}

public struct Checked<Input: CheckedInput>: Sendable {
    /// Every field that read, typed.
    public let input: Input
    /// What the draft got wrong.
    public let errors: [FieldError]

    public init(_ input: Input, errors: [FieldError] = []) {
        self.input = input
        self.errors = errors
    }

    /// The input when neither the draft nor the decider (`more`) found anything wrong; otherwise
    /// every error of both, in `Input.fieldOrder` (a field's own errors keep their order).
    public func get(adding more: [FieldError] = []) throws(ValidationFailure) -> Input {
        let all = errors + more
        guard !all.isEmpty else { return input }
        let order = Input.fieldOrder
        let rank = { (error: FieldError) in order.firstIndex(of: error.field) ?? order.count }
        throw ValidationFailure(all.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element))
    }
}

extension Checked: Equatable where Input: Equatable {}

extension FieldErrors {
    /// The input with the errors found so far, for the decider to report (`CheckedInput`).
    public func checked<Input: CheckedInput>(_ input: Input) -> Checked<Input> { Checked(input, errors: errors) }
}

extension Checked {
    /// A draft that is not a request body (a query's parameters, a test's), read as the edge
    /// reads one.
    public init(reading draft: Input.Draft) throws(ValidationFailure) {
        self = try Input.checked(from: draft).get()
    }
}
