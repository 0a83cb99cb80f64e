/// How the stores keep secrets they must read again (a webhook's signing secret): sealed on the
/// way in, opened on the way out, so no caller sees a sealed value. `Core`'s `SecretSealer`
/// seals under the server's keys; the stores only need this much of it.
public protocol SecretSealing: Sendable {
    func seal(_ secret: String) throws -> String
    /// The secret in a stored value; a value stored before secrets were sealed, as it is.
    func open(_ stored: String) throws -> String
    func isSealed(_ stored: String) -> Bool
}
