// @testable: the DTOs and the views they are made from are internal.
@testable import API
@testable import Core
@testable import Domain
import Foundation
@testable import Projections
import Testing

extension OpenAPITests {
    /// A sample of every reminders and Today response DTO.
    static func reminderSamples() throws -> [Sample] {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let day = try #require(LocalDate("2026-11-23"))
        let id = UUID()
        let pushed = OutboxItem(id: id, key: "\(id)/morning_digest/digest/2026-11-23T08:00", channel: "reminder", kind: "morning_digest",
                                subject: "digest", dueAt: now, dueLocal: "2026-11-23T08:00", status: .failed, title: "Your day",
                                body: "Habits due: 1", data: #"{"date":"2026-11-23","habit_ids":["a"]}"#, attempts: 8, lastStatus: 500,
                                lastError: "the receiver answered 500")
        var pulled = pushed
        (pulled.status, pulled.attempts, pulled.lastStatus, pulled.lastError, pulled.data) = (.pending, 0, nil, nil, "{}")
        let user = UserRecord(
            id: id, profile: .new(email: "ana@example.com", name: "Ana", timezone: "Europe/Belgrade", language: .en, currency: "EUR"),
            version: 1, createdAt: now)
        let webhook = WebhookEndpoint(id: id, userId: id, purpose: "reminders", url: "https://hooks.example.com/lifelog", events: [],
                                      secret: "whsec_x", previousSecret: nil, previousUntil: nil, disabledAt: now,
                                      disabledReason: "the receiver answered 410 Gone", createdAt: now)
        let summary = FinanceSummary(from: day, to: day, currencies: [])
        var inputs = RecoveryInputs()
        for offset in 1...10 { inputs.sleepMinutes[day.adding(days: -offset)] = Double(400 + offset) }
        inputs.sleepMinutes[day] = 450
        let today = TodayView(date: day, habits: [], tasks: [], dueSoon: [], overdue: [], finance: summary,
                              recovery: RecoveryFormula.score(date: day, inputs: inputs), reminders: [pulled], userLanguage: .en)
        var empty = today
        empty.recovery = nil
        return [
            try sample("Reminder", "POST /api/v1/reminders/{id}/ack", "200", full: true, ReminderDTO(pushed, language: .en)),
            try sample("Reminder (pulled)", "POST /api/v1/reminders/{id}/ack", "200", full: true, ReminderDTO(pulled, language: .sr)),
            try sample("Reminders", "GET /api/v1/reminders", "200", full: true,
                       Page(items: [ReminderDTO(pushed, language: .ru)], nextCursor: "next")),
            try sample("Today", "GET /api/v1/today", "200", full: false, TodayDTO(today, language: .en)),
            try sample("Today (no health)", "GET /api/v1/today", "200", full: false, TodayDTO(empty, language: .ru)),
            try sample("User with a webhook", "PATCH /api/v1/me", "200", full: true, UserDTO(user, webhook: webhook, newSecret: "whsec_new")),
            try sample("Webhook", "POST /api/v1/webhooks", "201", full: true, WebhookDTO(webhook, secret: "whsec_new")),
            try sample("Webhooks", "GET /api/v1/webhooks", "200", full: false, Items(items: [WebhookDTO(webhook)])),
            try sample("Webhook test", "POST /api/v1/webhooks/{id}/test", "200", full: true, WebhookTestDTO(.failed(status: 500, error: "no", retryAfter: nil, gone: false))),
            try sample("Webhook deliveries", "GET /api/v1/webhooks/{id}/deliveries", "200", full: false, Items(items: [
                WebhookDeliveryDTO(WebhookDelivery(id: id, event: "habit.completed", status: .failed, attempts: 3, lastStatus: 503,
                                                   lastError: "the receiver answered 503", dueAt: now, dueLocal: "", deliveredAt: nil), language: .en, zone: TimeZone(identifier: "Europe/Belgrade")),
                WebhookDeliveryDTO(WebhookDelivery(id: id, event: "task.completed", status: .delivered, attempts: 1, lastStatus: 204,
                                                   lastError: nil, dueAt: now, dueLocal: "2026-11-27T09:30", deliveredAt: now), language: .sr, zone: nil),
            ])),
            try sample("Webhook test (delivered)", "POST /api/v1/webhooks/{id}/test", "200", full: true, WebhookTestDTO(.delivered(status: 204))),
        ]
    }
}
