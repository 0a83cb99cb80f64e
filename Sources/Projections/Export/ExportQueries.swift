import Domain
import Foundation
import PostgresNIO

// The export's parts (issue 29): each a cursor over one read model, owner-scoped, ordered by
// its key, whose rows are already the export's lines: one JSON object per row with `type`
// first and the API's own field names (snake_case, dates as `YYYY-MM-DD`, instants as UTC
// ISO 8601, amounts as exact decimal strings with the currency's digits). PostgreSQL writes
// the JSON: a year of minute-level heart rate is millions of rows, and text it built costs
// the server one copy. Derived figures a rebuild recomputes (streaks, balances, recovery
// scores) are not data and are left out; secrets (webhook signing secrets, device keys,
// password hashes) never leave.
enum ExportQueries {
    /// Each part's DECLARE, in the order the lines come.
    static func parts(_ owner: UUID) -> [ExportPart] {
        // Over 60 lines: one DECLARE per part of the export, in the order its lines come; the list reads best whole.
        let codes = Currency.minorDigitsTable.keys.sorted()
        let digits = codes.map { Currency.minorDigitsTable[$0] ?? 2 }
        return [
            ExportPart("profile", """
                DECLARE export_part NO SCROLL CURSOR FOR
                SELECT json_build_object('type', 'profile', 'id', user_id, 'email', email, 'name', name, 'timezone', timezone,
                  'day_start_hour', day_start_hour, 'week_start', week_start, 'currency', currency, 'language', language,
                  'created_at', to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'version', version)::text
                FROM rm_users WHERE user_id = \(owner)
                UNION ALL
                SELECT json_build_object('type', 'reminder_settings', 'morning_time', morning_time, 'evening_time', evening_time,
                  'enabled_kinds', reminder_kinds)::text
                FROM rm_users WHERE user_id = \(owner)
                UNION ALL
                SELECT json_build_object('type', 'source_priority', 'order', priority)::text
                FROM rm_health_settings WHERE owner_id = \(owner)
                """),
            ExportPart("device", """
                DECLARE export_part NO SCROLL CURSOR FOR
                SELECT json_build_object('type', 'device', 'id', d.device_id, 'name', d.name, 'kind', d.kind,
                  'created_at', to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                  'last_used_at', to_char(k.last_used_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                  'revoked_at', to_char(d.revoked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))::text
                FROM rm_devices d LEFT JOIN device_keys k ON k.device_id = d.device_id
                WHERE d.user_id = \(owner) ORDER BY d.created_at, d.device_id
                """),
            ExportPart("webhook", """
                DECLARE export_part NO SCROLL CURSOR FOR
                SELECT json_build_object('type', 'webhook', 'id', id, 'purpose', purpose, 'url', url, 'events', events,
                  'created_at', to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                  'disabled_at', to_char(disabled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'disabled_reason', disabled_reason)::text
                FROM webhook_endpoints WHERE user_id = \(owner) ORDER BY created_at, id
                """),
            ExportPart("habit", """
                DECLARE export_part NO SCROLL CURSOR FOR
                SELECT json_build_object('type', 'habit', 'id', habit_id, 'name', name, 'emoji', emoji, 'color', color, 'kind', kind,
                  'target', target, 'unit', unit, 'schedule', schedules -> -1 -> 'schedule', 'schedules', schedules,
                  'start_date', start_date, 'reminder_time', reminder_time, 'archived', archived,
                  'created_at', to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'version', version)::text
                FROM rm_habits WHERE owner_id = \(owner) ORDER BY created_at, habit_id
                """),
            ExportPart("habit_log", """
                DECLARE export_part NO SCROLL CURSOR FOR
                SELECT habit_id, date - DATE '1970-01-01', value::text FROM rm_habit_logs WHERE owner_id = \(owner) ORDER BY habit_id, date
                """, line: habitLog),
            ExportPart("freeze", """
                DECLARE export_part NO SCROLL CURSOR FOR
                SELECT json_build_object('type', 'freeze', 'id', freeze_id, 'habit_id', habit_id, 'from', from_date, 'to', to_date,
                  'reason', reason)::text
                FROM rm_habit_freezes WHERE owner_id = \(owner) ORDER BY habit_id, from_date, freeze_id
                """),
            ExportPart("task", """
                DECLARE export_part NO SCROLL CURSOR FOR
                SELECT json_build_object('type', 'task', 'id', task_id, 'series_id', series_id, 'title', title, 'notes', notes,
                  'priority', priority, 'due_date', due_date, 'due_time', due_time, 'repeat', repeat, 'completed', completed,
                  'completed_at', to_char(completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'next_task_id', next_task_id,
                  'created_at', to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'version', revision)::text
                FROM rm_tasks WHERE owner_id = \(owner) ORDER BY created_at, task_id
                """),
            ExportPart("finance_category", """
                DECLARE export_part NO SCROLL CURSOR FOR
                SELECT json_build_object('type', 'finance_category', 'id', category_id, 'name', name, 'emoji', emoji, 'kind', kind,
                  'color', color, 'archived', archived,
                  'created_at', to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'version', revision)::text
                FROM rm_fin_categories WHERE owner_id = \(owner) ORDER BY created_at, category_id
                """),
            ExportPart("budget", """
                DECLARE export_part NO SCROLL CURSOR FOR
                WITH digits(code, n) AS (SELECT * FROM unnest(\(codes)::text[], \(digits)::int[]))
                SELECT json_build_object('type', 'budget', 'category_id', b.category_id, 'from_month', b.from_month,
                  'amount', round(b.amount::numeric / 10::numeric ^ coalesce(d.n, 2), coalesce(d.n, 2))::text,
                  'currency', b.currency)::text
                FROM rm_fin_budgets b LEFT JOIN digits d ON d.code = b.currency::text
                WHERE b.owner_id = \(owner) ORDER BY b.category_id, b.from_month, b.currency
                """),
            ExportPart("transaction", """
                DECLARE export_part NO SCROLL CURSOR FOR
                WITH digits(code, n) AS (SELECT * FROM unnest(\(codes)::text[], \(digits)::int[]))
                SELECT json_build_object('type', 'transaction', 'id', t.transaction_id, 'kind', t.kind,
                  'amount', round(t.amount::numeric / 10::numeric ^ coalesce(d.n, 2), coalesce(d.n, 2))::text,
                  'currency', t.currency, 'category_id', t.category_id, 'date', t.date, 'note', t.note,
                  'created_at', to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'version', t.version)::text
                FROM rm_fin_transactions t LEFT JOIN digits d ON d.code = t.currency::text
                WHERE t.owner_id = \(owner) ORDER BY t.date, t.created_at, t.transaction_id
                """),
            ExportPart("savings_goal", """
                DECLARE export_part NO SCROLL CURSOR FOR
                WITH digits(code, n) AS (SELECT * FROM unnest(\(codes)::text[], \(digits)::int[]))
                SELECT json_build_object('type', 'savings_goal', 'id', g.goal_id, 'name', g.name, 'emoji', g.emoji, 'currency', g.currency,
                  'target_amount', round(g.target_amount::numeric / 10::numeric ^ coalesce(d.n, 2), coalesce(d.n, 2))::text,
                  'target_date', g.target_date,
                  'created_at', to_char(g.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'version', g.version)::text
                FROM rm_savings_goals g LEFT JOIN digits d ON d.code = g.currency::text
                WHERE g.owner_id = \(owner) ORDER BY g.created_at, g.goal_id
                """),
            ExportPart("member", """
                DECLARE export_part NO SCROLL CURSOR FOR
                SELECT json_build_object('type', 'member', 'goal_id', goal_id, 'user_id', user_id,
                  'added_at', to_char(added_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))::text
                FROM rm_savings_members WHERE owner_id = \(owner) ORDER BY goal_id, added_at, user_id
                """),
            ExportPart("plan", """
                DECLARE export_part NO SCROLL CURSOR FOR
                WITH digits(code, n) AS (SELECT * FROM unnest(\(codes)::text[], \(digits)::int[]))
                SELECT json_build_object('type', 'plan', 'goal_id', p.goal_id, 'seq', p.seq, 'kind', p.kind,
                  'amount', round(p.amount::numeric / 10::numeric ^ coalesce(d.n, 2), coalesce(d.n, 2))::text, 'currency', g.currency,
                  'anchor_day', p.anchor_day, 'every_months', p.every_months, 'start_month', p.start_month, 'end_month', p.end_month,
                  'ended_after', p.ended_after)::text
                FROM rm_savings_plans p JOIN rm_savings_goals g ON g.goal_id = p.goal_id
                LEFT JOIN digits d ON d.code = g.currency::text
                WHERE p.owner_id = \(owner) ORDER BY p.goal_id, p.seq
                """),
            ExportPart("savings_movement", """
                DECLARE export_part NO SCROLL CURSOR FOR
                WITH digits(code, n) AS (SELECT * FROM unnest(\(codes)::text[], \(digits)::int[]))
                SELECT json_build_object('type', 'savings_movement', 'id', m.movement_id, 'goal_id', m.goal_id, 'kind', m.kind,
                  'amount', round(m.amount::numeric / 10::numeric ^ coalesce(d.n, 2), coalesce(d.n, 2))::text, 'currency', m.currency,
                  'date', m.date, 'occurrence', m.occurrence, 'note', m.note, 'created_by', m.actor_id,
                  'created_at', to_char(m.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))::text
                FROM rm_savings_movements m LEFT JOIN digits d ON d.code = m.currency::text
                WHERE m.owner_id = \(owner) ORDER BY m.goal_id, m.seq
                """),
            ExportPart("health_record", """
                DECLARE export_part NO SCROLL CURSOR FOR
                SELECT kind, uuid, name, value, min, max, start_s, end_s, local_date - DATE '1970-01-01', series, source_name, source_kind,
                  source_bundle, energy_kcal, distance_m, avg_hr, device_id
                FROM rm_health_records WHERE owner_id = \(owner) ORDER BY key
                """, line: healthRecord),
            ExportPart("manual_value", """
                DECLARE export_part NO SCROLL CURSOR FOR
                SELECT json_build_object('type', 'manual_value', 'metric', metric, 'date', date, 'value', value)::text
                FROM rm_health_manual WHERE owner_id = \(owner) ORDER BY metric, date
                """),
            ExportPart("daily_summary", """
                DECLARE export_part NO SCROLL CURSOR FOR
                SELECT json_build_object('type', 'daily_summary', 'metric', metric, 'date', date, 'value', value, 'min', min,
                  'max', max, 'source', source, 'samples', samples)::text
                FROM rm_health_daily WHERE owner_id = \(owner) ORDER BY metric, date
                """),
            ExportPart("checkin", """
                DECLARE export_part NO SCROLL CURSOR FOR
                SELECT json_build_object('type', 'checkin', 'date', date, 'feeling', feeling, 'note', note)::text
                FROM rm_health_checkins WHERE owner_id = \(owner) ORDER BY date
                """),
            ExportPart("audit_finding", """
                DECLARE export_part NO SCROLL CURSOR FOR
                SELECT json_build_object('type', 'audit_finding', 'id', id, 'finding_type', type, 'severity', severity,
                  'metric', metric, 'from', from_date, 'to', to_date, 'evidence', evidence, 'status', status,
                  'detected_at', to_char(detected_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))::text
                FROM rm_health_findings WHERE owner_id = \(owner) ORDER BY detected_at, id
                """),
        ]
    }
}

