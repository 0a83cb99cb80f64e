/// An error a client can act on, described where it is defined: the API turns any of these
/// into problem+json without a switch that grows with every area.
public protocol ProblemDescribing: Error, Sendable {
    /// The HTTP status the error answers with.
    var status: Int { get }
    /// The last part of the problem's `type` URI, e.g. `not-found`.
    var slug: String { get }
    /// A short English title; the API translates it from its catalogue.
    var title: String { get }
    var detail: String { get }
    /// Validation errors name their fields; others have none.
    var fieldErrors: [FieldError] { get }
    /// Seconds, for answers a client should retry later.
    var retryAfterSeconds: Int? { get }
    /// A refusal the rules make whatever version the command was based on (a caller who may not,
    /// a value they never take): it outranks a stale If-Match, since reloading cannot help.
    var holdsAtAnyVersion: Bool { get }
}

extension ProblemDescribing {
    public var fieldErrors: [FieldError] { [] }
    public var retryAfterSeconds: Int? { nil }
    public var holdsAtAnyVersion: Bool { false }
}

/// What any area answers about one of its resources.
public enum ResourceError: ProblemDescribing, Equatable {
    /// Unknown, or another user's (DESIGN §6: both answer 404).
    case notFound
    /// `If-Match` named another version than the current one.
    case versionMismatch(current: Int64)
    /// The command contradicts the resource's state in a way no retry fixes.
    case conflict(String)
    /// The caller may see the resource but not do this to it.
    case forbidden(String)

    public var status: Int {
        switch self {
        case .notFound: 404
        case .versionMismatch: 412
        case .conflict: 409
        case .forbidden: 403
        }
    }

    public var slug: String {
        switch self {
        case .notFound: "not-found"
        case .versionMismatch: "precondition-failed"
        case .conflict: "conflict"
        case .forbidden: "forbidden"
        }
    }

    public var title: String {
        switch self {
        case .notFound: "Not found"
        case .versionMismatch: "Precondition failed"
        case .conflict: "Conflict"
        case .forbidden: "Forbidden"
        }
    }

    public var detail: String {
        switch self {
        case .notFound: "No such resource."
        case .versionMismatch(let current): "The resource is at version \(current); reload it and apply the change again."
        case .conflict(let detail), .forbidden(let detail): detail
        }
    }

    public var holdsAtAnyVersion: Bool {
        if case .forbidden = self { true } else { false }
    }
}

/// A stored value that cannot be read back (an unknown zone, a malformed date in a read model).
/// Never replaced by a default: a wrong default would silently change what the user sees.
public struct CorruptData: Error, Sendable, Equatable, CustomStringConvertible {
    public var what: String
    public var value: String
    public init(_ what: String, _ value: String) {
        self.what = what
        self.value = value
    }
    public var description: String { "stored \(what) cannot be read: \(value.prefix(80))" }
}

extension ValidationFailure: ProblemDescribing {
    public var status: Int { 422 }
    public var slug: String { "validation" }
    public var title: String { "Invalid request" }
    public var detail: String { errors.map { "\($0.field): \($0.message)" }.joined(separator: "; ") }
    public var fieldErrors: [FieldError] { errors }
    public var holdsAtAnyVersion: Bool { true }
}
