import EventStore

extension OwnerKeyring {
    /// The owners' data keys are wrapped by a key derived from the server's signing keys
    /// (`JWT_KEYS` / `JWT_SECRET`), as stored secrets are (`SecretSealer`): one secret to keep
    /// out of the database's backups. The first key wraps, every key unwraps, and `serve`
    /// rewraps at start, so a key rotates the way the signing keys do (README, Erasure).
    public convenience init(signingKeys: [SigningKey]) throws {
        try self.init(secrets: signingKeys.map(\.secret))
    }
}
