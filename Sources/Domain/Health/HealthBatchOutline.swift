import Foundation

/// What the async health models read of a stored or deleted batch (`health.records_stored`,
/// `health.records_deleted`, in their current shape): each item's kind, name, date and end,
/// what it replaced, and the request's figures. Read from the event's JSON with `JSONNode`,
/// skipping every other field: PostgreSQL parsing each 140 KB payload (three times, for the day
/// models and twice for the audit) was a fifth of a year's first sync, twice what this costs.
public struct HealthBatchOutline: Sendable, Equatable {
    public struct Item: Sendable, Equatable {
        public var kind: String
        public var name: String
        /// `YYYY-MM-DD`, as written.
        public var date: String
        public var endSeconds: Int64?
        public init(kind: String, name: String, date: String, endSeconds: Int64?) {
            (self.kind, self.name, self.date, self.endSeconds) = (kind, name, date, endSeconds)
        }
    }

    /// The batch's items: those stored, or those deleted.
    public var items: [Item] = []
    /// Stored items a stored batch moved to another key or date.
    public var replaced: [Item] = []
    public var format: String?
    public var received: Int64?
    public var duplicates: Int64?
    /// When the request arrived, in seconds since 1970 (0 when the event does not say).
    public var receivedAt: Int64 = 0

    /// The outline of `json`; nil when it is not an object whose items have a kind, a name and a
    /// date. Read with `JSONNode.Cursor`, passing over every other field; a field written twice
    /// counts as its last value, as `JSONNode` reads it.
    public static func read(_ json: String) -> HealthBatchOutline? {
        JSONNode.Cursor.read(json) { cursor in
            var outline = HealthBatchOutline()
            var items: [Item]? = [], replaced: [Item]? = []
            var receivedAt: Int64?
            let read = cursor.object { cursor, key in
                if key == "records" { return Self.items(&cursor, into: &items) }
                if key == "replaced" { return Self.items(&cursor, into: &replaced) }
                if key == "received_at" {
                    guard let node = cursor.value() else { return false }
                    receivedAt = node.number.flatMap { Int64(exactly: $0) }
                    return true
                }
                guard key == "intake" else { return cursor.skip() }
                (outline.format, outline.received, outline.duplicates) = (nil, nil, nil)
                guard cursor.peek() == UInt8(ascii: "{") else { return cursor.skip() }
                return cursor.object { cursor, key in
                    guard key == "format" || key == "received" || key == "duplicates" else { return cursor.skip() }
                    guard let node = cursor.value() else { return false }
                    if key == "format" { outline.format = node.string } else if key == "received" {
                        outline.received = node.number.flatMap { Int64(exactly: $0) }
                    } else {
                        outline.duplicates = node.number.flatMap { Int64(exactly: $0) }
                    }
                    return true
                }
            }
            guard read, let items, let replaced else { return nil }
            (outline.items, outline.replaced, outline.receivedAt) = (items, replaced, receivedAt ?? 0)
            return outline
        }
    }

    /// A list of items (null is none) into `list`; nil there when it is not a list of items
    /// with a kind, a name and a date. False only when the document is not JSON.
    static func items(_ cursor: inout JSONNode.Cursor, into list: inout [Item]?) -> Bool {
        if cursor.null() {
            list = []
            return true
        }
        guard cursor.peek() == UInt8(ascii: "[") else {
            list = nil
            return cursor.skip()
        }
        var items: [Item]? = []
        let read = cursor.array { cursor in
            guard cursor.peek() == UInt8(ascii: "{") else {
                items = nil
                return cursor.skip()
            }
            var kind: String?, name: String?, date: String?, end: Int64?
            let read = cursor.object { cursor, key in
                guard key == "kind" || key == "name" || key == "date" || key == "end_seconds" else { return cursor.skip() }
                guard let node = cursor.value() else { return false }
                if key == "kind" { kind = node.string } else if key == "name" { name = node.string } else if key == "date" {
                    date = node.string
                } else {
                    end = node.number.flatMap { Int64(exactly: $0) }
                }
                return true
            }
            if let kind, let name, let date { items?.append(Item(kind: kind, name: name, date: date, endSeconds: end)) } else { items = nil }
            return read
        }
        list = items
        return read
    }
}
