import Domain
import Foundation
import EventStore
import PostgresNIO

extension AccountsReadModel {
    /// Users with a reminder kind on or an event webhook (which may want scheduled events), in id
    /// order after `after`, as the planner sees them: settings and every zone they have lived in.
    public func reminderUsers(after: UUID?, limit: Int) async throws -> [ReminderUser] {
        let after = after ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        return try await reminderUsers(try await client.rows("""
            SELECT u.user_id, u.language, u.morning_time, u.evening_time, u.reminder_kinds, u.timezone,
                   ARRAY(SELECT z.timezone FROM rm_user_zones z WHERE z.user_id = u.user_id ORDER BY z.since),
                   ARRAY(SELECT z.since FROM rm_user_zones z WHERE z.user_id = u.user_id ORDER BY z.since)
            FROM rm_users u WHERE u.user_id > \(after)
              AND (cardinality(u.reminder_kinds) > 0
                   OR EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.user_id = u.user_id AND e.purpose = 'events' AND e.disabled_at IS NULL))
            ORDER BY u.user_id LIMIT \(limit)
            """, logger: logger))
    }

    /// One user as the planner sees them, whatever kinds are on; nil for an unknown user.
    public func reminderUser(_ userId: UUID) async throws -> ReminderUser? {
        try await reminderUsers(try await client.rows("""
            SELECT u.user_id, u.language, u.morning_time, u.evening_time, u.reminder_kinds, u.timezone,
                   ARRAY(SELECT z.timezone FROM rm_user_zones z WHERE z.user_id = u.user_id ORDER BY z.since),
                   ARRAY(SELECT z.since FROM rm_user_zones z WHERE z.user_id = u.user_id ORDER BY z.since)
            FROM rm_users u WHERE u.user_id = \(userId)
            """, logger: logger)).first
    }

    /// The times of day these users' own items can fire at: active habits' reminder times, and
    /// open tasks' due times (due from `from` on).
    public func itemTimes(_ users: [UUID], from: LocalDate) async throws -> [UUID: [LocalTime]] {
        var times: [UUID: [LocalTime]] = [:]
        for try await (owner, text) in try await client.rows("""
            SELECT owner_id, reminder_time FROM rm_habits
            WHERE owner_id = ANY(\(users)) AND reminder_time IS NOT NULL AND NOT archived
            UNION
            SELECT owner_id, due_time FROM rm_tasks
            WHERE owner_id = ANY(\(users)) AND due_time IS NOT NULL AND NOT completed AND due_date >= \(from.description)::date
            """, logger: logger).decode((UUID, String).self) {
            if let time = LocalTime(text) { times[owner, default: []].append(time) }
        }
        return times
    }

    private func reminderUsers(_ rows: QueryRows) async throws -> [ReminderUser] {
        var users: [ReminderUser] = []
        for try await row in rows.decode((UUID, String, String, String, [String], String, [String], [Date]).self) {
            guard let language = Language(rawValue: row.1) else { throw CorruptData("language", row.1) }
            guard let morning = LocalTime(row.2) else { throw CorruptData("morning time", row.2) }
            guard let evening = LocalTime(row.3) else { throw CorruptData("evening time", row.3) }
            guard let current = TimeZone(identifier: row.5) else { throw CorruptData("time zone", row.5) }
            var entries: [ZoneHistory.Entry] = []
            for (name, since) in zip(row.6, row.7) {
                guard let zone = TimeZone(identifier: name) else { throw CorruptData("time zone", name) }
                entries.append(.init(since: since, zone: zone))
            }
            // The first zone counts for every instant before it; without a history, the current zone does.
            if entries.isEmpty { entries = [.init(since: .distantPast, zone: current)] } else { entries[0].since = .distantPast }
            users.append(ReminderUser(
                userId: row.0, language: language, zones: ZoneHistory(entries), morning: morning, evening: evening,
                kinds: Set(row.4.compactMap(ReminderKind.init(rawValue:)))))
        }
        return users
    }
}
