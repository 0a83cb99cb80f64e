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

    /// The outline of `json`; nil when it is not an object whose items have a kind, a name and a date.
    public static func read(_ json: String) -> HealthBatchOutline? {
        guard let object = JSONNode.parse(json)?.object else { return nil }
        var outline = HealthBatchOutline()
        guard let items = Self.items(object["records"]), let replaced = Self.items(object["replaced"]) else { return nil }
        (outline.items, outline.replaced) = (items, replaced)
        if let intake = object["intake"]?.object {
            outline.format = intake["format"]?.string
            outline.received = intake["received"]?.number.flatMap { Int64(exactly: $0) }
            outline.duplicates = intake["duplicates"]?.number.flatMap { Int64(exactly: $0) }
        }
        outline.receivedAt = object["received_at"]?.number.flatMap { Int64(exactly: $0) } ?? 0
        return outline
    }

    /// A list of items (absent or null is none).
    static func items(_ node: JSONNode?) -> [Item]? {
        guard let node, !node.isNull else { return [] }
        guard let list = node.array else { return nil }
        var items: [Item] = []
        items.reserveCapacity(list.count)
        for element in list {
            guard let item = element.object, let kind = item["kind"]?.string, let name = item["name"]?.string,
                  let date = item["date"]?.string else { return nil }
            items.append(Item(kind: kind, name: name, date: date, endSeconds: item["end_seconds"]?.number.flatMap { Int64(exactly: $0) }))
        }
        return items
    }
}
