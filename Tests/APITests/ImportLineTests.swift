import API
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TestSupport

/// What the import says of lines it cannot take, of bodies that are no export, and a dry run.
@Suite struct ImportLineTests {
    static let header = #"{"format":"lifelog-export","version":1,"user_id":"5b0d5e43-46a7-4c41-8a41-0c7d0c8c7c11","exported_at":"2026-03-10T12:00:00Z"}"#
    static let habit = "8c0c3bce-6d3a-4b36-9d5b-2f7e6d2c9a01"

    /// Line 2 a habit; 3 a log of a habit the file does not have; 4 not JSON; 5 blank; 6 a good
    /// log; 7 a log in the future; 8 a device (not carried); 9 an amount with too many digits.
    static let file = [
        header,
        #"{"type":"habit","id":"\#(habit)","name":"Read","kind":"boolean","schedule":{"type":"daily"},"start_date":"2026-03-01","archived":false}"#,
        #"{"type":"habit_log","habit_id":"9c0c3bce-6d3a-4b36-9d5b-2f7e6d2c9a09","date":"2026-03-05","value":1}"#,
        "this is not json",
        "",
        #"{"type":"habit_log","habit_id":"\#(habit)","date":"2026-03-06","value":1}"#,
        #"{"type":"habit_log","habit_id":"\#(habit)","date":"2026-04-06","value":1}"#,
        #"{"type":"device","id":"1f0c3bce-6d3a-4b36-9d5b-2f7e6d2c9a02","name":"Watch","kind":"watch"}"#,
        #"{"type":"transaction","id":"2f0c3bce-6d3a-4b36-9d5b-2f7e6d2c9a03","kind":"expense","amount":"1.001","currency":"EUR","date":"2026-03-02"}"#,
        #"{"type":"end","lines":7}"#,
    ].joined(separator: "\n") + "\n"

    @Test func aLineThatCannotBeImportedIsLineNAndReasonAndTheRestGoesIn() async throws {
        try await AppHarness.with(now: HealthIngestionTests.now) { _, http in
            let token = try #require(try await http.register("lines@example.com").string("access_token"))
            let answer = try await ImportTests.importing(http, token, Self.file)
            #expect(answer.status == .ok, "\(answer.text)")
            let report = answer.object
            #expect([report["read"], report["imported"], report["duplicates"], report["skipped"], report["failed"]] as? [Int] == [7, 2, 0, 1, 4], "\(answer.text)")
            #expect(report["failures"] as? [String] == [
                "line 3: habit_id: no habit of this file has this id",
                "line 4: not a JSON object",
                "line 7: date: is in the future (today is 2026-03-10)",
                "line 9: amount: EUR has at most 2 digits after the point",
            ])
            #expect((report["skips"] as? [[String: Any]])?.first?["reason"] as? String == "device: its key is never exported; pair the device again")
            #expect(report["notes"] as? [String] == [], "the end line counts every line, the unreadable one too")
            let habits = try await http.call(.get, "/api/v1/habits", token: token)
            let items = habits.object["items"] as? [[String: Any]] ?? []
            #expect(items.count == 1 && items.first?["name"] as? String == "Read")
            let id = try #require(items.first?["id"] as? String)
            let logs = try await http.call(.get, "/api/v1/habits/\(id)/logs?from=2026-03-01&to=2026-03-10", token: token)
            #expect((logs.object["items"] as? [[String: Any]])?.compactMap { $0["date"] as? String } == ["2026-03-06"])
            // The same file again: what went in is there, what failed fails again.
            let again = try await ImportTests.importing(http, token, Self.file).object
            #expect([again["imported"], again["duplicates"], again["failed"]] as? [Int] == [0, 2, 4])
        }
    }

    @Test func aDryRunCountsEveryLineAndStoresNothing() async throws {
        try await AppHarness.with(now: HealthIngestionTests.now) { _, http in
            let token = try #require(try await http.register("dry@example.com").string("access_token"))
            let answer = try await ImportTests.importing(http, token, Self.file, query: "?dry_run=true")
            #expect(answer.status == .ok, "\(answer.text)")
            let report = answer.object
            #expect(report["dry_run"] as? Bool == true && report["read"] as? Int == 7 && report["skipped"] as? Int == 1, "\(answer.text)")
            // What only the account's state decides (a habit the file does not have, a date in the
            // future) is found by the real run; the reading finds the rest.
            #expect(report["failures"] as? [String] == ["line 4: not a JSON object"], "\(answer.text)")
            #expect((try await http.call(.get, "/api/v1/habits", token: token).object["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func aBodyThatIsNoExportIsRefusedWholeAndTheLimitIsTheIngestionOne() async throws {
        try await AppHarness.with(maxBodyBytes: 1_024, maxIngestBytes: 16_384, now: HealthIngestionTests.now) { _, http in
            let token = try #require(try await http.register("refused@example.com").string("access_token"))
            #expect(try await http.execute(uri: "/api/v1/import", method: .post, headers: [.contentType: "application/x-ndjson"],
                                           body: ByteBuffer(string: Self.file)) { $0.status } == .unauthorized)
            for (body, words) in [("hello\n", "not a lifelog export"), (#"{"format":"lifelog-export","version":2}"#, "newer"),
                                  (#"{"type":"habit","id":"x"}"# + "\n", "not a lifelog export"), ("\n\n", "empty")] {
                let answer = try await ImportTests.importing(http, token, body)
                #expect(answer.status == .unprocessableContent && answer.fieldErrors == ["body"], "\(body): \(answer.text)")
                #expect(answer.text.contains(words), "\(answer.text)")
            }
            #expect(try await ImportTests.importing(http, token, "").status == .badRequest)
            // Past the general limit, within the ingestion one: read; past that: 413.
            let padded = Self.file + String(repeating: "\n", count: 4_000)
            #expect(try await ImportTests.importing(http, token, padded).status == .ok)
            #expect(try await ImportTests.importing(http, token, padded + String(repeating: " ", count: 16_384)).status == .contentTooLarge)
        }
    }
}
