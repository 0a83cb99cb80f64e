import Domain
import Foundation
import Testing

/// The health area's pure rules: ingestion's decisions, counting across sources, nights,
/// workouts, and the day figure's precedence.
@Suite struct HealthRulesTests {
    static let watch = HealthSource(name: "Apple Watch", kind: .watch)
    static let phone = HealthSource(name: "iPhone", kind: .phone)
    static let ring = HealthSource(name: "Ring", kind: .ring)
    static let belgrade = TimeZone(identifier: "Europe/Belgrade") ?? .gmt
    static let now = Date(timeIntervalSince1970: 1_773_144_000)  // 2026-03-10T12:00:00Z
    static let time = DecisionTime(instant: now, today: LocalDate(year: 2026, month: 3, day: 10) ?? LocalDate(daysSinceEpoch: 0))

    static func steps(_ value: Double, _ start: Int64, _ end: Int64, _ source: HealthSource) -> CumulativeCredit.Sample {
        CumulativeCredit.Sample(value: value, startSeconds: start, endSeconds: end, source: source)
    }

    static func intakeSample(_ value: Double, at start: Date, source: HealthSource = watch, uuid: String? = nil,
                             series: HealthIntake.Series = .sample) -> HealthIntake.Sample {
        HealthIntake.Sample(uuid: uuid, metric: "steps", value: value, unit: nil, start: start, end: start.addingTimeInterval(600),
                            source: source, series: series, path: "samples[0]")
    }

    static func records(_ samples: [HealthIntake.Sample]) -> [HealthRecord] {
        HealthIntakeRules.check(HealthIntake(samples: samples), timeZone: belgrade, now: now).records
    }

    // MARK: Ingestion decisions

    @Test func aSampleAlreadyStoredIsADuplicateAndAddsNoEvent() throws {
        let start = Self.now.addingTimeInterval(-86_400)
        let stored = Self.records([Self.intakeSample(500, at: start)])
        let given = HealthIngestDecider.fold([.recordsStored(.init(deviceId: nil, records: stored))])
        let command = HealthIngestDecider.Command(deviceId: nil, records: stored, deletions: [])
        #expect(try HealthIngestDecider.decide(given, command, Self.time).isEmpty)
        #expect(HealthIngestDecider.tally(given, command).duplicates == 1)
    }

    @Test func aRunningTotalSentAgainLargerReplacesTheEarlierOne() throws {
        let midnight = Date(timeIntervalSince1970: 1_773_097_200)  // 2026-03-10T00:00:00+01:00
        var state = HealthIngestDecider.initial
        var tallies: [HealthIngestDecider.Tally] = []
        for total in [2_000.0, 5_000, 8_000] {
            let command = HealthIngestDecider.Command(
                deviceId: nil, records: Self.records([Self.intakeSample(total, at: midnight, series: .summary)]), deletions: [])
            tallies.append(HealthIngestDecider.tally(state, command))
            state = HealthIngestDecider.fold(try HealthIngestDecider.decide(state, command, Self.time), from: state)
        }
        #expect(tallies.map(\.inserted) == [1, 0, 0])
        #expect(tallies.map(\.updated) == [0, 1, 1])
        #expect(state.byKey.count == 1)
        #expect(state.byKey.values.first?.value == 8_000)
    }

    /// A UUID is one item in either case (an id of another form keeps its case: ExporterCorrectionsTests).
    @Test func aSampleEditedUnderItsUUIDReplacesItWhereverItWas() throws {
        let first = Self.records([Self.intakeSample(500, at: Self.now.addingTimeInterval(-3 * 86_400), uuid: "6F1B0E0A-6C2B-4B44-9D6C-0F6A7E1C2D3E")])
        let given = HealthIngestDecider.fold([.recordsStored(.init(deviceId: nil, records: first))])
        let edited = Self.records([Self.intakeSample(700, at: Self.now.addingTimeInterval(-86_400), uuid: "6f1b0e0a-6c2b-4b44-9d6c-0f6a7e1c2d3e")])
        let events = try HealthIngestDecider.decide(given, .init(deviceId: nil, records: edited, deletions: []), Self.time)
        guard case .recordsStored(let stored)? = events.first else { Issue.record("\(events)"); return }
        #expect(stored.records.map(\.value) == [700])
        #expect(stored.replaced.map(\.date) == [first[0].date])
        let after = HealthIngestDecider.fold(events, from: given)
        #expect(after.byKey.count == 1)
    }

