import Foundation

/// Health batches write their own JSON: the generic encoder spent a third of an ingestion
/// request's CPU on it. Same keys and values as `EventCoding` (snake_case, nil fields left out).
extension HealthEvent.RecordsStored: SelfEncodingEvent {
    public func encodedJSON() -> String {
        var json = JSONText()
        json.open()
        if let deviceId { json.key("device_id"); json.string(deviceId.uuidString) }
        json.key("records")
        json.openArray()
        for record in records { json.element(); json.record(record) }
        json.closeArray()
        json.key("replaced")
        json.openArray()
        for removed in replaced { json.element(); json.removed(removed) }
        json.closeArray()
        if let intake {
            json.key("intake")
            json.open()
            json.field("format", intake.format)
            json.key("received"); json.number(Int64(intake.received))
            json.key("duplicates"); json.number(Int64(intake.duplicates))
            json.close()
        }
        if let receivedAt { json.key("received_at"); json.number(receivedAt) }
        if let allNew { json.key("all_new"); json.bool(allNew) }
        json.close()
        return json.text
    }
}

extension HealthEvent.RecordsDeleted: SelfEncodingEvent {
    public func encodedJSON() -> String {
        var json = JSONText()
        json.open()
        json.key("records")
        json.openArray()
        for removed in records { json.element(); json.removed(removed) }
        json.closeArray()
        if let storedBefore {
            json.key("stored_before")
            json.openArray()
            for day in storedBefore {
                json.element()
                json.open()
                json.field("name", day.name)
                json.field("date", day.date.description)
                json.key("count"); json.number(Int64(day.count))
                json.close()
            }
            json.closeArray()
        }
        if let receivedAt { json.key("received_at"); json.number(receivedAt) }
        json.field("today", today?.description)
        json.close()
        return json.text
    }
}

extension JSONText {
    mutating func record(_ record: HealthRecord) {
        open()
        field("key", record.key)
        field("uuid", record.uuid)
        field("kind", record.kind.rawValue)
        field("name", record.name)
        field("value", record.value)
        key("start_seconds"); number(record.startSeconds)
        key("end_seconds"); number(record.endSeconds)
        field("date", record.date.description)
        field("source_name", record.source.name)
        field("source_kind", record.source.kind.rawValue)
        field("source_bundle_id", record.source.bundleId)
        field("series", record.series.rawValue)
        field("active_energy_kcal", record.workout?.activeEnergyKcal)
        field("distance_m", record.workout?.distanceM)
        field("avg_heart_rate", record.workout?.avgHeartRate)
        field("min", record.min)
        field("max", record.max)
        close()
    }

    mutating func removed(_ removed: HealthEvent.RecordsDeleted.Removed) {
        open()
        field("key", removed.key)
        field("kind", removed.kind.rawValue)
        field("name", removed.name)
        field("date", removed.date.description)
        close()
    }
}
