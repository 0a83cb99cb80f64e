import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO

/// Inline read model of accounts: `rm_users`, `rm_devices`, and each user's zones over time (`rm_user_zones`).
public struct AccountsProjector: Projector {
    public let name = "accounts"
    public let mode = ProjectorMode.inline
    public let tables = ["rm_users", "rm_devices", "rm_user_zones"]
    public let eventTypes: [String]? = AccountEvent.types

    public init() {}

    public func apply(_ events: [RecordedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for event in events {
            switch event.type {
            case AccountEvent.Registered.type:
                let registered = try decode(AccountEvent.Registered.self, event)
                let p = registered.profile
                try await connection.run("""
                    INSERT INTO rm_users (user_id, email, name, timezone, day_start_hour, week_start, currency, language,
                                          morning_time, evening_time, reminder_kinds, version, created_at, updated_at)
                    VALUES (\(registered.userId), \(p.email), \(p.name), \(p.timezone), \(Int16(p.dayStartHour)), \(Int16(p.weekStart)),
                            \(p.currency), \(p.language.rawValue), \(p.morningTime.description), \(p.eveningTime.description),
                            \(p.reminderKinds.map(\.rawValue)), \(event.streamVersion), \(event.recordedAt), \(event.recordedAt))
                    """, logger: logger)
                try await zone(registered.userId, p.timezone, event, on: connection, logger: logger)
            case AccountEvent.ProfileChanged.type:
                let changed = try decode(AccountEvent.ProfileChanged.self, event)
                let p = changed.profile
                try await connection.run("""
                    UPDATE rm_users SET name = \(p.name), timezone = \(p.timezone), day_start_hour = \(Int16(p.dayStartHour)),
                      week_start = \(Int16(p.weekStart)), currency = \(p.currency), language = \(p.language.rawValue),
                      morning_time = \(p.morningTime.description), evening_time = \(p.eveningTime.description),
                      reminder_kinds = \(p.reminderKinds.map(\.rawValue)), version = \(event.streamVersion), updated_at = \(event.recordedAt)
                    WHERE user_id = \(changed.userId)
                    """, logger: logger)
                if changed.changedFields.contains("timezone") { try await zone(changed.userId, p.timezone, event, on: connection, logger: logger) }
            case AccountEvent.PasswordChanged.type:
                let changed = try decode(AccountEvent.PasswordChanged.self, event)
                try await touch(changed.userId, event, on: connection, logger: logger)
            case AccountEvent.DeviceRegistered.type:
                let device = try decode(AccountEvent.DeviceRegistered.self, event)
                try await connection.run("""
                    INSERT INTO rm_devices (device_id, user_id, name, kind, created_at)
                    VALUES (\(device.deviceId), \(device.userId), \(device.name), \(device.kind.rawValue), \(event.recordedAt))
                    """, logger: logger)
                try await touch(device.userId, event, on: connection, logger: logger)
            case AccountEvent.DeviceRevoked.type:
                let revoked = try decode(AccountEvent.DeviceRevoked.self, event)
                try await connection.run("""
                    UPDATE rm_devices SET revoked_at = \(event.recordedAt)
                    WHERE device_id = \(revoked.deviceId) AND user_id = \(revoked.userId) AND revoked_at IS NULL
                    """, logger: logger)
                try await touch(revoked.userId, event, on: connection, logger: logger)
            default:
                continue
            }
        }
    }

    private func zone(_ userId: UUID, _ timezone: String, _ event: RecordedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.run("""
            INSERT INTO rm_user_zones (user_id, since, timezone) VALUES (\(userId), \(event.recordedAt), \(timezone))
            ON CONFLICT (user_id, since) DO UPDATE SET timezone = EXCLUDED.timezone
            """, logger: logger)
    }

    /// Every event of the user stream moves the user's version (the ETag of `/me`).
    private func touch(_ userId: UUID, _ event: RecordedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.run("""
            UPDATE rm_users SET version = \(event.streamVersion), updated_at = \(event.recordedAt) WHERE user_id = \(userId)
            """, logger: logger)
    }
}