    /// Random histories (fixed seed) of edits under one uuid, one content under two uuids, a uuid
    /// or a content twice in a batch, and deletions (of stored items and of items the same batch
    /// sends), each batch decided on what a read of the records table finds and stored as the
    /// projector stores it: the table never holds a uuid twice (its unique index would refuse the
    /// batch), and each batch sent again is all duplicates.
    typealias Table = [String: HealthRecord]

    /// What ingestion's read for `command` finds: the rows with one of its keys or uuids.
    static func read(_ table: Table, for command: HealthIngestDecider.Command) -> HealthIngestDecider.State {
        let keys = Set(command.readKeys), uuids = Set(command.readUUIDs)
        return .init(records: table.values.filter { keys.contains($0.key) || $0.uuid.map(uuids.contains) == true })
    }

    /// The events applied to a model of `rm_health_records` as the projector applies them: one
    /// statement inserts an event's records (a key twice in it is an error), after the rows they
    /// replace are deleted, and the uuid index is checked row by row, in the event's order.
    static func apply(_ events: [HealthEvent], to table: inout Table) {
        var keyOfUUID = Dictionary(table.values.compactMap { row in row.uuid.map { ($0, row.key) } }, uniquingKeysWith: { first, _ in first })
        func remove(_ key: String) {
            if let uuid = table[key]?.uuid { keyOfUUID[uuid] = nil }
            table[key] = nil
        }
        for event in events {
            switch event {
            case .recordsStored(let stored):
                #expect(Set(stored.records.map(\.key)).count == stored.records.count)
                for removed in stored.replaced { remove(removed.key) }
                for record in stored.records {
                    remove(record.key)
                    if let uuid = record.uuid {
                        #expect(keyOfUUID[uuid] == nil, "\(uuid) on two rows: \(keyOfUUID[uuid] ?? "") and \(record.key)")
                        keyOfUUID[uuid] = record.key
                    }
                    table[record.key] = record
                }
            case .recordsDeleted(let deleted):
                for record in deleted.records { remove(record.key) }
            default: Issue.record("\(event)")
            }
        }
    }

    /// Every stored item's uuid moves to its neighbour's content in one batch of 1,200 items (three
    /// events): each row gives up its uuid and takes another, across the events' boundaries.
    @Test func uuidsRotatedAcrossABatchOfSeveralEventsAreWrittenInAnOrderTheIndexAccepts() throws {
        let count = 1_200
        let times = (0..<count).map { Self.now.addingTimeInterval(-Double($0) * 60 - 3_600) }
        // Each uuid to the next item's content, then to the one before (the taker before or after the giver).
        for shift in [1, count - 1] {
            var table: Table = [:]
            for record in Self.records(times.indices.map { Self.intakeSample(1, at: times[$0], uuid: "v\($0)") }) { table[record.key] = record }
            let rotated = Self.records(times.indices.map { Self.intakeSample(1, at: times[$0], uuid: "v\(($0 + shift) % count)") })
            let command = HealthIngestDecider.Command(deviceId: nil, records: rotated, deletions: [])
            let events = try HealthIngestDecider.decide(Self.read(table, for: command), command, Self.time)
            #expect(events.count == 3)
            Self.apply(events, to: &table)
            #expect(table.count == count && rotated.allSatisfy { table[$0.key]?.uuid == $0.uuid })
            #expect(try HealthIngestDecider.decide(Self.read(table, for: command), command, Self.time).isEmpty)
        }
    }

