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
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}

extension HTTPField.Name {
    // The browser's headers (the dashboard, `BrowserHeadersMiddleware`, the cookie session).
    static let contentSecurityPolicy = HTTPField.Name("Content-Security-Policy")!
    static let xContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
    static let crossOriginOpenerPolicy = HTTPField.Name("Cross-Origin-Opener-Policy")!
    static let permissionsPolicy = HTTPField.Name("Permissions-Policy")!
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
    static let forwardedHost = HTTPField.Name("X-Forwarded-Host")!
    static let lastEventId = HTTPField.Name("Last-Event-ID")!
    static let host = HTTPField.Name("Host")!
    static let xAccelBuffering = HTTPField.Name("X-Accel-Buffering")!
    /// The dashboard's first view: its access token, outside the compressed body.
    static let accessToken = HTTPField.Name("X-Access-Token")!
}
