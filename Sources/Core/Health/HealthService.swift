import Domain
import EventStore
import Foundation
import Logging
import Projections

/// Health: ingestion (check, decide with `HealthIngestDecider`, append), the user's settings,
/// and the reads behind `/api/v1/health`.
public struct HealthService: AreaService {
    let basis: ServiceBasis
    let health: HealthReadModel
    /// How long a read waits for the async models to reach a position (`EdgeLimits.readWait`).
    let readWait: Duration

    public init(_ basis: ServiceBasis, readWait: Duration = .seconds(3)) {
        (self.basis, self.readWait) = (basis, readWait)
        health = HealthReadModel(client: basis.client, logger: basis.logger)
    }

    func samplesStream(_ owner: UUID) -> StreamName {
        StreamName(id: HealthEvent.streamId(owner), ownerId: owner, type: HealthEvent.streamType)
    }

    /// Stores what is new in `intake` for the user; `deviceId` names the device key that sent it.
    /// The whole request is one append (its records cut into events of bounded size), so it is
    /// stored whole or not at all; a batch of thousands is a handful of statements.
    public func ingest(_ context: CommandContext, deviceId: UUID?, _ intake: HealthIntake, format: String) async throws -> HealthIngestionReport {
        let batch = try await checkedCommand(context.userId, deviceId: deviceId, intake, format: format)
        return try await commands.pipelineActive(batch.stream) {
            // A batch with nothing new (a re-sent sync, a retry of a stored request) is answered from
            // one read, without a turn in the queue of the user's batches: the state it read already
            // holds all of it, so it is answered as of that state, as the queue would have.
            let early = try await decisionState(context.userId, batch)
            if !HealthIngestDecider.surelyStoresSomething(early.state, batch.command),
               try HealthIngestDecider.decide(early.state, batch.command, batch.time).isEmpty {
                return try await report(batch, decidedOn: early.state, outcome: CommandPath.Outcome(appended: [], replayed: false))
            }
            // Decided in its turn on that read, with the batches ahead of it that it did not see
            // folded in, while the one ahead is still being stored (a sync sends several at a
            // time): each decision overlaps the append before it.
            var unread: CommandPath.Loaded<HealthIngestDecider.State>? = early
            let (outcome, decidedOn) = try await commands.decidePipelined(
                HealthIngestDecider.self, stream: batch.stream, command: batch.command, context: context, time: batch.time
            ) {
                if let read = unread {
                    unread = nil
                    return read
                }
                return try await decisionState(context.userId, batch)
            }
            // The answer's counts are the tally of the state the stored decision was made on.
            return try await report(batch, decidedOn: decidedOn ?? HealthIngestDecider.initial, outcome: outcome)
        }
    }

    /// A batch decided while the one before it is still being stored (an import's batches, one
    /// after another from one writer): see `CommandPath.decideAhead`. `append` stores it.
    public struct IngestAhead: Sendable {
        let batch: CheckedBatch
        let ahead: CommandPath.Ahead<HealthIngestDecider>
    }

    /// Decides `intake` to be stored right after `previous`, while `previous` may still be being
    /// stored. Throws `EventStoreError.wrongExpectedVersion` when another writer changed the
    /// user's health log meanwhile: then `ingest` stores it the ordinary way. Meant for an
    /// export's batches, which delete nothing: a deletion's evidence for the audit (the items
    /// stored on its days) would be read without `previous`'s items.
    public func decideAhead(_ context: CommandContext, deviceId: UUID?, _ intake: HealthIntake, format: String,
                            after previous: IngestAhead?) async throws -> IngestAhead {
        let batch = try await checkedCommand(context.userId, deviceId: deviceId, intake, format: format)
        let ahead = try await commands.decideAhead(
            HealthIngestDecider.self, stream: batch.stream, command: batch.command, context: context, time: batch.time, after: previous?.ahead
        ) {
            try await decisionState(context.userId, batch)
        }
        return IngestAhead(batch: batch, ahead: ahead)
    }