    @Test func randomHistoriesKeepAUUIDOnOneRowAndAReSentBatchAddsNothing() throws {
        var seed: UInt64 = 0x5EED
        func next(_ count: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(count))
        }
        // A batch may name a uuid twice and send two items of one content (one key).
        func batch() -> HealthIngestDecider.Command {
            let samples = (0...next(5)).map { _ in
                Self.intakeSample(Double(1 + next(2)), at: Self.now.addingTimeInterval(Double(-600 * (1 + next(6)))),
                                  source: next(2) == 0 ? Self.watch : Self.phone, uuid: [nil, "u1", "u2", "u3"][next(4)])
            }
            // A uuid may be deleted twice in one batch.
            let deletions = next(3) == 0 ? (0...next(2)).map { _ in "u\(1 + next(3))" } : []
            return .init(deviceId: nil, records: Self.records(samples), deletions: deletions)
        }
        var changed = 0, surely = 0, flagged = 0
        for _ in 0..<1_000 {
            var table: Table = [:]
            // Later batches' reads made before this one is stored, with what was stored since.
            var behind: [(command: HealthIngestDecider.Command, read: HealthIngestDecider.State, since: [HealthEvent])] = []
            for _ in 0..<(1 + next(6)) {
                let command = batch()
                let later = batch()
                behind.append((later, Self.read(table, for: later), []))
                let before = Self.read(table, for: command)
                let events = try HealthIngestDecider.decide(before, command, Self.time)
                // Ingestion skips its early decision when this says the batch stores something.
                if HealthIngestDecider.surelyStoresSomething(before, command) {
                    surely += 1
                    #expect(!events.isEmpty)
                }
                // A batch said to be all new is inserted without checking keys: none may be stored.
                for case .recordsStored(let stored) in events where stored.allNew == true {
                    flagged += 1
                    #expect(stored.replaced.isEmpty)
                    for record in stored.records {
                        #expect(table[record.key] == nil && !table.values.contains { $0.uuid != nil && $0.uuid == record.uuid })
                    }
                }
                Self.apply(events, to: &table)
                // A batch decided on the batches ahead of it (`decidePipelined`) folds only the
                // items it could be onto its early read: the rows a read made now finds.
                for index in behind.indices {
                    behind[index].since += events
                    let (later, early, since) = behind[index]
                    #expect(HealthIngestDecider.fold(since, onto: early, for: later) == Self.read(table, for: later))
                }
                if behind.count > 3 { behind.removeFirst() }
                // A batch decided ahead folds the events of the one before it: the same rows.
                #expect(HealthIngestDecider.fold(events, from: before) == Self.read(table, for: command))
                // Every item sent is stored as its last content, unless a later item took its row;
                // no deleted item is left.
                let kept = command.records.filter { $0.uuid.map(command.deletions.contains) != true }
                for (index, record) in kept.enumerated() where !kept[(index + 1)...].contains(where: { $0.uuid != nil && $0.uuid == record.uuid }) {
                    let row = table[record.key]
                    let tookRow = kept[(index + 1)...].contains { $0.key == record.key }
                    // An item without a uuid sent with a stored item's identity is that item, and keeps its uuid.
                    let stored = row.map { row in var row = row; if record.uuid == nil { row.uuid = nil }; return !row.differs(from: record) }
                    #expect(tookRow || stored == true,
                            "item \(index) of \(kept.count) not stored: \(row.map { "\($0.uuid ?? "-") \($0.value ?? -1)" } ?? "no row")")
                }
                #expect(!table.values.contains { $0.uuid.map(command.deletions.contains) == true })
                let tally = HealthIngestDecider.tally(before, command)
                #expect(tally.inserted + tally.updated + tally.duplicates == kept.count)
                #expect(tally.deleted + tally.unknownDeletions == command.deletions.count && tally.deleted <= Set(command.deletions).count)
                // Sent again, with or without what it deleted, it adds nothing and counts so.
                #expect(try HealthIngestDecider.decide(Self.read(table, for: command), command, Self.time).isEmpty)
                #expect(!HealthIngestDecider.surelyStoresSomething(Self.read(table, for: command), command))
                let again = HealthIngestDecider.Command(deviceId: nil, records: kept, deletions: [])
                #expect(try HealthIngestDecider.decide(Self.read(table, for: again), again, Self.time).isEmpty)
                let recount = HealthIngestDecider.tally(Self.read(table, for: again), again)
                #expect([recount.inserted, recount.updated, recount.duplicates] as [Int] == [0, 0, kept.count],
                        "\(table.values.map { "\($0.key) \($0.uuid ?? "-") \($0.value ?? 0)" }) <- \(kept.map { "\($0.key) \($0.uuid ?? "-") \($0.value ?? 0)" }) \(recount.replaced)")
                changed += events.isEmpty ? 0 : 1
            }
        }
        #expect(changed > 1_500)
        #expect(surely > 300, "the shortcut held for \(surely) batches")
        #expect(flagged > 300, "\(flagged) batches said to be all new")
    }

    @Test func aDeletionNamesTheDayItEmptiesAndAnUnknownOneIsOnlyCounted() throws {
        let stored = Self.records([Self.intakeSample(500, at: Self.now.addingTimeInterval(-86_400), uuid: "gone")])
        let given = HealthIngestDecider.fold([.recordsStored(.init(deviceId: nil, records: stored))])
        let command = HealthIngestDecider.Command(deviceId: nil, records: [], deletions: ["gone", "never"])
        let events = try HealthIngestDecider.decide(given, command, Self.time)
        guard case .recordsDeleted(let deleted)? = events.first else { Issue.record("\(events)"); return }
        #expect(deleted.records.map(\.date) == [stored[0].date])
        #expect(HealthIngestDecider.tally(given, command).unknownDeletions == 1)
    }

    @Test func aSampleEditedAndDeletedInOneBatchTakesTheStoredOneWithIt() throws {
        let first = Self.records([Self.intakeSample(500, at: Self.now.addingTimeInterval(-3 * 86_400), uuid: "x")])
        let given = HealthIngestDecider.fold([.recordsStored(.init(deviceId: nil, records: first))])
        let edited = Self.records([Self.intakeSample(700, at: Self.now.addingTimeInterval(-86_400), uuid: "x")])
        let command = HealthIngestDecider.Command(deviceId: nil, records: edited, deletions: ["x"])
        let events = try HealthIngestDecider.decide(given, command, Self.time)
        #expect(events.count == 1)
        guard case .recordsDeleted(let deleted)? = events.first else { Issue.record("\(events)"); return }
        #expect(deleted.records.map(\.key) == [first[0].key])
        #expect(HealthIngestDecider.fold(events, from: given).byKey.isEmpty)
        let tally = HealthIngestDecider.tally(given, command)
        #expect([tally.inserted, tally.updated, tally.removed.count] as [Int] == [0, 0, 1])
    }

    @Test func samplesSentAndDeletedInOneBatchNeverReachTheLog() throws {
        let samples = (0..<300).map { Self.intakeSample(1, at: Self.now.addingTimeInterval(-Double($0) * 600 - 3_600), uuid: "s\($0)") }
        let command = HealthIngestDecider.Command(deviceId: nil, records: Self.records(samples), deletions: (0..<300).filter { $0 % 2 == 0 }.map { "s\($0)" })
        let events = try HealthIngestDecider.decide(.init(), command, Self.time)
        #expect(events.map { if case .recordsStored(let stored) = $0 { stored.records.count } else { -1 } } == [150])
        #expect(HealthIngestDecider.tally(.init(), command).inserted == 150)
    }

    @Test func aLargeBatchIsCutIntoEventsOfBoundedSize() throws {
        let samples = (0..<1_201).map { Self.intakeSample(1, at: Self.now.addingTimeInterval(-Double($0) * 60 - 3_600)) }
        let events = try HealthIngestDecider.decide(.init(), .init(deviceId: nil, records: Self.records(samples), deletions: []), Self.time)
        #expect(events.map { if case .recordsStored(let stored) = $0 { stored.records.count } else { 0 } } == [500, 500, 201])
    }

    /// An item's id as stored: trimmed of spaces, a UUID lowercased in every form it may come
    /// in, another id kept as sent, a blank one no id, and one over 100 characters once trimmed
    /// the item's error (counted in characters: 60 two-byte ones are kept).
    @Test func anItemsIdIsTrimmedAndAUUIDLowercased() {
        let upper = "6F1B0E0A-6C2B-4B44-9D6C-0F6A7E1C2D3E", lower = upper.lowercased()
        let long = String(repeating: "x", count: 100)
        let given: [String?] = [upper, lower, "  \(upper) ", "\u{00A0}\(upper)\t", "Fitbit-ABC", "6F1B0E0A-6C2B-4B44-9D6C-0F6A7E1C2D3G",
                                " \(long) ", "   ", nil, long + "y", " \(long)y", String(repeating: "é", count: 60)]
        let start = Self.now.addingTimeInterval(-86_400)
        let intake = HealthIntake(samples: given.enumerated().map { index, uuid in
            Self.intakeSample(1, at: start.addingTimeInterval(Double(index) * 60), uuid: uuid)
        })
        let checked = HealthIntakeRules.check(intake, timeZone: Self.belgrade, now: Self.now)
        #expect(checked.records.map(\.uuid) == [lower, lower, lower, lower, "Fitbit-ABC", "6F1B0E0A-6C2B-4B44-9D6C-0F6A7E1C2D3G", long, nil, nil,
                                                  String(repeating: "é", count: 60)])
        #expect(checked.errors.map(\.field) == ["samples[0].uuid", "samples[0].uuid"])
    }

    @Test func itemsAreCheckedOneByOne() {
        let start = Self.now.addingTimeInterval(-3_600)
        let intake = HealthIntake(samples: [
            .init(metric: "steps", value: 10, unit: "count", start: start, end: start, source: Self.watch, path: "samples[0]"),
            .init(metric: "heart_rate", value: 0, unit: "bpm", start: start, end: start, source: Self.watch, path: "samples[1]"),
            .init(metric: "distance", value: 1, unit: "furlong", start: start, end: start, source: Self.watch, path: "samples[2]"),
            .init(metric: "steps", value: 1, unit: nil, start: start.addingTimeInterval(2 * 86_400), end: start.addingTimeInterval(2 * 86_400),
                  source: Self.watch, path: "samples[3]"),
        ])
        let checked = HealthIntakeRules.check(intake, timeZone: Self.belgrade, now: Self.now)
        #expect(checked.records.count == 1)
        #expect(checked.errors.map(\.field) == ["samples[1].value", "samples[2].unit", "samples[3].end"])
    }

    // MARK: Counting across sources

    @Test func withinTimeAHigherSourceCoversOnlyItCounts() {
        let total = CumulativeCredit.total([
            Self.steps(1_000, 0, 600, Self.watch), Self.steps(900, 0, 600, Self.phone), Self.steps(500, 3_600, 3_900, Self.phone),
        ], priority: .default)
        #expect(total.value == 1_500)
        #expect(total.source == Self.watch)
    }

    @Test func aLowerSampleIsCreditedWithTheShareNoHigherSourceCovered() {
        // The phone's 10 minutes overlap the watch's by 5: half of its 800 counts.
        let total = CumulativeCredit.total([Self.steps(1_000, 0, 600, Self.watch), Self.steps(800, 300, 900, Self.phone)], priority: .default)
        #expect(total.value == 1_400)
        let reordered = CumulativeCredit.total([Self.steps(1_000, 0, 600, Self.watch), Self.steps(800, 300, 900, Self.phone)],
                                               priority: HealthSourcePriority(order: [.phone]))
        #expect(reordered.value == 1_300)
    }

    @Test func aManualValueWinsThenSamplesThenAClientTotal() {
        let date = LocalDate(year: 2026, month: 3, day: 9) ?? LocalDate(daysSinceEpoch: 0)
        let samples = [Self.steps(1_000, 0, 600, Self.watch)], totals = [Self.steps(9_999, 0, 0, Self.phone)]
        let manual = HealthDay.figure(metric: .steps, date: date, samples: samples, summaries: totals, manual: 5, priority: .default)
        let bySamples = HealthDay.figure(metric: .steps, date: date, samples: samples, summaries: totals, manual: nil, priority: .default)
        let byTotal = HealthDay.figure(metric: .steps, date: date, samples: [], summaries: totals, manual: nil, priority: .default)
        #expect([manual?.decidedBy, bySamples?.decidedBy, byTotal?.decidedBy] == [.manual, .samples, .summary])
        #expect([manual?.value, bySamples?.value, byTotal?.value] == [5, 1_000, 9_999])
    }

    @Test func bodyMassIsTheDaysLastReading() {
        let date = LocalDate(year: 2026, month: 3, day: 9) ?? LocalDate(daysSinceEpoch: 0)
        let day = HealthDay.figure(metric: .bodyMass, date: date, samples: [Self.steps(70, 100, 100, Self.phone), Self.steps(71, 50, 50, Self.watch)],
                                   summaries: [], manual: nil, priority: .default)
        #expect(day?.value == 70)
    }

    // MARK: Nights and workouts

    @Test func sleepEndingBeforeSixInTheEveningBelongsToThatDateAndAfterToTheNext() {
        let dating = LocalDating(timeZone: Self.belgrade)
        // 2026-03-09 07:00 and 19:00 in Belgrade (UTC+1).
        #expect(dating.night(1_773_036_000).description == "2026-03-09")
        #expect(dating.night(1_773_079_200).description == "2026-03-10")
    }

    @Test func aNightIsTheHighestPrioritySourcesWithItsOverlapsMerged() throws {
        let date = LocalDate(year: 2026, month: 3, day: 9) ?? LocalDate(daysSinceEpoch: 0)
        let night = try #require(SleepNight.build(date: date, segments: [
            (.init(stage: .core, startSeconds: 0, endSeconds: 3_600), Self.watch),
            (.init(stage: .core, startSeconds: 1_800, endSeconds: 5_400), Self.watch),
            (.init(stage: .awake, startSeconds: 5_400, endSeconds: 6_000), Self.watch),
            (.init(stage: .asleep, startSeconds: 0, endSeconds: 20_000), Self.ring),
        ], priority: .default))
        #expect(night.source == "Apple Watch")
        #expect(night.asleepMinutes == 90)
        #expect(night.awakeMinutes == 10)
        #expect(night.segments.count == 2)
        #expect(SleepNight.build(date: date, segments: [(.init(stage: .inBed, startSeconds: 0, endSeconds: 60), Self.watch)], priority: .default) == nil)
    }

    @Test func twoSourcesOfOneWorkoutAreOneAndTheHigherSourcesIsKept() {
        let date = LocalDate(year: 2026, month: 3, day: 9) ?? LocalDate(daysSinceEpoch: 0)
        func workout(_ start: Int64, _ end: Int64, _ source: HealthSource) -> HealthRecord {
            HealthRecord(uuid: nil, kind: .workout, name: "running", value: nil, startSeconds: start, endSeconds: end, date: date,
                         source: source, series: .sample)
        }
        let merged = WorkoutMerge.merged([workout(100, 1_900, Self.phone), workout(0, 1_800, Self.watch), workout(10_000, 12_000, Self.phone)],
                                         priority: .default)
        #expect(merged.map(\.source) == [Self.watch, Self.phone])
        // 121 s apart, or more than 10 % longer: two workouts.
        #expect(WorkoutMerge.merged([workout(0, 1_800, Self.watch), workout(121, 1_921, Self.phone)], priority: .default).count == 2)
        #expect(WorkoutMerge.merged([workout(0, 1_800, Self.watch), workout(0, 2_100, Self.phone)], priority: .default).count == 2)
    }

    // MARK: Formats

    @Test func rfc3339InstantsWithAndWithoutFractionsAndOffsets() {
        #expect(RFC3339.parse("2026-03-09T08:00:00Z")?.timeIntervalSince1970 == 1_773_043_200)
        #expect(RFC3339.parse("2026-03-09T09:00:00+01:00")?.timeIntervalSince1970 == 1_773_043_200)
        #expect(RFC3339.parse("2026-03-09T08:00:00.250Z")?.timeIntervalSince1970 == 1_773_043_200.25)
        for bad in ["2026-03-09", "2026-03-09T08:00:00", "2026-02-30T08:00:00Z", "2026-03-09T25:00:00Z", "2026-03-09T08:00:00+0100"] {
            #expect(RFC3339.parse(bad) == nil, "\(bad)")
        }
    }
}

