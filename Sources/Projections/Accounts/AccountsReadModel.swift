import Domain
import Foundation
import Logging
import EventStore
import PostgresNIO

/// The queries over what `AccountsProjector` writes (`rm_users`, `rm_devices`).
public struct AccountsReadModel: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    public func user(_ userId: UUID) async throws -> UserRecord? {
        let rows = try await client.rows("""
            SELECT email, name, timezone, day_start_hour, week_start, currency, language, morning_time, evening_time,
                   reminder_kinds, version, created_at
            FROM rm_users WHERE user_id = \(userId)
            """, logger: logger)
        for try await row in rows.decode((String, String, String, Int16, Int16, String, String, String, String, [String], Int64, Date).self) {
            guard let language = Language(rawValue: row.6) else { throw CorruptData("language", row.6) }
            guard let morning = LocalTime(row.7) else { throw CorruptData("morning time", row.7) }
            guard let evening = LocalTime(row.8) else { throw CorruptData("evening time", row.8) }
            let kinds = try row.9.map { raw in
                guard let kind = ReminderKind(rawValue: raw) else { throw CorruptData("reminder kind", raw) }
                return kind
            }
            let profile = UserProfile(
                email: row.0, name: row.1, timezone: row.2, dayStartHour: Int(row.3), weekStart: Int(row.4), currency: row.5,
                language: language, morningTime: morning, eveningTime: evening, reminderKinds: kinds)
            return UserRecord(id: userId, profile: profile, version: row.10, createdAt: row.11)
        }
        return nil
    }

    /// The user's calendar settings; nil for an unknown user. A zone the system cannot read is
    /// corrupt data, never silently GMT.
    public func calendar(_ userId: UUID) async throws -> UserCalendar? {
        let rows = try await client.rows("SELECT timezone, day_start_hour, week_start FROM rm_users WHERE user_id = \(userId)", logger: logger)
        for try await (zone, dayStart, weekStart) in rows.decode((String, Int16, Int16).self) {
            guard let timeZone = TimeZone(identifier: zone) else { throw CorruptData("time zone", zone) }
            return UserCalendar(timeZone: timeZone, dayStartHour: Int(dayStart), weekStart: Int(weekStart))
        }
        return nil
    }

    /// The user's language; nil for an unknown user.
    public func language(_ userId: UUID) async throws -> Language? {
        let rows = try await client.rows("SELECT language FROM rm_users WHERE user_id = \(userId)", logger: logger)
        for try await code in rows.decode(String.self) {
            guard let language = Language(rawValue: code) else { throw CorruptData("language", code) }
            return language
        }
        return nil
    }

    /// The user's calendar, currency and language in one read, for areas that hold amounts and
    /// for views that combine areas; nil for an unknown user.
    public func settings(_ userId: UUID) async throws -> UserSettings? {
        let rows = try await client.rows("""
            SELECT timezone, day_start_hour, week_start, currency, language FROM rm_users WHERE user_id = \(userId)
            """, logger: logger)
        for try await (zone, dayStart, weekStart, code, languageCode) in rows.decode((String, Int16, Int16, String, String).self) {
            guard let timeZone = TimeZone(identifier: zone) else { throw CorruptData("time zone", zone) }
            guard let currency = Currency(code) else { throw CorruptData("currency", code) }
            guard let language = Language(rawValue: languageCode) else { throw CorruptData("language", languageCode) }
            return UserSettings(
                calendar: UserCalendar(timeZone: timeZone, dayStartHour: Int(dayStart), weekStart: Int(weekStart)), currency: currency,
                language: language)
        }
        return nil
    }

    /// The account as `AccountDecider` sees it, with its stream's version.
    public func decisionState(_ userId: UUID) async throws -> (account: Account, version: Int64)? {
        guard let user = try await user(userId) else { return nil }
        var devices = Set<UUID>()
        for try await id in try await client.rows("""
            SELECT device_id FROM rm_devices WHERE user_id = \(userId) AND revoked_at IS NULL
            """, logger: logger).decode(UUID.self) { devices.insert(id) }
        return (Account(userId: userId, profile: user.profile, activeDevices: devices), user.version)
    }

    /// Active devices, oldest first, after `cursor` (created_at in whole microseconds, id):
    /// integers, so a position survives the round trip through a client exactly. The last use
    /// comes from the key's security record.
    public func devices(_ userId: UUID, after cursor: (micros: Int64, id: UUID)?, limit: Int) async throws -> [DeviceRecord] {
        let (afterMicros, afterId) = cursor ?? (Int64.min, UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        let rows = try await client.rows("""
            SELECT d.device_id, d.name, d.kind, d.created_at, k.last_used_at
            FROM rm_devices d LEFT JOIN device_keys k ON k.user_id = d.user_id AND k.device_id = d.device_id
            WHERE d.user_id = \(userId) AND d.revoked_at IS NULL
              AND ((EXTRACT(EPOCH FROM d.created_at) * 1000000)::bigint, d.device_id) > (\(afterMicros), \(afterId))
            ORDER BY d.created_at, d.device_id LIMIT \(limit)
            """, logger: logger)
        var devices: [DeviceRecord] = []
        for try await (id, name, kind, created, lastUsed) in rows.decode((UUID, String, String, Date, Date?).self) {
            devices.append(DeviceRecord(id: id, name: name, kind: kind, createdAt: created, lastUsedAt: lastUsed))
        }
        return devices
    }

    /// One active device of the user's.
    public func device(_ userId: UUID, _ deviceId: UUID) async throws -> DeviceRecord? {
        for try await (id, name, kind, created, lastUsed) in try await client.rows("""
            SELECT d.device_id, d.name, d.kind, d.created_at, k.last_used_at
            FROM rm_devices d LEFT JOIN device_keys k ON k.user_id = d.user_id AND k.device_id = d.device_id
            WHERE d.user_id = \(userId) AND d.device_id = \(deviceId) AND d.revoked_at IS NULL
            """, logger: logger).decode((UUID, String, String, Date, Date?).self) {
            return DeviceRecord(id: id, name: name, kind: kind, createdAt: created, lastUsedAt: lastUsed)
        }
        return nil
    }

    public func userId(email: String) async throws -> UUID? {
        for try await id in try await client.rows("SELECT user_id FROM rm_users WHERE email = \(email)", logger: logger).decode(UUID.self) {
            return id
        }
        return nil
    }

    public func listUsers() async throws -> [(id: UUID, email: String, name: String, createdAt: Date)] {
        var users: [(UUID, String, String, Date)] = []
        for try await row in try await client.rows("SELECT user_id, email, name, created_at FROM rm_users ORDER BY created_at, user_id", logger: logger)
            .decode((UUID, String, String, Date).self) { users.append(row) }
        return users.map { (id: $0.0, email: $0.1, name: $0.2, createdAt: $0.3) }
    }
}
