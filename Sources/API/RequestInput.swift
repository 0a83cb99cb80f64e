import Domain
import Foundation
import Hummingbird

extension Request {
    /// A command's typed input: the body read as its draft (`json`), then checked
    /// (`ValidatedInput`); a draft with wrong fields is one 422 naming them all.
    func input<T: ValidatedInput>(_ type: T.Type, context: some RequestContext) async throws -> T {
        try T.validated(from: try await json(T.Draft.self, context: context)).get()
    }

    /// A command's typed input whose draft's errors the decider reports with its own, after what
    /// its state says first (`CheckedInput`); a draft no command can be made of is 422 at once.
    func checked<T: CheckedInput>(_ type: T.Type, context: some RequestContext) async throws -> Checked<T> {
        try T.checked(from: try await json(T.Draft.self, context: context)).get()
    }

    /// Decodes a JSON body. Unlike `decode(as:context:)`, a missing or mistyped field stays a
    /// `DecodingError`, which `ProblemMapping` turns into 422 with the field's name; the body
    /// must be strict JSON first (`StrictJSON`); and what the DTO reads is held to the document
    /// (`StrictDecoder`: no `null` where it is not nullable, no NUL or half a surrogate pair in
    /// a string). Members the DTO does not read are ignored, whatever they hold.
    func json<T: Decodable>(_ type: T.Type, context: some RequestContext) async throws -> T {
        var request = self
        let body = try await request.collectBody(upTo: context.maxUploadSize)
        guard body.readableBytes > 0 else { throw Problem.badRequest("The request needs a JSON body.") }
        let data = Data(buffer: body)
        try StrictJSON.check(data, rules: .digits)
        let decoder = AppRequestContext.makeDecoder()
        do {
            return try decoder.decode(StrictBody<T>.self, from: data).value
        } catch let error as DecodingError where JSONBody.isUnnamedRefusal(error) {
            throw JSONBody.nameTheNumber(in: data, refusedWith: error) { _ = try decoder.decode(StrictBody<T>.self, from: $0) }
        }
    }
}

enum JSONBody {
    /// Foundation's decoder refuses a number that does not fit its field (1.5 for a whole
    /// number, 1e400) as corrupt data at the root, naming no field.
    static func isUnnamedRefusal(_ error: DecodingError?) -> Bool {
        if case .dataCorrupted(let context) = error, context.codingPath.isEmpty { return true }
        return false
    }

    /// On strict JSON that refusal is a number: the one whose replacement by 0 makes it go away
    /// is named. When none alone does (a whole number too large, several at once), the refusal
    /// stays the 400 it was rather than naming a guess.
    static func nameTheNumber(in data: Data, refusedWith error: DecodingError, decode: (Data) throws -> Void) -> any Error {
        let candidates = StrictJSON.fractionalNumbers(in: data)
        guard !candidates.isEmpty else { return error }
        func message(_ number: StrictJSON.Number) -> String { number.whole ? "is out of range" : "must be a whole number" }
        // Each try decodes the body again: bounded, and only on this refusal's path.
        let culprits = candidates.prefix(32).filter { number in
            var copy = data
            copy.replaceSubrange(number.range, with: [UInt8(ascii: "0")])
            do {
                try decode(copy)
                return true
            } catch let again as DecodingError {
                return !isUnnamedRefusal(again)
            } catch {
                return true
            }
        }
        guard !culprits.isEmpty else { return error }
        return ValidationFailure(culprits.map { FieldError($0.path, message($0)) })
    }
}

/// A request body's DTO, decoded through `StrictDecoder`.