    /// Stores a batch decided ahead, once the one before it is stored.
    public func append(_ decided: IngestAhead) async throws -> HealthIngestionReport {
        let outcome = try await commands.append(decided.ahead)
        return try await report(decided.batch, decidedOn: decided.ahead.state, outcome: outcome)
    }

    /// An intake checked into records, as the command that stores them.
    struct CheckedBatch: Sendable {
        let received: Int
        let checked: HealthIntakeRules.Checked
        let command: HealthIngestDecider.Command
        let stream: StreamName
        let time: DecisionTime
    }

    func checkedCommand(_ owner: UUID, deviceId: UUID?, _ intake: HealthIntake, format: String) async throws -> CheckedBatch {
        let calendar = try await calendar(owner)
        let now = clock.now()
        let checked = HealthIntakeRules.check(intake, timeZone: calendar.timeZone, now: now)
        // What the deleted items' days held before, as evidence for the audit's mass-deletion rule.
        let storedOnDates = checked.deletions.isEmpty ? [:] : try await health.storedOnDates(owner, uuids: checked.deletions)
        let command = HealthIngestDecider.Command(deviceId: deviceId, records: checked.records, deletions: checked.deletions, format: format,
                                                  storedOnDates: storedOnDates)
        return CheckedBatch(received: intake.received, checked: checked, command: command, stream: samplesStream(owner),
                            time: calendar.decisionTime(at: now))
    }

    /// The stored items the batch's items could be (by key or uuid), and the stream's version, read together.
    func decisionState(_ owner: UUID, _ batch: CheckedBatch) async throws -> CommandPath.Loaded<HealthIngestDecider.State> {
        let (records, version) = try await health.decisionState(owner, streamId: batch.stream.id, keys: batch.command.readKeys,
                                                                uuids: batch.command.readUUIDs)
        return .init(state: HealthIngestDecider.State(records: records), streamVersion: version)
    }

    /// The answer: the counts of the state the stored decision was made on.
    func report(_ batch: CheckedBatch, decidedOn: HealthIngestDecider.State, outcome: CommandPath.Outcome) async throws -> HealthIngestionReport {
        let checked = batch.checked
        let position: LogPosition? = if let last = outcome.appended.last { last.position } else { try await health.lastPosition(ofStream: batch.stream.id) }
        if outcome.replayed {
            // The same request (Idempotency-Key) was stored before: nothing of it is new now.
            return HealthIngestionReport(
                received: batch.received, inserted: 0, updated: 0, duplicates: checked.records.count, deleted: 0, rejected: checked.rejected,
                skipped: checked.skipped + checked.deletions.count, errors: checked.errors, position: position)
        }
        let tally = HealthIngestDecider.tally(decidedOn, batch.command)
        return HealthIngestionReport(
            received: batch.received, inserted: tally.inserted, updated: tally.updated, duplicates: tally.duplicates,
            deleted: tally.deleted, rejected: checked.rejected, skipped: checked.skipped + tally.unknownDeletions,
            errors: checked.errors, position: position)
    }

    // MARK: Settings

    @discardableResult
    func settings(_ context: CommandContext, _ command: HealthSettingsDecider.Command) async throws -> CommandPath.Outcome {
        let owner = context.userId
        let time = try await calendar(owner).decisionTime(at: clock.now())
        let stream: StreamName = if case .checkIn = command {
            StreamName(id: HealthEvent.checkInsStreamId(owner), ownerId: owner, type: HealthEvent.checkInsStreamType)
        } else {
            StreamName(id: HealthEvent.settingsStreamId(owner), ownerId: owner, type: HealthEvent.settingsStreamType)
        }
        return try await commands.run(HealthSettingsDecider.self, stream: stream, command: command, context: context, time: time) {
            try await commands.folded(HealthSettingsDecider.self, stream)
        }
    }

