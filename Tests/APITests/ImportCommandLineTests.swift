import Domain
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import TestSupport

/// `lifelog import lifelog|loop|firefly --email E [--dry-run] FILE`, the binary run as an operator
/// would (issue 29): each prints its counts, and the same file again stores nothing.
@Suite struct ImportCommandLineTests {
    let cli = CommandLineTests()

    static func environment(_ harness: AppHarness) -> [String: String] {
        ["DATABASE_URL": harness.database.ownerURL.description, "JWT_SECRET": AppHarness.keys[0].secret]
    }

    static func scratch() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lifelog-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The account's habits, by name.
    static func habits(_ http: any TestClientProtocol, _ token: String) async throws -> [String: [String: Any]] {
        let items = try await http.call(.get, "/api/v1/habits?include_archived=true", token: token).object["items"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: items.compactMap { item in (item["name"] as? String).map { ($0, item) } })
    }

    @Test func anExportGoesIntoAnotherAccountOnceAndADryRunStoresNothing() async throws {
        try await AppHarness.with { harness, http in
            let ana = try #require(try await http.register("ana@example.com", timezone: "UTC").string("access_token"))
            let today = LocalDate.utc(of: Date())
            let habit = try #require(try await http.call(.post, "/api/v1/habits", token: ana,
                json: #"{"name":"Walk","kind":"boolean","schedule":{"type":"daily"},"start_date":"\#(today.adding(days: -5))"}"#).string("id"))
            _ = try await http.call(.post, "/api/v1/habits/\(habit)/logs", token: ana, json: #"{"date":"\#(today.adding(days: -1))"}"#)
            _ = try await http.call(.post, "/api/v1/finance/transactions", token: ana, json: #"{"kind":"expense","amount":"4.20","currency":"EUR"}"#)
            _ = try await http.register("bo@example.com", timezone: "UTC")
            _ = try await http.register("cy@example.com", timezone: "UTC")
            let folder = try Self.scratch()
            defer { try? FileManager.default.removeItem(at: folder) }
            let environment = Self.environment(harness)
            let exported = try await cli.run(["export", "--email", "ana@example.com"], environment: environment)
            #expect(exported.status == 0, "\(exported.stderr)")
            let file = folder.appendingPathComponent("ana.ndjson")
            try exported.stdout.write(to: file, atomically: true, encoding: .utf8)
            // Profile, reminder settings, habit, log, transaction; Bo's settings are Ana's already (duplicates).
            let first = try await cli.run(["import", "lifelog", "--email", "bo@example.com", file.path], environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.hasPrefix("read 5, imported 3, duplicates 2, skipped 0, failed 0"), "\(first.stdout)")
            let again = try await cli.run(["import", "lifelog", "--email", "bo@example.com", file.path], environment: environment)
            #expect(again.stdout.hasPrefix("read 5, imported 0, duplicates 5, skipped 0, failed 0"), "\(again.stdout)")
            let dry = try await cli.run(["import", "lifelog", "--email", "cy@example.com", "--dry-run", file.path], environment: environment)
            #expect(dry.stdout.hasPrefix("dry run, nothing stored: read 5, would import 5"), "\(dry.stdout)")
            let cy = try #require(try await http.call(.post, "/api/v1/auth/login", json: #"{"email":"cy@example.com","password":"correct horse battery"}"#)
                .string("access_token"))
            #expect(try await Self.habits(http, cy).isEmpty)
            let notAnExport = folder.appendingPathComponent("notes.txt")
            try "shopping list\n".write(to: notAnExport, atomically: true, encoding: .utf8)
            cli.expectOneClearLine(try await cli.run(["import", "lifelog", "--email", "bo@example.com", notAnExport.path], environment: environment),
                                   mentioning: ["not a lifelog export"], "not an export")
        }
    }

    /// Loop's export, zipped as the app zips it: Habits.csv and a folder per habit.
    static func loopZip(in folder: URL, today: LocalDate) throws -> URL {
        func day(_ offset: Int) -> String { today.adding(days: -offset).description }
        let files = [
            "Habits.csv": """
                Position,Name,Type,Question,Description,FrequencyNumerator,FrequencyDenominator,Color,Unit,Target Type,Target Value,Archived?
                001,Stretch,YES_NO,Did you stretch?,,1,1,#FF8F00,,,,false
                002,Water,NUMERICAL,"Glasses, today?",,1,1,#3949AB,glasses,AT_LEAST,8.0,false
                003,Gym,YES_NO,,,3,7,#00897B,,,,true

                """,
            "001 Stretch/Checkmarks.csv": "Date,Value,Notes\n\(day(1)),YES_MANUAL,\n\(day(2)),YES_MANUAL,\n\(day(3)),YES_MANUAL,\n"
                + "\(day(4)),SKIP,Sick\n\(day(5)),YES_MANUAL,\"Easy, 10 min\"\n\(day(6)),NO,\n",
            "002 Water/Checkmarks.csv": "Date,Value,Notes\n\(day(1)),8000,\n\(day(2)),6500,\n",
            "003 Gym/Checkmarks.csv": "Date,Value,Notes\n\(day(2)),YES_MANUAL,\n\(day(3)),YES_AUTO,\n",
            "Scores.csv": "Date,Stretch,Water,Gym,\n",
        ]
        let zip = folder.appendingPathComponent("Loop Habits CSV.zip")
        var script = "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n"
        for (name, text) in files.sorted(by: { $0.key < $1.key }) {
            script += "    z.writestr(\(Self.python(name)), \(Self.python(text)))\n"
        }
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", script, zip.path]
        try python.run()
        python.waitUntilExit()
        #expect(python.terminationStatus == 0)
        return zip
    }

    static func python(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'").replacingOccurrences(of: "\n", with: "\\n") + "'"
    }

    @Test func loopsHabitsComeWithTheirScheduleHistoryAndStreaksAndAgainStoreNothing() async throws {
        try await AppHarness.with { harness, http in
            let token = try #require(try await http.register("loop@example.com", timezone: "UTC").string("access_token"))
            let folder = try Self.scratch()
            defer { try? FileManager.default.removeItem(at: folder) }
            let zip = try Self.loopZip(in: folder, today: LocalDate.utc(of: Date()))
            let environment = Self.environment(harness)
            let first = try await cli.run(["import", "loop", "--email", "loop@example.com", zip.path], environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            // 3 habits and 10 days: 4 checks, 1 skip (a freeze), 2 values and 1 check of Gym's
            // imported; a NO and a YES_AUTO skipped.
            #expect(first.stdout.hasPrefix("read 13, imported 11, duplicates 0, skipped 2, failed 0"), "\(first.stdout)")
            let habits = try await Self.habits(http, token)
            let stretch = try #require(habits["Stretch"]), water = try #require(habits["Water"]), gym = try #require(habits["Gym"])
            // Checked, checked, checked, skipped (excused), checked: a streak of four.
            #expect(stretch["current_streak"] as? Int == 4 && stretch["best_streak"] as? Int == 4, "\(stretch)")
            #expect((stretch["schedule"] as? [String: Any])?["type"] as? String == "daily" && stretch["color"] as? String == "#FF8F00")
            #expect(water["kind"] as? String == "numeric" && water["target"] as? Double == 8 && water["unit"] as? String == "glasses")
            #expect(water["current_streak"] as? Int == 1, "8 glasses yesterday, 6.5 the day before: \(water)")
            #expect(gym["archived"] as? Bool == true && (gym["schedule"] as? [String: Any])?["count"] as? Int == 3)
            let again = try await cli.run(["import", "loop", "--email", "loop@example.com", zip.path], environment: environment)
            #expect(again.stdout.hasPrefix("read 13, imported 0, duplicates 11, skipped 2, failed 0"), "\(again.stdout)")
        }
    }

    @Test func fireflysTransactionsAreExpensesAndIncomesInExactAmountsWithCategoriesCreatedOnce() async throws {
        try await AppHarness.with { harness, http in
            let token = try #require(try await http.register("firefly@example.com", timezone: "UTC").string("access_token"))
            _ = try await http.call(.post, "/api/v1/finance/categories", token: token, json: #"{"name":"groceries","kind":"expense"}"#)
            let folder = try Self.scratch()
            defer { try? FileManager.default.removeItem(at: folder) }
            let day = LocalDate.utc(of: Date()).adding(days: -3).description + "T00:00:00+01:00"
            let csv = [LoopAndFireflyHeader.header,
                       LoopAndFireflyHeader.row(journal: 1, type: "Withdrawal", amount: "-12.50", description: "Market", date: day, category: "Groceries"),
                       LoopAndFireflyHeader.row(journal: 2, type: "Withdrawal", amount: "-0.99", description: "Gum", date: day, category: "Groceries"),
                       LoopAndFireflyHeader.row(journal: 3, type: "Deposit", amount: "2500.00", description: "Salary", date: day, category: "Salary"),
                       LoopAndFireflyHeader.row(journal: 4, type: "Transfer", amount: "100.00", description: "To savings", date: day),
                       LoopAndFireflyHeader.row(journal: 5, type: "Withdrawal", currency: "ZZZ", amount: "-1", description: "Odd", date: day)]
                .joined(separator: "\n") + "\n"
            let file = folder.appendingPathComponent("firefly.csv")
            try csv.write(to: file, atomically: true, encoding: .utf8)
            let environment = Self.environment(harness)
            let first = try await cli.run(["import", "firefly", "--email", "firefly@example.com", file.path], environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.hasPrefix("read 5, imported 3, duplicates 0, skipped 1, failed 1"), "\(first.stdout)")
            #expect(first.stdout.contains("line 6: currency_code: ZZZ"), "\(first.stdout)")
            #expect(first.stdout.contains("note: categories created: Salary (income)"), "Groceries is the account's own: \(first.stdout)")
            let items = try await http.call(.get, "/api/v1/finance/transactions", token: token).object["items"] as? [[String: Any]] ?? []
            #expect(Set(items.compactMap { $0["amount"] as? String }) == ["12.50", "0.99", "2500.00"])
            #expect(Set(items.compactMap { $0["kind"] as? String }) == ["expense", "income"])
            let categories = try await http.call(.get, "/api/v1/finance/categories", token: token).object["items"] as? [[String: Any]] ?? []
            #expect(categories.count == 2, "\(categories)")
            let again = try await cli.run(["import", "firefly", "--email", "firefly@example.com", file.path], environment: environment)
            #expect(again.stdout.hasPrefix("read 5, imported 0, duplicates 3, skipped 1, failed 1"), "\(again.stdout)")
        }
    }
}

/// Firefly's export header and rows, shared with the domain tests' shape (`LoopAndFireflyTests`).
enum LoopAndFireflyHeader {
    static let header = "user_id,group_id,journal_id,created_at,updated_at,group_title,type,currency_code,amount,foreign_currency_code,"
        + "foreign_amount,primary_currency_code,pc_amount,pc_foreign_amount,description,date,source_name,source_iban,source_type,"
        + "destination_name,destination_iban,destination_type,reconciled,category,budget,bill,tags,notes,sepa_cc,sepa_ct_op,sepa_ct_id,"
        + "sepa_db,sepa_country,sepa_ep,sepa_ci,sepa_batch_id,external_url,interest_date,book_date,process_date,due_date,payment_date,"
        + "invoice_date,recurrence_id,internal_reference,bunq_payment_id,import_hash,import_hash_v2,external_id,original_source,"
        + "recurrence_total,recurrence_count"

    static func row(journal: Int, type: String, currency: String = "EUR", amount: String, description: String, date: String,
                    category: String = "") -> String {
        "1,\(journal),\(journal),2026-03-01T10:00:00+01:00,2026-03-01T10:00:00+01:00,,\(type),\(currency),\(amount),,,EUR,\(amount),,"
            + "\(description),\(date),Checking,,Asset account,Shop,,Expense account,false,\(category),,,,"
            + String(repeating: ",", count: 24)
    }
}