/// One part of the export: its cursor's DECLARE, and how a row becomes a line (nil: the row's
/// one column is the line, written by PostgreSQL).
struct ExportPart: Sendable {
    let name: String
    let declare: PostgresQuery
    let line: (@Sendable (PostgresRow) throws -> String)?

    init(_ name: String, _ declare: PostgresQuery, line: (@Sendable (PostgresRow) throws -> String)? = nil) {
        self.name = name
        self.declare = declare
        self.line = line
    }
}

extension ExportQueries {
    @Sendable static func habitLog(_ row: PostgresRow) throws -> String {
        let (habit, days, value) = try row.decode((UUID, Int32, String?).self)
        var line = ExportLine(type: "habit_log")
        line.string("habit_id", habit.uuidString.lowercased())
        line.date("date", daysSinceEpoch: days)
        line.raw("value", value)
        return line.finished()
    }

    @Sendable static func healthRecord(_ row: PostgresRow) throws -> String {
        let (kind, uuid, name, value, min, max, start, end, days, series, source, sourceKind, bundle, energy, distance, heartRate, device) =
            try row.decode((String, String?, String, Double?, Double?, Double?, Int64, Int64, Int32, String, String, String, String?,
                            Double?, Double?, Double?, UUID?).self)
        var line: ExportLine
        switch kind {
        case "quantity":
            line = ExportLine(type: "health_sample")
            line.string("uuid", uuid)
            line.string("metric", name)
            line.number("value", value)
            line.number("min", min)
            line.number("max", max)
        case "sleep":
            line = ExportLine(type: "sleep_segment")
            line.string("uuid", uuid)
            line.string("stage", name)
        default:
            line = ExportLine(type: "workout")
            line.string("uuid", uuid)
            line.string("workout_type", name)
            line.number("active_energy_kcal", energy)
            line.number("distance_m", distance)
            line.number("avg_heart_rate", heartRate)
        }
        line.instant("start", seconds: start)
        line.instant("end", seconds: end)
        line.date("date", daysSinceEpoch: days)
        if kind == "quantity" { line.string("series", series) }
        line.string("source", source)
        line.string("source_kind", sourceKind)
        line.string("source_bundle", bundle)
        line.string("device_id", device?.uuidString.lowercased())
        return line.finished()
    }
}
