@testable import Domain
import Foundation
import Testing

/// The imports' readers, without a database (issue 29): RFC 4180 CSV, NDJSON in chunks, lifelog's
/// own export line by line, and the report every importer answers with.
@Suite struct ImportReadingTests {
    // MARK: CSV

    @Test func csvReadsQuotedFieldsDoubledQuotesLineEndsAndABOM() throws {
        let text = "\u{FEFF}Date,Value,Notes\r\n2026-03-09,YES_MANUAL,\"Forgot, really\"\n2026-03-08,NO,\"\"\"Vacation\"\"\"\n\n"
            + "2026-03-07,SKIP,\"two\nlines\"\n2026-03-06,2,"
        let table = try CSVTable(text)
        #expect(table.header == ["Date", "Value", "Notes"])
        #expect(table.rows.map(\.fields) == [["2026-03-09", "YES_MANUAL", "Forgot, really"], ["2026-03-08", "NO", "\"Vacation\""],
                                             ["2026-03-07", "SKIP", "two\nlines"], ["2026-03-06", "2", ""]])
        // A record's line is the one it starts on; a quoted line end moves the next one down.
        #expect(table.rows.map(\.line) == [2, 3, 5, 7])
        #expect(table.column("notes") == 2 && table.value(table.rows[3], 5) == "")
    }

    @Test func csvRefusesAQuoteNeverClosedAndTextAfterAClosingQuote() {
        #expect(throws: CSVTable.Malformed(line: 2, reason: "a quoted field is never closed")) { try CSVTable("a,b\n1,\"open\n") }
        #expect(throws: CSVTable.Malformed.self) { try CSVTable("a,b\n\"x\"y,1\n") }
        #expect((try? CSVTable(""))?.rows == [])
    }

    // MARK: NDJSON

    @Test func ndjsonLinesComeWholeWhateverTheChunks() {
        let text = "{\"a\":1}\r\n\n{\"b\":\"ü\"}\n{\"c\":3}"
        let bytes = Array(text.utf8)
        for size in [1, 2, 5, 64] {
            var reader = NDJSONLines()
            var lines: [String] = []
            var start = 0
            while start < bytes.count {
                lines += reader.feed(bytes[start..<min(start + size, bytes.count)])
                start += size
            }
            lines += reader.finish()
            #expect(lines == ["{\"a\":1}", "", "{\"b\":\"ü\"}", "{\"c\":3}"], "chunks of \(size)")
            #expect(reader.bytesRead == bytes.count)
        }
    }

    // MARK: lifelog's export

    func read(_ text: String) throws -> LifelogImportLine { try LifelogImportLine.read(text, number: 7) }

    @Test func theHeaderNamesTheFormatAndAVersionThisReads() throws {
        #expect(try read(#"{"format":"lifelog-export","version":1,"user_id":"x"}"#) == .header(version: 1))
        #expect(throws: LifelogImportLine.Unreadable("version: 2 is newer than this lifelog reads (1); upgrade lifelog first")) {
            try read(#"{"format":"lifelog-export","version":2}"#)
        }
        #expect(throws: LifelogImportLine.Unreadable.self) { try read(#"{"format":"something-else","version":1}"#) }
        #expect(try read(#"{"type":"end","lines":12}"#) == .end(lines: 12))
    }

    @Test func everyKindOfLineReadsIntoWhatTheImportDoes() throws {
        let habit = "8c0c3bce-6d3a-4b36-9d5b-2f7e6d2c9a01", other = "1f0c3bce-6d3a-4b36-9d5b-2f7e6d2c9a02"
        let line = try read(#"""
            {"type":"habit","id":"\#(habit)","name":"Water","emoji":null,"color":"blue","kind":"numeric","target":8,"unit":"glasses",
             "schedule":{"type":"daily"},"schedules":[{"from":"2026-02-01","schedule":{"type":"daily"}},{"from":"2026-03-01","schedule":{"type":"times_per_week","count":3}}],
             "start_date":"2026-02-01","reminder_time":"08:00","archived":true,"created_at":"2026-02-01T10:00:00Z","version":4}
            """#.replacingOccurrences(of: "\n", with: ""))
        guard case .habit(let habitLine) = line else { Issue.record("\(line)"); return }
        #expect(habitLine.definition.name == "Water" && habitLine.definition.kind == .numeric && habitLine.definition.target == 8)
        #expect(habitLine.definition.schedule == .daily && habitLine.definition.startDate == LocalDate("2026-02-01") && habitLine.archived)
        #expect(habitLine.laterSchedules == [.init(from: LocalDate("2026-03-01") ?? today, schedule: .timesPerWeek(3))])

        #expect(try read(#"{"type":"habit_log","habit_id":"\#(habit)","date":"2026-03-09","value":6.5}"#)
                == .habitLog(habitId: UUID(uuidString: habit) ?? UUID(), date: LocalDate("2026-03-09") ?? today, value: Decimal(string: "6.5")))
        #expect(try read(#"{"type":"habit_log","habit_id":"\#(habit)","date":"2026-03-09","value":0.1}"#)
                == .habitLog(habitId: UUID(uuidString: habit) ?? UUID(), date: LocalDate("2026-03-09") ?? today, value: Decimal(string: "0.1")),
                "a decimal as written, not its binary neighbour")
        let transaction = try read(#"{"type":"transaction","id":"\#(other)","kind":"expense","amount":"12.30","currency":"EUR","category_id":"\#(habit)","date":"2026-03-02","note":"market","created_at":"2026-03-02T10:00:00Z","version":1}"#)
        #expect(transaction == .transaction(.init(id: UUID(uuidString: other) ?? UUID(), kind: .expense, amount: "12.30", currency: "EUR",
                                                  categoryId: UUID(uuidString: habit), date: LocalDate("2026-03-02") ?? today, note: "market")))
        #expect(try read(#"{"type":"budget","category_id":"\#(habit)","from_month":"2026-03-01","amount":null,"currency":null}"#)
                == .budget(.init(categoryId: UUID(uuidString: habit) ?? UUID(), fromMonth: LocalMonth(year: 2026, month: 3) ?? LocalMonth(index: 0),
                                 amount: nil, currency: nil)))
        let sample = try read(#"{"type":"health_sample","uuid":"ABC","metric":"heart_rate","value":58.5,"min":null,"max":null,"start":"2026-03-09T07:00:00Z","end":"2026-03-09T07:00:00Z","date":"2026-03-09","series":"sample","source":"Watch","source_kind":"watch","source_bundle":null,"device_id":null}"#)
        guard case .healthSample(let health) = sample else { Issue.record("\(sample)"); return }
        #expect(health.path == "line[7]" && health.value == 58.5 && health.source == HealthSource(name: "Watch", kind: .watch) && health.unit == nil)
        #expect(health.localDate == LocalDate("2026-03-09") && health.uuid == "ABC")
        #expect(try read(#"{"type":"plan","goal_id":"\#(habit)","seq":3,"kind":"ended","ended_after":"2026-02-10"}"#)
                == .plan(.init(goalId: UUID(uuidString: habit) ?? UUID(), seq: 3, change: .ended(after: LocalDate("2026-02-10") ?? today))))
        #expect(try read(#"{"type":"source_priority","order":["ring","watch"]}"#) == .sourcePriority([.ring, .watch]))
    }

    let today = LocalDate(year: 2026, month: 3, day: 10) ?? LocalDate(daysSinceEpoch: 0)

    @Test func whatIsNotCarriedSaysWhy() throws {
        for type in ["device", "webhook", "member", "daily_summary", "audit_finding"] {
            guard case .notCarried(let reason) = try read(#"{"type":"\#(type)","id":"x"}"#) else { Issue.record("\(type)"); continue }
            #expect(reason.hasPrefix(type + ":"))
        }
    }

    @Test func aLineThatCannotBeReadSaysWhichFieldAndWhy() {
        let id = "8c0c3bce-6d3a-4b36-9d5b-2f7e6d2c9a01"
        for (text, reason) in [
            ("not json", "not a JSON object"),
            ("[1]", "not a JSON object"),
            (#"{"id":1}"#, "no type"),
            (#"{"type":"spaceship"}"#, "type spaceship is not one this version of lifelog imports"),
            (#"{"type":"habit_log","habit_id":"nope","date":"2026-03-09"}"#, "habit_id: must be a UUID"),
            (#"{"type":"habit_log","habit_id":"\#(id)","date":"2026-02-30"}"#, "date: " + LocalDate.inputRule),
            (#"{"type":"transaction","id":"\#(id)","kind":"gift","amount":"1","currency":"EUR","date":"2026-03-01"}"#, "kind: must be income or expense"),
            (#"{"type":"habit","id":"\#(id)","name":" ","kind":"boolean","schedule":{"type":"weekdays","days":[9]}}"#,
             "name: must be 1 to 100 characters; schedule.days: must be ISO weekdays 1 (Monday) to 7, at least one"),
            (#"{"type":"checkin","date":"2026-03-09","feeling":true}"#, "feeling: must be a number"),
            (#"{"type":"freeze","id":"\#(id)","habit_id":"\#(id)","from":"2026-03-05","to":"2026-03-01"}"#, "to: must not be before from"),
        ] {
            #expect(throws: LifelogImportLine.Unreadable(reason), "\(text)") { try read(text) }
        }
    }

    @Test func anEndOnAPastDayIsTheVersionInForceEndingWithItsLastPaymentByThen() {
        let plan = LifelogImportLine.PlanLine.Change.set(amount: "100.00", anchorDay: .day(31), everyMonths: 2,
                                                         startMonth: LocalMonth(year: 2026, month: 1) ?? LocalMonth(index: 0), endMonth: nil)
        func ending(_ date: String) -> LocalMonth? {
            guard case .set(_, _, _, _, let end)? = LifelogImportLine.PlanLine.Change.ending(plan, after: LocalDate(date) ?? today) else { return nil }
            return end
        }
        // Due Jan 31, Mar 31, May 31: ended May 30, the last payment is March's.
        #expect(ending("2026-05-30") == LocalMonth(year: 2026, month: 3))
        #expect(ending("2026-05-31") == LocalMonth(year: 2026, month: 5))
        #expect(ending("2026-04-15") == LocalMonth(year: 2026, month: 3))
        #expect(ending("2026-01-30") == nil, "ended before its first payment")
    }

    // MARK: The report

    @Test func theReportCountsEveryItemOnceAndListsFailuresInFileOrder() {
        var report = ImportReport(dryRun: false)
        report.record(.imported, at: ImportPlace(line: 2))
        report.record(.failed("date: is in the future"), at: ImportPlace(line: 9))
        report.record(.skipped("device: its key is never exported; pair the device again"), at: ImportPlace(line: 3))
        report.record(.duplicate, at: ImportPlace(line: 4))
        report.record(.failed("habit_id: no habit of this file has this id"), at: ImportPlace(line: 5))
        report.record(.skipped("device: its key is never exported; pair the device again"), at: ImportPlace(line: 6))
        report.note("the file ends without its end line: it may have been cut short")
        report.sortFailures()
        #expect(report.read == 6 && report.imported == 1 && report.duplicates == 1 && report.skipped == 2 && report.failed == 2)
        #expect(report.description == """
            read 6, imported 1, duplicates 1, skipped 2, failed 2
            skipped 2: device: its key is never exported; pair the device again
            line 5: habit_id: no habit of this file has this id
            line 9: date: is in the future
            note: the file ends without its end line: it may have been cut short
            """)
        #expect(ImportReport(dryRun: true).summary == "dry run, nothing stored: read 0, would import 0, duplicates 0, skipped 0, failed 0")
    }
}