/// Health events that write their own JSON write what the generic encoder would.
@Suite struct HealthEventJSONTests {
    static func generic(_ value: some Encodable) throws -> Any {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        return try JSONSerialization.jsonObject(with: encoder.encode(value))
    }

    @Test func aBatchWritesTheGenericEncodersDocument() throws {
        let date = LocalDate(year: 2026, month: 3, day: 9) ?? LocalDate(daysSinceEpoch: 0)
        let records = [
            HealthRecord(uuid: "abc", kind: .quantity, name: "steps", value: 1_234.5, startSeconds: 1_773_043_200, endSeconds: 1_773_043_800,
                         date: date, source: HealthSource(name: "Jane's \"Watch\"\n\u{01}é🏃", kind: .watch, bundleId: "com.apple.health"),
                         series: .sample),
            HealthRecord(uuid: nil, kind: .workout, name: "running", value: nil, startSeconds: 0, endSeconds: 1_800, date: date,
                         source: HealthSource(name: "iPhone", kind: .phone), series: .summary,
                         workout: .init(activeEnergyKcal: 300.25, distanceM: nil, avgHeartRate: 0.000012)),
        ]
        let removed = [HealthEvent.RecordsDeleted.Removed(key: "k\\1", kind: .sleep, name: "deep", date: date)]
        let stored = HealthEvent.RecordsStored(deviceId: UUID(), records: records, replaced: removed,
                                               intake: .init(format: "health_auto_export", received: 12, duplicates: 3), receivedAt: 1_773_144_000,
                                               allNew: true)
        let own = try JSONSerialization.jsonObject(with: Data(stored.encodedJSON().utf8))
        #expect((own as? NSDictionary) == (try Self.generic(stored) as? NSDictionary))
        #expect(try EventCoding.decode(HealthEvent.RecordsStored.self, from: stored.encodedJSON()) == stored)
        let anonymous = HealthEvent.RecordsStored(deviceId: nil, records: [], replaced: [])
        #expect((try JSONSerialization.jsonObject(with: Data(anonymous.encodedJSON().utf8)) as? NSDictionary)
                == (try Self.generic(anonymous) as? NSDictionary))
        let deleted = HealthEvent.RecordsDeleted(records: removed)
        #expect((try JSONSerialization.jsonObject(with: Data(deleted.encodedJSON().utf8)) as? NSDictionary)
                == (try Self.generic(deleted) as? NSDictionary))
        let counted = HealthEvent.RecordsDeleted(records: removed, storedBefore: [.init(name: "deep", date: date, count: 7)], receivedAt: 1_773_144_000,
                                                 today: date)
        #expect((try JSONSerialization.jsonObject(with: Data(counted.encodedJSON().utf8)) as? NSDictionary)
                == (try Self.generic(counted) as? NSDictionary))
        #expect(try EventCoding.decode(HealthEvent.RecordsDeleted.self, from: counted.encodedJSON()) == counted)
    }
}