    public func setManual(_ context: CommandContext, _ manual: ManualValue) async throws -> LogPosition? {
        try await settings(context, .setManual(manual)).appended.last?.position
    }

    public func clearManual(_ context: CommandContext, metric: HealthMetric, date: LocalDate) async throws {
        try await settings(context, .clearManual(metric: metric, date: date))
    }

    public func setPriority(_ context: CommandContext, _ order: [HealthSourceKind]) async throws -> HealthSourcePriority {
        try await settings(context, .setPriority(order))
        return try await health.priority(context.userId)
    }

    public func priority(_ owner: UUID) async throws -> HealthSourcePriority {
        try await health.priority(owner)
    }

    /// Records how the user feels on `date` (context beside the score; it changes no number).
    public func checkIn(_ context: CommandContext, date: LocalDate, feeling: Int, note: String?) async throws -> HealthReadModel.CheckIn {
        try await settings(context, .checkIn(date: date, feeling: feeling, note: note))
        guard let stored = try await health.checkIns(context.userId, from: date, to: date)[date] else { throw ResourceError.notFound }
        return stored
    }

    // MARK: Reads

    /// Waits, briefly, until the day and night read models have read past `position`; false
    /// when they have not within `timeout` (the client asks again).
    public func waitForDays(_ position: LogPosition?, model: AsyncModel = .days) async throws -> (caughtUp: Bool, asOf: LogPosition) {
        let timeout = readWait
        let read = { model == .days ? try await health.daysPosition() : try await health.auditPosition() }
        var asOf = try await read()
        guard let position else { return (true, asOf) }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while asOf < position {
            guard ContinuousClock.now < deadline else { return (false, asOf) }
            try await Task.sleep(for: .milliseconds(10))
            asOf = try await read()
        }
        return (true, asOf)
    }

    /// The async health models a read can wait for: days, nights and recovery, or the audit.
    public enum AsyncModel: Sendable {
        case days, audit
    }

    /// The user's zone, for formats whose days have no offset (a client's daily totals).
    public func timeZone(_ owner: UUID) async throws -> TimeZone {
        try await calendar(owner).timeZone
    }

    public func logicalToday(_ owner: UUID) async throws -> LocalDate {
        try await calendar(owner).today(at: clock.now())
    }

    public func days(_ owner: UUID, from: LocalDate, to: LocalDate, metrics: [HealthMetric]) async throws -> [HealthDay] {
        try await health.days(owner, from: from, to: to, metrics: metrics)
    }

    public func nights(_ owner: UUID, from: LocalDate, to: LocalDate) async throws -> [SleepNight] {
        try await health.nights(owner, from: from, to: to)
    }

    public func workouts(_ owner: UUID, from: LocalDate, to: LocalDate) async throws -> [HealthRecord] {
        async let found = health.workouts(owner, from: from, to: to)
        async let priority = health.priority(owner)
        return WorkoutMerge.merged(try await found, priority: try await priority)
    }

    public func latest(_ owner: UUID) async throws -> [HealthReadModel.Latest] {
        try await health.latest(owner)
    }

    /// The recovery scores of from…to with the check-ins of those dates.
    public func recovery(_ owner: UUID, from: LocalDate, to: LocalDate) async throws -> ([RecoveryScore], [LocalDate: HealthReadModel.CheckIn]) {
        async let scores = health.recovery(owner, from: from, to: to)
        async let checkIns = health.checkIns(owner, from: from, to: to)
        return (try await scores, try await checkIns)
    }

    /// The recovery scores of from…to, without check-ins.
    public func recoveryScores(_ owner: UUID, from: LocalDate, to: LocalDate) async throws -> [RecoveryScore] {
        try await health.recovery(owner, from: from, to: to)
    }

