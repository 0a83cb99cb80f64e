@testable import Domain
import Foundation
import Testing

/// Loop Habit Tracker's and Firefly III's exports read and mapped (issue 29), on synthetic
/// files in their apps' exact formats (`HabitsCSVExporter` with opencsv's quoting; Firefly's
/// `ExportDataGenerator` header). No real data.
@Suite struct LoopAndFireflyTests {
    static let today = LocalDate(year: 2026, month: 3, day: 10) ?? LocalDate(daysSinceEpoch: 0)

    /// A current Loop's Habits.csv: opencsv quotes a field only when it must.
    static let habitsCSV = """
        Position,Name,Type,Question,Description,FrequencyNumerator,FrequencyDenominator,Color,Unit,Target Type,Target Value,Archived?
        001,Stretch,YES_NO,Did you stretch?,,1,1,#FF8F00,,,,false
        002,Gym,YES_NO,"Gym, today?",Three times a week,3,7,#00897B,,,,false
        003,Water,NUMERICAL,How many glasses?,,1,1,#3949AB,glasses,AT_LEAST,8.0,false
        004,Call home,YES_NO,,,1,3,#8E24AA,,,,true
        005,Sugar,NUMERICAL,Grams of sugar?,,1,1,#E53935,g,AT_MOST,30.0,false
        006,Read,YES_NO,,,8,30,#43A047,,,,false

        """

    static func entries(_ text: String) throws -> [LoopHabits.Entry] {
        try LoopHabits.entries(text, file: "x/Checkmarks.csv").map { try $0.get() }
    }

    @Test func habitsReadByColumnNameInEitherGeneration() throws {
        let rows = try LoopHabits.habits(Self.habitsCSV).map { try $0.get() }
        #expect(rows.map(\.name) == ["Stretch", "Gym", "Water", "Call home", "Sugar", "Read"])
        #expect(rows[1].numerator == 3 && rows[1].denominator == 7 && rows[1].numeric == false && rows[1].place == ImportPlace(file: "Habits.csv", line: 3))
        #expect(rows[2].numeric == true && rows[2].target == 8 && rows[2].unit == "glasses" && !rows[2].atMost)
        #expect(rows[3].archived && rows[4].atMost && rows[0].color == "#FF8F00")
        // Before mid-2025: no type, no target, the frequency as NumRepetitions and Interval.
        let old = try LoopHabits.habits("Position,Name,Question,Description,NumRepetitions,Interval,Color\n001,Meditate,Did you?,,2,3,#FF8F00\n")
            .map { try $0.get() }
        #expect(old.first?.numeric == nil && old.first?.numerator == 2 && old.first?.denominator == 3)
        #expect(throws: LifelogImportLine.Unreadable.self) { try LoopHabits.habits("Date,Score\n2026-01-01,0.5\n") }
    }

    @Test func schedulesMapToOursAndSayWhenTheyAreNotTheSame() {
        let cases: [(Int, Int, HabitSchedule, Bool)] = [
            (1, 1, .daily, false), (7, 7, .daily, false), (3, 7, .timesPerWeek(3), false), (1, 7, .timesPerWeek(1), false),
            (1, 3, .everyNDays(3), false), (1, 14, .everyNDays(14), false),
            (8, 30, .timesPerWeek(2), true), (4, 31, .timesPerWeek(1), true), (1, 30, .everyNDays(30), true), (2, 30, .everyNDays(15), true),
            (2, 3, .timesPerWeek(5), true),
        ]
        for (numerator, denominator, schedule, noted) in cases {
            let (mapped, note) = LoopHabits.schedule(numerator: numerator, denominator: denominator)
            #expect(mapped == schedule && (note != nil) == noted, "\(numerator)/\(denominator): \(mapped) \(note ?? "")")
        }
    }

