import Foundation

/// The rules of ingestion: what a checked batch adds to a user's health log. An item already
/// stored with the same content is a duplicate and adds nothing; the same item with new content
/// (a grown running total, an edited sample) replaces it; an item the client deleted goes.
public enum HealthIngestDecider: Decider {
    /// Records per event: a batch of 5,000 is ten events, each a bounded read for the projectors.
    public static let recordsPerEvent = 500

    /// The stored items the command's items could be: those with the same key or uuid.
    public struct State: Sendable, Equatable {
        public var byKey: [String: HealthRecord] = [:]
        public var keyByUUID: [String: String] = [:]
        public init(records: [HealthRecord] = []) {
            byKey.reserveCapacity(records.count)
            for record in records { store(record) }
        }

        mutating func store(_ record: HealthRecord) {
            if let uuid = record.uuid, let previous = keyByUUID[uuid], previous != record.key { byKey[previous] = nil }
            // The item this record takes the key of keeps no uuid (the table's row at the key gets
            // this record's): a later item with that uuid is new, not an edit of this one.
            if let held = byKey[record.key]?.uuid, held != record.uuid { keyByUUID[held] = nil }
            byKey[record.key] = record
            if let uuid = record.uuid { keyByUUID[uuid] = record.key }
        }

        mutating func remove(key: String) {
            if let uuid = byKey[key]?.uuid { keyByUUID[uuid] = nil }
            byKey[key] = nil
        }

        func existing(_ record: HealthRecord) -> HealthRecord? {
            if let uuid = record.uuid, let key = keyByUUID[uuid], let found = byKey[key] { return found }
            return byKey[record.key]
        }
    }

    public struct Command: Sendable, Equatable {
        public var deviceId: UUID?
        public var records: [HealthRecord]
        public var deletions: [String]
        /// The route's format, for the audit (see `HealthEvent.Intake`).
        public var format: String
        /// Items stored per "metric|date" before this command, for the dates its deletions touch.
        public var storedOnDates: [String: Int]
        public init(deviceId: UUID?, records: [HealthRecord], deletions: [String], format: String = "native", storedOnDates: [String: Int] = [:]) {
            self.deviceId = deviceId
            self.records = records
            self.deletions = deletions
            self.format = format
            self.storedOnDates = storedOnDates
        }
    }

    /// What a command does, item by item: the answer's counts and the events' content.
    public struct Tally: Sendable, Equatable {
        public var stored: [HealthRecord] = []
        /// Stored items an update moves to another key or date: the read models forget them there.
        public var replaced: [HealthEvent.RecordsDeleted.Removed] = []
        public var inserted = 0
        public var updated = 0
        public var duplicates = 0
        public var removed: [HealthEvent.RecordsDeleted.Removed] = []
        /// Deletions of uuids lifelog does not have (never sent, or deleted before).
        public var unknownDeletions = 0
    }

    public static var initial: State { State() }