    /// The briefing of `date`: the composed sections and texts, the check-in, and each
    /// section's newest sample time (within the three days up to the date).
    public func briefing(_ owner: UUID, date: LocalDate, language: Language)
        async throws -> (Briefing, HealthReadModel.CheckIn?, [Briefing.SectionKey: Int64])
    {
        let metrics: [HealthMetric] = [.steps, .activeEnergy, .distance, .restingHeartRate, .hrvSdnn, .spo2, .respiratoryRate, .bodyMass, .bodyFat]
        let first = date.adding(days: -90)
        async let scores = health.recovery(owner, from: date, to: date)
        async let nights = health.nightFigures(owner, from: first, to: date)
        async let days = health.days(owner, from: first, to: date, metrics: metrics)
        async let checkIns = health.checkIns(owner, from: date, to: date)
        async let newest = health.newestSamples(
            owner, metrics: Array(Set(BriefingInputs.freshnessMetrics.values.joined())), from: date.adding(days: -2), to: date)
        guard let score = try await scores.first else { throw ResourceError.notFound }
        var byMetric: [HealthMetric: [LocalDate: Double]] = [:]
        for day in try await days { byMetric[day.metric, default: [:]][day.date] = day.value }
        let checkIn = try await checkIns[date]
        let foundNights = try await nights
        let inputs = BriefingInputs(date: date, recovery: score, nights: foundNights, days: byMetric, feeling: checkIn?.feeling)
        let briefing = BriefingComposer.compose(inputs, language: language)
        var freshness: [Briefing.SectionKey: Int64] = [:]
        let times = try await newest
        for (section, sectionMetrics) in BriefingInputs.freshnessMetrics {
            if let newest = sectionMetrics.compactMap({ times[$0] }).max() { freshness[section] = newest }
        }
        if let night = foundNights[date] { freshness[.sleep] = night.endSeconds }
        return (briefing, checkIn, freshness)
    }

    public func findings(_ owner: UUID, from: LocalDate?, to: LocalDate?, statuses: [HealthAudit.Status]) async throws -> [HealthReadModel.Finding] {
        try await health.findings(owner, from: from, to: to, statuses: statuses)
    }

    public func findingCounts(_ owner: UUID) async throws -> [HealthReadModel.FindingCount] {
        try await health.findingCounts(owner)
    }

    /// Acknowledges the user's finding `id` (404 for another user's or an unknown one).
    public func acknowledge(_ context: CommandContext, finding id: UUID) async throws -> (HealthReadModel.Finding, LogPosition?) {
        guard var finding = try await health.findings(context.userId, from: nil, to: nil, statuses: HealthAudit.Status.allCases, id: id).first
        else { throw ResourceError.notFound }
        let outcome = try await settings(context, .acknowledgeFinding(id, status: finding.status))
        // The audit applies the event when it next reads the log; the answer is what it will hold.
        finding.status = .acknowledged
        return (finding, outcome.appended.last?.position)
    }

    /// The language the user chose, for words the caller did not ask in another language.
    public func language(_ owner: UUID) async throws -> Language {
        try await users.language(owner) ?? .en
    }

    public func heatmap(_ owner: UUID, metric: HealthMetric, from: LocalDate, to: LocalDate) async throws -> [HealthHeatmap.Cell] {
        let days = try await health.days(owner, from: from, to: to, metrics: [metric])
        return HealthHeatmap.cells(from: from, to: to, values: Dictionary(days.map { ($0.date, $0.value) }, uniquingKeysWith: { $1 }))
    }

    public func trend(_ owner: UUID, metric: HealthMetric, days: Int) async throws -> HealthTrend {
        let today = try await logicalToday(owner)
        let from = today.adding(days: -(2 * days + HealthTrend.baselineLength))
        let found = try await health.days(owner, from: from, to: today, metrics: [metric])
        return HealthTrend.compute(metric: metric, days: days, today: today,
                                   values: Dictionary(found.map { ($0.date, $0.value) }, uniquingKeysWith: { $1 }))
    }
}
