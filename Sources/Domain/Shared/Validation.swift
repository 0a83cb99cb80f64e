/// A rule broken by one field of a request, said in words a person can act on.
public struct FieldError: Sendable, Equatable, Codable {
    public var field: String
    public var message: String
    public init(_ field: String, _ message: String) {
        self.field = field
        self.message = message
    }
}

/// A command that breaks one or more rules; nothing of it is applied.
public struct ValidationFailure: Error, Sendable, Equatable {
    public var errors: [FieldError]
    public init(_ errors: [FieldError]) { self.errors = errors }
    public init(_ field: String, _ message: String) { self.errors = [FieldError(field, message)] }

    /// Throws when `errors` is not empty.
    public static func check(_ errors: [FieldError]) throws(ValidationFailure) {
        if !errors.isEmpty { throw ValidationFailure(errors) }
    }
}