    @Test func checkedDaysAreLogsSkippedRunsAreFreezesAndTheRestIsSaid() throws {
        let rows = try LoopHabits.habits(Self.habitsCSV).map { try $0.get() }
        // Newest first, as Loop writes them; a note with a comma and one with quotes.
        let stretch = try Self.entries("""
            Date,Value,Notes
            2026-03-09,YES_MANUAL,
            2026-03-08,SKIP,Sick
            2026-03-07,SKIP,"Sick, still"
            2026-03-06,NO,
            2026-03-05,YES_MANUAL,\"\"\"Great\"\"\"
            2026-03-04,UNKNOWN,Only a note

            """)
        let plan = LoopHabits.plan(rows[0], entries: stretch, today: Self.today)
        #expect(plan.definition?.schedule == .daily && plan.definition?.kind == .boolean && plan.definition?.startDate == LocalDate("2026-03-04"))
        #expect(plan.logs.map(\.date) == [LocalDate("2026-03-05"), LocalDate("2026-03-09")].compactMap { $0 } && plan.logs.allSatisfy { $0.value == nil })
        #expect(plan.freezes.map(\.range) == [Habit.Freeze(from: LocalDate("2026-03-07") ?? Self.today, to: LocalDate("2026-03-08") ?? Self.today,
                                                           reason: "skipped in Loop")])
        #expect(plan.freezes.first?.places.map(\.line) == [4, 3])
        #expect(plan.others.map(\.1) == [.skipped(LoopHabits.unknownReason), .skipped(LoopHabits.noReason)])
        #expect(plan.refusal == nil && plan.notes.isEmpty)
    }

    @Test func aNumericHabitsValuesAreThousandthsAndAnAtMostTargetIsSkipped() throws {
        let rows = try LoopHabits.habits(Self.habitsCSV).map { try $0.get() }
        let water = try Self.entries("Date,Value,Notes\n2026-03-09,8000,\n2026-03-08,6500,\n2026-03-07,NO,\n2026-03-06,SKIP,\n2026-03-05,YES_MANUAL,\n")
        let plan = LoopHabits.plan(rows[2], entries: water, today: Self.today)
        #expect(plan.definition?.kind == .numeric && plan.definition?.target == 8 && plan.definition?.unit == "glasses")
        #expect(plan.logs.map(\.value) == [Decimal(2) / 1000, Decimal(string: "6.5"), 8], "Loop's value 2 is written YES_MANUAL")
        #expect(plan.freezes.count == 1 && plan.others.map(\.1) == [.skipped(LoopHabits.zeroReason)])
        let sugar = LoopHabits.plan(rows[4], entries: try Self.entries("Date,Value,Notes\n2026-03-09,12000,\n"), today: Self.today)
        #expect(sugar.definition == nil && sugar.others.count == 1)
        guard case .skipped(let reason)? = sugar.refusal else { Issue.record("\(String(describing: sugar.refusal))"); return }
        #expect(reason.contains("at most"))
    }

    @Test func theOlderNumbersOnlyFilesReadTheSame() throws {
        let old = try LoopHabits.habits("Position,Name,Question,Description,NumRepetitions,Interval,Color\n001,Run,,,1,1,#FF8F00\n002,Km,,,1,1,#FF8F00\n")
            .map { try $0.get() }
        // No header; 2 done, 1 done by the frequency, 0 not done, 3 skipped.
        let plan = LoopHabits.plan(old[0], entries: try Self.entries("2026-03-09,2\n2026-03-08,1\n2026-03-07,0\n2026-03-06,3\n"), today: Self.today)
        #expect(plan.definition?.kind == .boolean && plan.logs.count == 1 && plan.freezes.count == 1)
        #expect(plan.others.map(\.1) == [.skipped(LoopHabits.noReason), .skipped(LoopHabits.autoReason)])
        // A numeric habit of that time shows in its values, but its target is not in the file.
        let km = LoopHabits.plan(old[1], entries: try Self.entries("2026-03-09,5000\n"), today: Self.today)
        guard case .failed? = km.refusal else { Issue.record("\(String(describing: km.refusal))"); return }
    }

    @Test func anEveryNDaysHabitsSkipOnAnOffDayExcusesNothingAndTenYearsBackIsTheWindow() throws {
        let rows = try LoopHabits.habits(Self.habitsCSV).map { try $0.get() }
        let call = LoopHabits.plan(rows[3], entries: try Self.entries("Date,Value,Notes\n2026-03-08,SKIP,\n2026-03-07,SKIP,\n2026-03-04,YES_MANUAL,\n2015-01-01,YES_MANUAL,\n"),
                                   today: Self.today)
        #expect(call.definition?.schedule == .everyNDays(3) && call.definition?.startDate == LocalDate("2026-03-04"))
        #expect(call.freezes.map(\.range.from) == [LocalDate("2026-03-07")].compactMap { $0 }, "Mar 7 is due (start + 3), Mar 8 is not")
        #expect(call.others.map(\.1).contains(.skipped(LoopHabits.offDayReason)))
        #expect(call.others.contains { if case .skipped(let reason) = $0.1 { reason.hasPrefix("before 2016-01-01") } else { false } })
        #expect(LoopHabits.folder(of: 4, among: ["001 Stretch", "004 Call home", "014 Other"]) == "004 Call home")
    }

    // MARK: Firefly III

    /// Firefly's header as `exportTransactions` writes it, the journal meta fields after notes.
    static let fireflyHeader = "user_id,group_id,journal_id,created_at,updated_at,group_title,type,currency_code,amount,foreign_currency_code,"
        + "foreign_amount,primary_currency_code,pc_amount,pc_foreign_amount,description,date,source_name,source_iban,source_type,"
        + "destination_name,destination_iban,destination_type,reconciled,category,budget,bill,tags,notes,sepa_cc,sepa_ct_op,sepa_ct_id,"
        + "sepa_db,sepa_country,sepa_ep,sepa_ci,sepa_batch_id,external_url,interest_date,book_date,process_date,due_date,payment_date,"
        + "invoice_date,recurrence_id,internal_reference,bunq_payment_id,import_hash,import_hash_v2,external_id,original_source,"
        + "recurrence_total,recurrence_count"

    static func fireflyRow(journal: Int, type: String, currency: String = "EUR", amount: String, description: String, date: String,
                           category: String = "", notes: String = "") -> String {
        "1,\(journal),\(journal),2026-03-01T10:00:00+01:00,2026-03-01T10:00:00+01:00,,\(type),\(currency),\(amount),,,EUR,\(amount),,"
            + "\(description),\(date),Checking,,Asset account,Shop,,Expense account,false,\(category),Groceries budget,,,\(notes)"
            + String(repeating: ",", count: 24)
    }

    @Test func fireflyWithdrawalsAreExpensesDepositsIncomesAndTransfersAreSkipped() throws {
        let csv = [Self.fireflyHeader,
                   Self.fireflyRow(journal: 11, type: "Withdrawal", amount: "-12.50", description: "Market", date: "2026-03-02T00:00:00+01:00",
                                   category: "Groceries", notes: "\"cash, mostly\""),
                   Self.fireflyRow(journal: 12, type: "Deposit", amount: "2500.00", description: "Salary", date: "2026-03-01T00:00:00+01:00", category: "Salary"),
                   Self.fireflyRow(journal: 13, type: "Transfer", amount: "100.00", description: "To savings", date: "2026-03-03T00:00:00+01:00"),
                   Self.fireflyRow(journal: 14, type: "Withdrawal", currency: "JPY", amount: "-1500", description: "Ramen", date: "2026-03-04T00:00:00+09:00"),
                   Self.fireflyRow(journal: 15, type: "Withdrawal", currency: "ZZZ", amount: "-0.5", description: "Coin", date: "2026-03-04T00:00:00+01:00"),
                   Self.fireflyRow(journal: 16, type: "Opening balance", amount: "900.00", description: "Start", date: "2026-01-01T00:00:00+01:00"),
                   Self.fireflyRow(journal: 17, type: "Withdrawal", amount: "-3.100000000000", description: "Long digits", date: "2026-03-05T00:00:00+01:00"),
        ].joined(separator: "\n") + "\n"
        let rows = try FireflyTransactions.rows(csv)
        guard case .transaction(let market) = rows[0], case .transaction(let salary) = rows[1], case .transaction(let ramen) = rows[3],
              case .transaction(let long) = rows[6] else { Issue.record("\(rows)"); return }
        #expect(market.kind == .expense && market.amount.minorUnits == 1_250 && market.amount.currency.code == "EUR" && market.date == LocalDate("2026-03-02"))
        #expect(market.category == "Groceries" && market.note == "Market\ncash, mostly" && market.key == "11@2026-03-01T10:00:00+01:00")
        #expect(salary.kind == .income && salary.amount.minorUnits == 250_000 && salary.category == "Salary")
        #expect(ramen.amount.minorUnits == 1_500 && ramen.amount.currency.code == "JPY" && ramen.category == nil)
        #expect(long.amount.minorUnits == 310, "zeros past the currency's digits are exact")
        guard case .other(_, .skipped(let transfer)) = rows[2], case .other(_, .failed(let coin)) = rows[4], case .other(_, .skipped(let opening)) = rows[5]
        else { Issue.record("\(rows)"); return }
        #expect(transfer.hasPrefix("Transfer") && opening.hasPrefix("Opening balance") && coin.contains("ZZZ"))
        #expect(throws: LifelogImportLine.Unreadable.self) { try FireflyTransactions.rows("date,amount\n2026-01-01,1\n") }
    }

    @Test func fireflyAmountsAreNeverRoundedIntoOurs() {
        #expect(throws: LifelogImportLine.Unreadable.self) { try FireflyTransactions.amount("-1.005", currency: "EUR") }
        #expect((try? FireflyTransactions.amount("-0.00", currency: "EUR"))?.minorUnits == 0)
        #expect((try? FireflyTransactions.amount("1234567.89", currency: "EUR"))?.minorUnits == 123_456_789)
        #expect(FireflyTransactions.note(description: "", notes: "") == nil)
        #expect(FireflyTransactions.note(description: String(repeating: "a", count: 990), notes: String(repeating: "b", count: 50))?.count == 1_000)
    }
}
