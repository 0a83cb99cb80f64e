import Domain
import Foundation
import EventStore
import PostgresNIO

extension AccountsReadModel {
    /// The zones users are in now, each once: a skip over the zone index, one probe per zone.
    public func zonesInUse() async throws -> [String] {
        var zones: [String] = []
        for try await zone in try await client.rows("""
            WITH RECURSIVE z(zone) AS (
              SELECT min(timezone) FROM rm_users
              UNION ALL
              SELECT (SELECT min(u.timezone) FROM rm_users u WHERE u.timezone > z.zone) FROM z WHERE z.zone IS NOT NULL)
            SELECT zone FROM z WHERE zone IS NOT NULL
            """, logger: logger).decode(String.self) { zones.append(zone) }
        return zones
    }

    /// The users (with reminders or event webhooks) that may have something due in a window,
    /// as the planner sees them: whose morning or evening time, habit reminder time or open
    /// task's due time (from `tasksFrom` on) falls in one of their zone's `ranges`, and everyone
    /// whose zone changed after `movedSince` and by `until`. A superset: `ReminderPlanner.mayFire` decides.
    public func reminderCandidates(_ ranges: [(zone: String, range: ReminderWindow.Range)], movedSince: Date, until: Date, tasksFrom: LocalDate) async throws -> [ReminderUser] {
        // One statement per distinct range (zones with one offset share it), its bounds bound as
        // values: hidden in an array, the planner could not see how few rows they select, and
        // chose scans over every user, habit and task (434 ms a quiet minute with 100,000 users).
        var zonesByRange: [ReminderWindow.Range: [String]] = [:]
        for (zone, range) in ranges { zonesByRange[range, default: []].append(zone) }
        var ids = Set<UUID>()
        for (range, zones) in zonesByRange {
            for try await id in try await client.rows("""
                SELECT user_id FROM rm_users WHERE timezone = ANY(\(zones)) AND morning_time > \(range.after) AND morning_time <= \(range.through)
                UNION
                SELECT user_id FROM rm_users WHERE timezone = ANY(\(zones)) AND evening_time > \(range.after) AND evening_time <= \(range.through)
                UNION
                SELECT h.owner_id FROM rm_habits h JOIN rm_users u ON u.user_id = h.owner_id AND u.timezone = ANY(\(zones))
                WHERE h.reminder_time > \(range.after) AND h.reminder_time <= \(range.through) AND h.reminder_time IS NOT NULL AND NOT h.archived
                UNION
                SELECT t.owner_id FROM rm_tasks t JOIN rm_users u ON u.user_id = t.owner_id AND u.timezone = ANY(\(zones))
                WHERE t.due_time > \(range.after) AND t.due_time <= \(range.through) AND t.due_time IS NOT NULL AND NOT t.completed
                  AND t.due_date >= \(tasksFrom.description)::date
                """, logger: logger).decode(UUID.self) { ids.insert(id) }
        }
        // A move, not a registration: a user's first zone counts for all time before it. A move
        // after the window's end rules none of its instants.
        for try await id in try await client.rows("""
            SELECT z.user_id FROM rm_user_zones z WHERE z.since > \(movedSince) AND z.since <= \(until)
              AND EXISTS (SELECT 1 FROM rm_user_zones p WHERE p.user_id = z.user_id AND p.since < z.since)
            """, logger: logger).decode(UUID.self) { ids.insert(id) }
        guard !ids.isEmpty else { return [] }
        return try await reminderUsers(try await client.rows("""
            SELECT u.user_id, u.language, u.morning_time, u.evening_time, u.reminder_kinds, u.timezone,
                   ARRAY(SELECT z.timezone FROM rm_user_zones z WHERE z.user_id = u.user_id ORDER BY z.since),
                   ARRAY(SELECT z.since FROM rm_user_zones z WHERE z.user_id = u.user_id ORDER BY z.since)
            FROM rm_users u WHERE u.user_id = ANY(\(Array(ids)))
              AND (cardinality(u.reminder_kinds) > 0
                   OR EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.user_id = u.user_id AND e.purpose = 'events' AND e.disabled_at IS NULL))
            ORDER BY u.user_id
            """, logger: logger))
    }

    /// The calendars of these users (week start and day start, for the habits' periods).
    public func calendars(_ users: [UUID]) async throws -> [UUID: UserCalendar] {
        var calendars: [UUID: UserCalendar] = [:]
        for try await (user, zone, dayStart, weekStart) in try await client.rows("""
            SELECT user_id, timezone, day_start_hour, week_start FROM rm_users WHERE user_id = ANY(\(users))
            """, logger: logger).decode((UUID, String, Int16, Int16).self) {
            guard let timeZone = TimeZone(identifier: zone) else { throw CorruptData("time zone", zone) }
            calendars[user] = UserCalendar(timeZone: timeZone, dayStartHour: Int(dayStart), weekStart: Int(weekStart))
        }
        return calendars
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
