import HTTPTypes

extension HTTPField.Name {
    // Constant, valid header tokens: parsing them cannot fail, which is the one kind of force
    // unwrap the house style allows (a truly impossible state). Kept together, in one place.
    static let apiKey = HTTPField.Name("X-API-Key")!
    /// What Health Auto Export calls its key header.
    static let apiKeyPlain = HTTPField.Name("api-key")!
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    static let idempotentReplayed = HTTPField.Name("Idempotent-Replayed")!
    /// HealthPush's webhook secret (a device key, `HealthPushClient`).
    static let webhookSecret = HTTPField.Name("X-Webhook-Secret")!
    /// The scheme a proxy in front was reached by (the device creation answer's `connect`).
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
}
