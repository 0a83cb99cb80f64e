/// A new account's fields, as `POST /auth/register` (and `lifelog users create`) sends them
/// (`AccountDraft`: the language and currency as text) and as the rules take them (`NewAccount`:
/// a `Language`, a `Currency`; the password held to its rules, for the service to hash), which
/// `NewAccount.validated(from:)` reads a draft into.
public struct AccountFields<Lang: Sendable, Code: Sendable>: Sendable {
    public var email: String
    public var password: String
    public var name: String
    public var timezone: String
    public var language: Lang?
    public var currency: Code?

    public init(email: String, password: String, name: String, timezone: String, language: Lang? = nil, currency: Code? = nil) {
        self.email = email
        self.password = password
        self.name = name
        self.timezone = timezone
        self.language = language
        self.currency = currency
    }
}

public typealias AccountDraft = AccountFields<String, String>
public typealias NewAccount = AccountFields<Language, Currency>

extension AccountFields: Decodable where Lang: Decodable, Code: Decodable {}
extension AccountFields: Equatable where Lang: Equatable, Code: Equatable {}

// Every rule of a registration is the draft's alone: nothing is stored yet.
extension AccountFields: ValidatedInput where Lang == Language, Code == Currency {
    public static func validated(from draft: AccountDraft) -> Result<NewAccount, ValidationFailure> {
        var errors = FieldErrors()
        let language = errors.parse(draft.language, field: "language", rule: "must be one of en, ru, sr", Language.init(rawValue:))
        let profile = UserProfile.new(email: draft.email, name: draft.name, timezone: draft.timezone, language: language, currency: draft.currency)
        // The address rule applies to new addresses only; a stored one is never re-judged.
        if !Email.isValid(profile.email) { errors.add(FieldError("email", "must be an email address")) }
        errors.add(profile.validationErrors() + Passwords.validationErrors(draft.password))
        let currency = draft.currency.flatMap(Currency.init)
        return errors.result { NewAccount(email: draft.email, password: draft.password, name: draft.name, timezone: draft.timezone,
                                          language: language, currency: currency) }
    }
}

extension NewAccount {
    /// The profile a new account starts with: the address normalised, the name trimmed, the
    /// defaults for what was not sent.
    public var profile: UserProfile {
        UserProfile.new(email: email, name: name, timezone: timezone, language: language, currency: currency?.code)
    }
}