    public static func tally(_ state: State, _ command: Command) -> Tally {
        // Over 60 lines: one pass over the batch's records and deletions, sharing what it has counted.
        let original = state
        var state = state
        var tally = Tally()
        // The batch's own records, by key; nil where one was deleted again within the batch.
        var stored: [HealthRecord?] = []
        var pending: [String: Int] = [:]
        pending.reserveCapacity(command.records.count)
        state.byKey.reserveCapacity(state.byKey.count + command.records.count)
        stored.reserveCapacity(command.records.count)
        // For a pending record that replaces one from the log: that one (the row to remove, the day to compute again).
        var replacing: [String: HealthRecord] = [:]
        // An item sent and deleted in one batch never reaches the log and takes no other item's
        // place: only its deletion counts (what the log holds under its uuid goes). Taken in turn,
        // it could move another item off its row and then leave, and what came after it in the
        // batch would have been decided as if that item were gone.
        let deleted = Set(command.deletions)
        // The same for an item a batch names twice: its last content is the one that counts; an
        // earlier one is an update of it (or a duplicate, when the same), and moves nothing.
        var lastOfUUID: [String: Int] = [:]
        for (index, record) in command.records.enumerated() { if let uuid = record.uuid { lastOfUUID[uuid] = index } }
        for (index, record) in command.records.enumerated() {
            if let uuid = record.uuid {
                if deleted.contains(uuid) { continue }
                if let last = lastOfUUID[uuid], last != index {
                    if command.records[last].differs(from: record) { tally.updated += 1 } else { tally.duplicates += 1 }
                    continue
                }
            }
            guard let existing = state.existing(record) else {
                pending[record.key] = stored.count
                stored.append(record)
                tally.inserted += 1
                state.store(record)
                continue
            }
            guard record.differs(from: existing) else {
                tally.duplicates += 1
                continue
            }
            let base = replacing[existing.key] ?? original.byKey[existing.key]
            // Found by its uuid, it moves to a key where another record of this batch waits: it
            // takes that key's row (one row per key; an insert cannot name a key twice).
            if record.key != existing.key, let displaced = pending.removeValue(forKey: record.key) { stored[displaced] = nil }
            if let index = pending[existing.key] {
                stored[index] = record
                pending[existing.key] = nil
                pending[record.key] = index
            } else {
                pending[record.key] = stored.count
                stored.append(record)
            }
            replacing[existing.key] = nil
            if let base { replacing[record.key] = base }
            tally.updated += 1
            state.store(record)
        }
        for uuid in command.deletions {
            // A pending record carries no deleted uuid (above): what is found here is in the log.
            guard let key = state.keyByUUID[uuid], let record = state.byKey[key], pending[key] == nil else {
                tally.unknownDeletions += 1
                continue
            }
            tally.removed.append(.init(key: key, kind: record.kind, name: record.name, date: record.date))
            state.remove(key: key)
        }
        tally.stored = stored.compactMap { $0 }
        tally.replaced = tally.stored.compactMap { record in
            guard let base = replacing[record.key], base.key != record.key || base.date != record.date else { return nil }
            return .init(key: base.key, kind: base.kind, name: base.name, date: base.date)
        }
        return tally
    }

    public static func decide(_ state: State, _ command: Command, _ now: DecisionTime) throws -> [HealthEvent] {
        let tally = tally(state, command)
        let arrived = Int64(now.instant.timeIntervalSince1970.rounded(.down))
        let intake = HealthEvent.Intake(format: command.format, received: command.records.count, duplicates: tally.duplicates)
        var events: [HealthEvent] = stride(from: 0, to: tally.stored.count, by: recordsPerEvent).map { start in
            .recordsStored(.init(
                deviceId: command.deviceId,
                records: Array(tally.stored[start..<min(start + recordsPerEvent, tally.stored.count)]),
                replaced: start == 0 ? tally.replaced : [],
                intake: start == 0 ? intake : nil,
                receivedAt: arrived))
        }
        // Only what the log holds is deleted from it; a record sent and deleted in this batch never got there.
        let logged = tally.removed.filter { state.byKey[$0.key] != nil }
        if !logged.isEmpty {
            let days = Set(logged.map { "\($0.name)|\($0.date)" })
            let before = logged.reduce(into: [String: HealthEvent.RecordsDeleted.DayCount]()) { counts, removed in
                let key = "\(removed.name)|\(removed.date)"
                counts[key] = .init(name: removed.name, date: removed.date, count: command.storedOnDates[key] ?? 0)
            }
            events.append(.recordsDeleted(.init(
                records: logged, storedBefore: days.sorted().compactMap { before[$0] }, receivedAt: arrived, today: now.today)))
        }
        return events
    }

    public static func evolve(_ state: State, _ event: HealthEvent) -> State {
        var state = state
        switch event {
        case .recordsStored(let stored):
            for record in stored.records { state.store(record) }
        case .recordsDeleted(let deleted):
            for record in deleted.records { state.remove(key: record.key) }
        case .manualValueSet, .manualValueCleared, .sourcePriorityChanged, .checkInRecorded, .findingAcknowledged:
            break  // the settings' and check-ins' streams: another decider's state
        }
        return state
    }
}
