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

        /// What `event` does to the items, storing only the records `keeping` takes.
        mutating func apply(_ event: HealthEvent, keeping: (HealthRecord) -> Bool) {
            switch event {
            case .recordsStored(let stored):
                // As the projector: what the batch moved items off first, then its items.
                for removed in stored.replaced { remove(key: removed.key) }
                for record in stored.records where keeping(record) { store(record) }
            case .recordsDeleted(let deleted):
                for record in deleted.records { remove(key: record.key) }
            case .manualValueSet, .manualValueCleared, .sourcePriorityChanged, .checkInRecorded, .findingAcknowledged:
                break  // the settings' and check-ins' streams: another decider's state
            }
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

        /// The stored items this batch could be, by key or by uuid: what its decision reads
        /// (`HealthReadModel.decisionState`) and looks at, and nothing else.
        public var readKeys: [String] { records.map(\.key) }
        public var readUUIDs: [String] { records.compactMap(\.uuid) + deletions }
    }

    /// What a command does, item by item: the answer's counts and the events' content.
    public struct Tally: Sendable, Equatable {
        public var stored: [HealthRecord] = []
        /// Stored items the batch moves off their row, or whose row it gives another uuid or
        /// date: the read models forget them there before the batch's items go in.
        public var replaced: [HealthEvent.RecordsDeleted.Removed] = []
        public var inserted = 0
        public var updated = 0
        public var duplicates = 0
        /// The rows the deletions remove; `deleted` also counts items the batch itself overwrote.
        public var removed: [HealthEvent.RecordsDeleted.Removed] = []
        public var deleted = 0
        /// Deletions of uuids lifelog does not have (never sent, or deleted before).
        public var unknownDeletions = 0
        /// Every stored record is new: none has a key or uuid stored before, none replaces an item.
        public var allNew = false
    }

    public static var initial: State { State() }

    public static func tally(_ state: State, _ command: Command) -> Tally {
        // The batch is played item by item onto `table` (the rows as the projector leaves them),
        // and the events are what differs between the rows before and after: whatever order the
        // items take each other's rows in, a key is written once and a uuid sits on one row.
        let original = state
        var table = state
        var tally = Tally()
        // An item sent and deleted in one batch never reaches the log and takes no other item's
        // place: only its deletion counts (what the log holds under its uuid goes).
        let deleted = Set(command.deletions)
        // An item a batch names twice: its last content is the one that counts; an earlier one
        // moves nothing.
        var lastOfUUID: [String: Int] = [:]
        for (index, record) in command.records.enumerated() { if let uuid = record.uuid { lastOfUUID[uuid] = index } }
        var played: [HealthRecord] = []
        // While every item played is new (a first sync), each is stored as it is: no diff to make.
        var allNew = true
        for (index, sent) in command.records.enumerated() {
            var record = sent
            if let uuid = record.uuid {
                if deleted.contains(uuid) || lastOfUUID[uuid] != index { continue }
            } else if let held = table.byKey[record.key]?.uuid, !deleted.contains(held), lastOfUUID[held] == nil {
                // An item without a uuid (an exporter's) sent with a stored item's identity is that
                // item: it keeps the uuid, so the phone's later deletion of it still finds it.
                record.uuid = held
            }
            if let existing = table.existing(record) {
                guard record.differs(from: existing) else { continue }
                allNew = false
            }
            // Room is made at the first item played: a batch of duplicates (a re-sent sync) copies
            // neither the table nor anything else.
            if played.isEmpty {
                table.byKey.reserveCapacity(table.byKey.count + command.records.count)
                played.reserveCapacity(command.records.count - index)
            }
            table.store(record)
            played.append(record)
        }
        var deletedOnce = Set<String>()
        for uuid in command.deletions {
            guard deletedOnce.insert(uuid).inserted, let key = original.keyByUUID[uuid] else {
                tally.unknownDeletions += 1
                continue
            }
            tally.deleted += 1
            // Unless an item of the batch has taken its row: then the row is that item's.
            guard table.keyByUUID[uuid] == key, let record = table.byKey[key] else { continue }
            tally.removed.append(.init(key: key, kind: record.kind, name: record.name, date: record.date))
            table.remove(key: key)
        }
        let skipped = command.records.count - (deleted.isEmpty ? 0 : command.records.filter { $0.uuid.map(deleted.contains) == true }.count)
        if allNew {
            (tally.stored, tally.inserted, tally.duplicates) = (played, played.count, skipped - played.count)
            tally.allNew = true
            return tally
        }
        var written = Set<String>()
        tally.stored = played.filter { record in
            table.byKey[record.key] == record && original.byKey[record.key] != record && written.insert(record.key).inserted
        }
        // Only the rows at a played item's key or uuid can have changed.
        var seen = Set(tally.removed.map(\.key))
        func forgetChanged(at key: String) {
            guard seen.insert(key).inserted, let before = original.byKey[key] else { return }
            if let after = table.byKey[key], after.date == before.date, before.uuid == nil || after.uuid == before.uuid { return }
            tally.replaced.append(.init(key: key, kind: before.kind, name: before.name, date: before.date))
        }
        for record in played {
            forgetChanged(at: record.key)
            if let uuid = record.uuid, let key = original.keyByUUID[uuid] { forgetChanged(at: key) }
        }
        // Counted by what each item leaves in the log, so that a batch sent again counts all
        // duplicates even where its items take one row in turn: an item is new or an update
        // when its content is stored, or when its old row went with it.
        let gone = Set(tally.replaced.lazy.filter { table.byKey[$0.key] == nil }.map(\.key))
        for record in played {
            let before = record.uuid.flatMap { original.keyByUUID[$0] }
            if table.byKey[record.key] == record && written.remove(record.key) != nil {
                if original.byKey[record.key] == nil && before == nil { tally.inserted += 1 } else { tally.updated += 1 }
            } else if let before, gone.contains(before) {
                tally.updated += 1
            }
        }
        tally.duplicates = skipped - tally.inserted - tally.updated
        return tally
    }

    /// True when `decide` on `state` surely stores something, found without deciding: the
    /// batch's last item is not deleted by it, neither its key nor its uuid is stored, and no
    /// other item of the batch has its key. Then it is played (it is the last of its uuid), no
    /// other item or deletion can take its row, and it is stored as new. False says nothing: the
    /// caller decides. Ingestion asks this before answering a batch early as all duplicates, so
    /// a first sync does not decide each batch twice.
    public static func surelyStoresSomething(_ state: State, _ command: Command) -> Bool {
        guard let last = command.records.last, last.uuid.map(command.deletions.contains) != true,
              state.byKey[last.key] == nil, last.uuid.flatMap({ state.keyByUUID[$0] }) == nil else { return false }
        return !command.records.dropLast().contains { $0.key == last.key }
    }

    public static func decide(_ state: State, _ command: Command, _ now: DecisionTime) throws -> [HealthEvent] {
        let tally = tally(state, command)
        let arrived = Int64(now.instant.timeIntervalSince1970.rounded(.down))
        let intake = HealthEvent.Intake(format: command.format, received: command.records.count, duplicates: tally.duplicates)
        // A batch can move items off their rows and store nothing new (the last of two items of
        // one content keeps the row as it was): one event without records says so.
        let count = tally.stored.isEmpty && !tally.replaced.isEmpty ? 1 : tally.stored.count
        var events: [HealthEvent] = stride(from: 0, to: count, by: recordsPerEvent).map { start in
            .recordsStored(.init(
                deviceId: command.deviceId,
                records: Array(tally.stored[min(start, tally.stored.count)..<min(start + recordsPerEvent, tally.stored.count)]),
                replaced: start == 0 ? tally.replaced : [],
                intake: start == 0 ? intake : nil,
                receivedAt: arrived,
                allNew: tally.allNew && !tally.stored.isEmpty ? true : nil))
        }
        let logged = tally.removed
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
        state.apply(event) { _ in true }
        return state
    }

    /// Only the items `command`'s items could be (by key or uuid), as `decisionState` reads them:
    /// a decision looks at no other, and a batch decided on the four ahead of it would otherwise
    /// copy their 20,000 items at every step (the fold, and the tally's table twice).
    public static func fold(_ events: [HealthEvent], onto state: State, for command: Command) -> State {
        let keys = Set(command.readKeys), uuids = Set(command.readUUIDs)
        var state = state
        for event in events {
            state.apply(event) { keys.contains($0.key) || $0.uuid.map(uuids.contains) == true }
        }
        return state
    }
}
