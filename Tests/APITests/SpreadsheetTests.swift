import API
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// The spreadsheet downloads (issue 29): RFC 4180, exact amounts, the user's days, and text a
/// spreadsheet would run as a formula shown as text.
@Suite struct SpreadsheetTests {
    @Test func transactionsDownloadAsCSVWithExactAmountsQuotedTextAndNoFormulas() async throws {
        try await AppHarness.with(now: HealthIngestionTests.now) { _, http in
            let token = try #require(try await http.register("sheet@example.com").string("access_token"))
            let food = try #require(try await http.call(.post, "/api/v1/finance/categories", token: token,
                json: #"{"name":"Food, \"fresh\"","kind":"expense"}"#).string("id"))
            for body in [
                #"{"kind":"expense","amount":"12.34","currency":"EUR","date":"2026-03-02","category_id":"\#(food)","note":"=HYPERLINK(\"http://x\")"}"#,
                #"{"kind":"income","amount":"1000","currency":"EUR","date":"2026-03-05","note":"salary\nMarch"}"#,
                #"{"kind":"expense","amount":"0.10","currency":"RSD","date":"2026-02-27"}"#,
            ] {
                #expect(try await http.call(.post, "/api/v1/finance/transactions", token: token, json: body).status == .created)
            }
            let sheet = try await http.call(.get, "/api/v1/finance/transactions.csv?from=2026-03-01&to=2026-03-31", token: token)
            #expect(sheet.status == .ok)
            #expect(sheet.headers[.contentType] == "text/csv; charset=utf-8")
            #expect(sheet.headers[.contentDisposition] == #"attachment; filename="transactions-2026-03-01-2026-03-31.csv""#)
            let lines = sheet.text.components(separatedBy: "\r\n")
            #expect(lines.first == "date,kind,amount,currency,category,note,id")
            #expect(lines.count == 4 && lines.last == "", "\(lines)")  // two rows, each ended by CRLF; February's left out
            #expect(lines[1].hasPrefix("2026-03-05,income,1000.00,EUR,,\"salary\nMarch\","), "\(lines[1])")
            #expect(lines[2].hasPrefix(#"2026-03-02,expense,12.34,EUR,"Food, ""fresh""","'=HYPERLINK(""http://x"")","#), "\(lines[2])")
            let all = try await http.call(.get, "/api/v1/finance/transactions.csv", token: token)
            #expect(all.text.contains("2026-02-27,expense,0.10,RSD,,,"))
            let bad = try await http.call(.get, "/api/v1/finance/transactions.csv?from=2026-02-30", token: token)
            #expect(bad.status == .unprocessableContent && bad.fieldErrors == ["from"])
            #expect(try await http.call(.get, "/api/v1/finance/transactions.csv").status == .unauthorized)
        }
    }

    @Test func healthDaysDownloadAsCSVInTheUsersDays() async throws {
        try await AppHarness.with(now: HealthIngestionTests.now, asyncProjectors: true) { _, http in
            let token = try #require(try await http.register("days@example.com", timezone: "America/New_York").string("access_token"))
            let ingested = try await http.call(.post, "/api/v1/ingest/health", token: token, json: HealthIngestionTests.batch(samples: [
                // 02:00 UTC on the 9th is still the 8th in New York.
                HealthIngestionTests.sample("steps", 1200, "2026-03-09T02:00:00Z", "2026-03-09T02:30:00Z", source: "Watch", kind: "watch"),
                HealthIngestionTests.sample("steps", 800, "2026-03-09T15:00:00Z", "2026-03-09T15:30:00Z", source: "Watch", kind: "watch"),
                HealthIngestionTests.sample("heart_rate", 58.5, "2026-03-09T15:00:00Z", "2026-03-09T15:00:00Z", source: "Watch", kind: "watch"),
            ]))
            #expect(ingested.status == .ok, "\(ingested.text)")
            let position = try #require(ingested.string("position"))
            // "+" is how form encoding (and schemathesis) sends a space around a name.
            let sheet = try await http.call(.get, "/api/v1/health/daily.csv?from=2026-03-01&to=2026-03-10&metrics=++steps+&min_position=\(position)", token: token)
            #expect(sheet.status == .ok && sheet.headers[.contentType] == "text/csv; charset=utf-8")
            #expect(sheet.text == "date,metric,value,unit,min,max,source,samples\r\n2026-03-08,steps,1200,count,,,Watch,1\r\n2026-03-09,steps,800,count,,,Watch,1\r\n",
                    "\(sheet.text)")
            let both = try await http.call(.get, "/api/v1/health/daily.csv?from=2026-03-09&to=2026-03-09", token: token)
            #expect(both.text.contains("\r\n2026-03-09,heart_rate,58.5,count/min,58.5,58.5,Watch,1\r\n"), "\(both.text)")
            let inverted = try await http.call(.get, "/api/v1/health/daily.csv?from=2026-03-10&to=2026-03-01", token: token)
            #expect(inverted.status == .unprocessableContent && inverted.fieldErrors == ["from"])
            let long = try await http.call(.get, "/api/v1/health/daily.csv?from=2010-01-01&to=2026-03-01", token: token)
            #expect(long.status == .unprocessableContent && long.fieldErrors == ["to"])
            #expect(try await http.call(.get, "/api/v1/health/daily.csv?metrics=mood", token: token).fieldErrors == ["metrics"])
        }
    }
}
