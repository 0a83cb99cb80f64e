import API
import Core
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import EventStore
import Testing
import TestSupport

@Suite struct FinanceRoutesTests {
    static func at(_ text: String) -> Date { ISO8601DateFormatter().date(from: text) ?? Date(timeIntervalSince1970: 0) }

    static func category(_ http: any TestClientProtocol, _ token: String, _ name: String, _ kind: String = "expense") async throws -> String {
        let created = try await http.call(.post, "/api/v1/finance/categories", token: token, json: #"{"name":"\#(name)","kind":"\#(kind)","emoji":"🛒"}"#)
        #expect(created.status == .created, "\(created.text)")
        return created.string("id") ?? ""
    }

    @discardableResult
    static func spend(_ http: any TestClientProtocol, _ token: String, _ amount: String, _ extra: String = "") async throws -> JSONResponse {
        try await http.call(.post, "/api/v1/finance/transactions", token: token, json: #"{"kind":"expense","amount":"\#(amount)"\#(extra)}"#)
    }

    static func currencies(_ response: JSONResponse) -> [[String: Any]] { response.object["currencies"] as? [[String: Any]] ?? [] }

    @Test func amountsAreExactStringsAndEveryRefusalNamesTheAmount() async throws {
        try await AppHarness.with(now: Self.at("2026-03-10T10:00:00Z")) { _, http in
            let token = try #require(try await http.register("money@example.com").string("access_token"))
            for bad in [#"12.5"#, #""""#, #""1e3""#, #""10.005""#, #""-5.00""#, #""0""#, #""1000000000000""#, #""1,000.00""#] {
                let refused = try await http.call(.post, "/api/v1/finance/transactions", token: token, json: #"{"kind":"expense","amount":\#(bad)}"#)
                #expect(refused.status == .unprocessableContent, "\(bad)")
                #expect(refused.text.contains("\"amount\""), "\(bad): \(refused.text)")
            }
            let yen = try await http.call(.post, "/api/v1/finance/transactions", token: token, json: #"{"kind":"expense","amount":"100.5","currency":"JPY"}"#)
            #expect(yen.status == .unprocessableContent)
            #expect(try await Self.spend(http, token, "1500", #","currency":"JPY""#).string("amount") == "1500")
            #expect(try await Self.spend(http, token, "1.25", #","currency":"KWD""#).string("amount") == "1.250")
            try await Self.spend(http, token, "0.10")
            let second = try await Self.spend(http, token, "0.2")
            #expect(second.string("amount") == "0.20")
            #expect(second.string("currency") == "EUR")
            #expect(second.string("date") == "2026-03-10")
            let summary = try await http.call(.get, "/api/v1/finance/summary?month=2026-03", token: token)
            let eur = Self.currencies(summary).first { $0["currency"] as? String == "EUR" }
            #expect(eur?["expense"] as? String == "0.30")
            #expect(Self.currencies(summary).map { $0["currency"] as? String } == ["EUR", "JPY", "KWD"])
        }
    }

    @Test func sumsArePerCurrencyAndAMonthIsTheLocalCalendarMonth() async throws {
        try await AppHarness.with(now: Self.at("2026-03-10T10:00:00Z")) { _, http in
            let token = try #require(try await http.register("fx@example.com").string("access_token"))
            let food = try await Self.category(http, token, "Food")
            let salary = try await Self.category(http, token, "Salary", "income")
            try await Self.spend(http, token, "30.00", #","category_id":"\#(food)","date":"2026-01-31""#)
            try await Self.spend(http, token, "10.00", #","currency":"USD","date":"2026-01-01""#)
            try await Self.spend(http, token, "99.00", #","date":"2026-02-01""#)
            _ = try await http.call(.post, "/api/v1/finance/transactions", token: token,
                                    json: #"{"kind":"income","amount":"100","category_id":"\#(salary)","date":"2026-01-15"}"#)
            let wrongKind = try await http.call(.post, "/api/v1/finance/transactions", token: token,
                                                json: #"{"kind":"income","amount":"5","category_id":"\#(food)"}"#)
            #expect(wrongKind.status == .unprocessableContent)
            #expect(wrongKind.text.contains("category_id"))

            let summary = try await http.call(.get, "/api/v1/finance/summary?month=2026-01", token: token)
            #expect(summary.status == .ok, "\(summary.text)")
            let list = Self.currencies(summary)
            #expect(list.map { $0["currency"] as? String } == ["EUR", "USD"])
            let eur = try #require(list.first)
            #expect(eur["income"] as? String == "100.00")
            #expect(eur["expense"] as? String == "30.00")
            #expect(eur["net"] as? String == "70.00")
            let byCategory = eur["by_category"] as? [[String: Any]] ?? []
            #expect(byCategory.first { $0["name"] as? String == "Food" }?["share"] as? String == "100.0")
            #expect(list.last?["expense"] as? String == "10.00")
            #expect((list.last?["uncategorized"] as? [String: Any])?["expense"] as? String == "10.00")

            // The same figures from a period that is not a whole month (added up from the rows).
            let period = try await http.call(.get, "/api/v1/finance/summary?from=2026-01-01&to=2026-01-31", token: token)
            #expect(Self.currencies(period).first?["expense"] as? String == "30.00")
            // One bound alone reaches its month's edge (issue 24: it was a 422 asking for the other).
            for (query, from, to) in [("to=2026-01-20", "2026-01-01", "2026-01-20"), ("from=2026-01-10", "2026-01-10", "2026-01-31")] {
                let half = try await http.call(.get, "/api/v1/finance/summary?\(query)", token: token)
                #expect(half.status == .ok, "\(query): \(half.text)")
                let shown = half.object["period"] as? [String: Any]
                #expect(shown?["from"] as? String == from && shown?["to"] as? String == to, "\(query)")
            }
        }
    }

    @Test func budgetsSayUnderNearOrOverAndEarlierMonthsKeepTheirs() async throws {
        try await AppHarness.with(now: Self.at("2026-03-10T10:00:00Z")) { _, http in
            let token = try #require(try await http.register("budget@example.com").string("access_token"))
            let food = try await Self.category(http, token, "Food")
            let put = try await http.call(.put, "/api/v1/finance/categories/\(food)/budget", token: token,
                                          json: #"{"amount":"200.00","currency":"EUR","from_month":"2026-01"}"#)
            #expect(put.status == .ok, "\(put.text)")
            #expect((put.object["budget"] as? [String: Any])?["amount"] as? String == "200.00")
            func budget(_ month: String) async throws -> [String: Any]? {
                let summary = try await http.call(.get, "/api/v1/finance/summary?month=\(month)", token: token)
                return (Self.currencies(summary).first?["budgets"] as? [[String: Any]])?.first
            }
            try await Self.spend(http, token, "150.00", #","category_id":"\#(food)","date":"2026-01-05""#)
            let under = try #require(try await budget("2026-01"))
            #expect(under["remaining"] as? String == "50.00")
            #expect(under["used_percent"] as? String == "75.0")
            #expect(under["status"] as? String == "under")
            #expect(under["color_token"] as? String == "ds.semantic.positive", "the server colours it; the apps only draw")
            try await Self.spend(http, token, "20.00", #","category_id":"\#(food)","date":"2026-01-06""#)
            #expect(try await budget("2026-01")?["status"] as? String == "near")
            try await Self.spend(http, token, "80.00", #","category_id":"\#(food)","date":"2026-01-07""#)
            let over = try await budget("2026-01")
            #expect(over?["status"] as? String == "over")
            #expect(over?["color_token"] as? String == "ds.semantic.negative")
            #expect(over?["remaining"] as? String == "-50.00")

            // From March the budget is 300; January keeps 200. Ending it in April leaves March.
            _ = try await http.call(.put, "/api/v1/finance/categories/\(food)/budget", token: token,
                                    json: #"{"amount":"300","currency":"EUR","from_month":"2026-03"}"#)
            try await Self.spend(http, token, "1.00", #","date":"2026-03-01""#)
            try await Self.spend(http, token, "1.00", #","date":"2026-04-01""#)
            #expect(try await budget("2026-01")?["amount"] as? String == "200.00")
            #expect(try await budget("2026-03")?["amount"] as? String == "300.00")
            let ended = try await http.call(.delete, "/api/v1/finance/categories/\(food)/budget?from_month=2026-04", token: token)
            #expect(ended.status == .ok)
            #expect(try await budget("2026-04") == nil)
            #expect(try await budget("2026-03")?["amount"] as? String == "300.00")

            let income = try await Self.category(http, token, "Salary", "income")
            let refused = try await http.call(.put, "/api/v1/finance/categories/\(income)/budget", token: token,
                                              json: #"{"amount":"1","currency":"EUR","from_month":"2026-01"}"#)
            #expect(refused.status == .unprocessableContent)
        }
    }

    @Test func categoryNamesAreUniqueAmongActiveOnesAndArchivingKeepsHistory() async throws {
        try await AppHarness.with(now: Self.at("2026-03-10T10:00:00Z")) { _, http in
            let token = try #require(try await http.register("cats@example.com").string("access_token"))
            let food = try await Self.category(http, token, "Food")
            let again = try await http.call(.post, "/api/v1/finance/categories", token: token, json: #"{"name":"food","kind":"expense"}"#)
            #expect(again.status == .conflict)
            // Another kind may share the name.
            #expect(try await http.call(.post, "/api/v1/finance/categories", token: token, json: #"{"name":"Food","kind":"income"}"#).status == .created)
            let spent = try await Self.spend(http, token, "12.00", #","category_id":"\#(food)""#)
            #expect(try await http.call(.delete, "/api/v1/finance/categories/\(food)", token: token).status == .noContent)
            #expect(try await http.call(.get, "/api/v1/finance/transactions/\(spent.string("id") ?? "")", token: token).string("category_id") == food)
            #expect(try await http.call(.get, "/api/v1/finance/categories/\(food)", token: token).object["archived"] as? Bool == true)
            #expect(try await Self.spend(http, token, "1.00", #","category_id":"\#(food)""#).status == .unprocessableContent)
            // Its name is free again.
            #expect(try await http.call(.post, "/api/v1/finance/categories", token: token, json: #"{"name":"Food","kind":"expense"}"#).status == .created)
            let active = try await http.call(.get, "/api/v1/finance/categories", token: token)
            #expect((active.object["items"] as? [[String: Any]])?.count == 2)
            let all = try await http.call(.get, "/api/v1/finance/categories?include_archived=true", token: token)
            #expect((all.object["items"] as? [[String: Any]])?.count == 3)

            // A stale If-Match is 412 and changes nothing.
            let stale = try await http.call(.patch, "/api/v1/finance/categories/\(food)", token: token, headers: [.ifMatch: "\"1\""], json: #"{"name":"Groceries"}"#)
            #expect(stale.status == .preconditionFailed)
        }
    }

    @Test func transactionsPageNewestFirstAndChangesAndDeletesMoveTheTotals() async throws {
        try await AppHarness.with(now: Self.at("2026-03-10T10:00:00Z")) { _, http in
            let token = try #require(try await http.register("pages@example.com").string("access_token"))
            var ids: [String] = []
            for day in 1...5 { ids.append(try await Self.spend(http, token, "\(day).00", #","date":"2026-02-0\#(day)""#).string("id") ?? "") }
            let first = try await http.call(.get, "/api/v1/finance/transactions?limit=2", token: token)
            let page = first.object["items"] as? [[String: Any]] ?? []
            #expect(page.compactMap { $0["date"] as? String } == ["2026-02-05", "2026-02-04"])
            let cursor = try #require(first.string("next_cursor"))
            let second = try await http.call(.get, "/api/v1/finance/transactions?limit=2&cursor=\(cursor)", token: token)
            #expect((second.object["items"] as? [[String: Any]] ?? []).compactMap { $0["date"] as? String } == ["2026-02-03", "2026-02-02"])
            let filtered = try await http.call(.get, "/api/v1/finance/transactions?from=2026-02-02&to=2026-02-03&kind=expense", token: token)
            #expect((filtered.object["items"] as? [[String: Any]])?.count == 2)

            let changed = try await http.call(.patch, "/api/v1/finance/transactions/\(ids[0])", token: token, headers: [.ifMatch: "\"1\""],
                                              json: #"{"amount":"10.50","date":"2026-03-01"}"#)
            #expect(changed.status == .ok, "\(changed.text)")
            #expect(changed.object["version"] as? Int == 2)
            #expect(try await http.call(.delete, "/api/v1/finance/transactions/\(ids[1])", token: token).status == .noContent)
            #expect(try await http.call(.get, "/api/v1/finance/transactions/\(ids[1])", token: token).status == .notFound)
            let february = try await http.call(.get, "/api/v1/finance/summary?month=2026-02", token: token)
            #expect(Self.currencies(february).first?["expense"] as? String == "12.00")
            let march = try await http.call(.get, "/api/v1/finance/summary?month=2026-03", token: token)
            #expect(Self.currencies(march).first?["expense"] as? String == "10.50")
        }
    }

    @Test func analyticsFillEmptyMonthsAndCompareWithThePreviousPeriod() async throws {
        try await AppHarness.with(now: Self.at("2026-03-10T10:00:00Z")) { _, http in
            let token = try #require(try await http.register("trends@example.com").string("access_token"))
            let food = try await Self.category(http, token, "Food")
            try await Self.spend(http, token, "40.00", #","category_id":"\#(food)","date":"2025-12-15""#)
            try await Self.spend(http, token, "100.00", #","category_id":"\#(food)","date":"2026-01-15""#)
            try await Self.spend(http, token, "50.00", #","date":"2026-03-02""#)
            let analytics = try await http.call(.get, "/api/v1/finance/analytics?months=3", token: token)
            #expect(analytics.status == .ok, "\(analytics.text)")
            let eur = try #require(Self.currencies(analytics).first)
            let months = eur["months"] as? [[String: Any]] ?? []
            #expect(months.compactMap { $0["month"] as? String } == ["2026-01", "2026-02", "2026-03"])
            #expect(months.compactMap { $0["expense"] as? String } == ["100.00", "0.00", "50.00"])
            // 150.00 over Jan 1 … Mar 10: 69 days.
            #expect(eur["average_daily_expense"] as? String == "2.17")
            let change = eur["change"] as? [String: Any] ?? [:]
            #expect(change["expense"] as? String == "110.00")
            #expect(change["expense_percent"] as? String == "275.0")
            #expect(change["income_percent"] is NSNull)
            #expect((eur["top_categories"] as? [[String: Any]])?.first?["share"] as? String == "66.7")
            #expect(try await http.call(.get, "/api/v1/finance/analytics?months=37", token: token).status == .unprocessableContent)
        }
    }

    /// Found in review: 12-digit budgets over ten years took the server down (Int64 overflow in
    /// the budget status); an archived category kept its budget; a budget alone made a currency
    /// entry; analytics counted expenses dated later this month.
    @Test func hugeAmountsArchivedBudgetsAndFutureDatesAreHandled() async throws {
        try await AppHarness.with(now: Self.at("2026-03-10T10:00:00Z")) { _, http in
            let token = try #require(try await http.register("edges@example.com").string("access_token"))
            let big = try await Self.category(http, token, "Big")
            _ = try await http.call(.put, "/api/v1/finance/categories/\(big)/budget", token: token,
                                    json: #"{"amount":"999999999999.999","currency":"KWD","from_month":"2015-01"}"#)
            try await Self.spend(http, token, "999999999999.999", #","currency":"KWD","category_id":"\#(big)","date":"2020-01-10""#)
            let decade = try await http.call(.get, "/api/v1/finance/summary?from=2015-01-01&to=2024-12-31", token: token)
            #expect(decade.status == .ok, "\(decade.text)")
            let kwd = Self.currencies(decade).first { $0["currency"] as? String == "KWD" }
            #expect((kwd?["budgets"] as? [[String: Any]])?.first?["status"] as? String == "under")

            let food = try await Self.category(http, token, "Food")
            _ = try await http.call(.put, "/api/v1/finance/categories/\(food)/budget", token: token,
                                    json: #"{"amount":"100","currency":"USD","from_month":"2026-01"}"#)
            try await Self.spend(http, token, "5.00", #","category_id":"\#(food)","date":"2026-03-02""#)
            let march = try await http.call(.get, "/api/v1/finance/summary?month=2026-03", token: token)
            #expect(Self.currencies(march).map { $0["currency"] as? String } == ["EUR"], "a USD budget alone makes no USD entry")
            #expect((Self.currencies(march).first?["budgets"] as? [[String: Any]])?.isEmpty == true)

            _ = try await http.call(.put, "/api/v1/finance/categories/\(food)/budget", token: token,
                                    json: #"{"amount":"100","currency":"EUR","from_month":"2026-01"}"#)
            #expect((Self.currencies(try await http.call(.get, "/api/v1/finance/summary?month=2026-03", token: token)).first?["budgets"] as? [[String: Any]])?.count == 1)
            _ = try await http.call(.delete, "/api/v1/finance/categories/\(food)", token: token)
            #expect((Self.currencies(try await http.call(.get, "/api/v1/finance/summary?month=2026-03", token: token)).first?["budgets"] as? [[String: Any]])?.isEmpty == true)

            // Dated the 25th: not spent yet on the 10th; neither is a category or a currency
            // whose only spending this month comes later.
            try await Self.spend(http, token, "900.00", #","date":"2026-03-25""#)
            let later = try await Self.category(http, token, "Later")
            try await Self.spend(http, token, "70.00", #","category_id":"\#(later)","date":"2026-03-28""#)
            try await Self.spend(http, token, "5.00", #","currency":"USD","date":"2026-03-28""#)
            let analytics = try await http.call(.get, "/api/v1/finance/analytics?months=1", token: token)
            let eur = Self.currencies(analytics).first { $0["currency"] as? String == "EUR" }
            #expect((eur?["months"] as? [[String: Any]])?.first?["expense"] as? String == "5.00")
            #expect(eur?["average_daily_expense"] as? String == "0.50")
            #expect(Self.currencies(analytics).compactMap { $0["currency"] as? String } == ["EUR"])
            #expect((eur?["top_categories"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String } == ["Food"])
        }
    }

    /// Issue 24 item 11: a month's expense past Int64.max minor units showed
    /// `9223372036854775.807` (a clamp, not the sum), `GET /finance/analytics` answered 422 about
    /// an amount, and a write that took a kept monthly total past bigint was refused. Every sum
    /// is exact now, and no read answers 422 for what is stored. 9,300 expenses of
    /// 999999999999.999 KWD (the largest amount) are stored as the projector keeps them, in two
    /// categories of February: 9,299,999,999,999,990,700 minor units in all.
    @Test func sumsPastInt64AreExactAndNoReadAnswers422() async throws {
        try await AppHarness.with(now: Self.at("2026-03-10T10:00:00Z")) { harness, http in
            let token = try #require(try await http.register("huge@example.com").string("access_token"))
            let me = try #require(UUID(uuidString: try await http.call(.get, "/api/v1/me", token: token).string("id") ?? ""))
            let rent = try await Self.category(http, token, "Rent"), tax = try await Self.category(http, token, "Tax")
            let other = try await Self.category(http, token, "Other")
            _ = try await http.call(.put, "/api/v1/finance/categories/\(rent)/budget", token: token,
                                    json: #"{"amount":"999999999999.999","currency":"KWD","from_month":"2026-02"}"#)
            guard let rentId = UUID(uuidString: rent), let taxId = UUID(uuidString: tax), let otherId = UUID(uuidString: other) else {
                Issue.record("category ids")
                return
            }
            try await harness.client.run("""
                INSERT INTO rm_fin_transactions (owner_id, transaction_id, kind, amount, currency, category_id, date, note, version, created_at)
                SELECT \(me), gen_random_uuid(), 'expense', 999999999999999, 'KWD', CASE WHEN n % 2 = 0 THEN \(rentId) ELSE \(taxId) END,
                       DATE '2026-02-01' + (n % 20), NULL, 1, now()
                FROM generate_series(1, 9300) AS n
                """, logger: TestDatabase.logger)
            try await harness.client.run("""
                INSERT INTO rm_fin_month_totals (owner_id, month, currency, kind, category_id, total, count)
                SELECT owner_id, date_trunc('month', date)::date, currency, kind, category_id, sum(amount), count(*)
                FROM rm_fin_transactions WHERE owner_id = \(me) GROUP BY 1, 2, 3, 4, 5
                """, logger: TestDatabase.logger)

            // The whole month (kept monthly totals) and a period (its transactions) add up the same, exactly.
            for query in ["month=2026-02", "from=2026-02-01&to=2026-02-25"] {
                let summary = try await http.call(.get, "/api/v1/finance/summary?\(query)", token: token)
                #expect(summary.status == .ok, "\(query): \(summary.text)")
                let kwd = try #require(Self.currencies(summary).first { $0["currency"] as? String == "KWD" })
                #expect(kwd["expense"] as? String == "9299999999999990.700", "\(query)")
                #expect(kwd["net"] as? String == "-9299999999999990.700", "\(query)")
                let categories = kwd["by_category"] as? [[String: Any]] ?? []
                #expect(categories.map { $0["total"] as? String } == ["4649999999999995.350", "4649999999999995.350"], "\(query)")
                #expect(categories.map { $0["share"] as? String } == ["50.0", "50.0"], "\(query)")
                let budget = try #require((kwd["budgets"] as? [[String: Any]])?.first)
                #expect(budget["spent"] as? String == "4649999999999995.350")
                #expect(budget["remaining"] as? String == "-4648999999999995.351")
                #expect(budget["used_percent"] as? String == "465000.0")
                #expect(budget["status"] as? String == "over")
            }

            // Analytics over the same month: 200, with the exact sums.
            let analytics = try await http.call(.get, "/api/v1/finance/analytics?months=2", token: token)
            #expect(analytics.status == .ok, "\(analytics.text)")
            let kwd = try #require(Self.currencies(analytics).first { $0["currency"] as? String == "KWD" })
            #expect((kwd["months"] as? [[String: Any]])?.map { $0["expense"] as? String } == ["9299999999999990.700", "0.000"])
            #expect((kwd["top_categories"] as? [[String: Any]])?.map { $0["total"] as? String } == ["4649999999999995.350", "4649999999999995.350"])
            // Over the 38 days from February 1 to March 10, half to even.
            #expect(kwd["average_daily_expense"] as? String == "244736842105262.913")
            #expect((kwd["change"] as? [String: Any])?["expense"] as? String == "9299999999999990.700")

            // A write that takes a kept monthly total past bigint's limit is stored (numeric totals), and counted exactly.
            try await harness.client.run("""
                INSERT INTO rm_fin_month_totals (owner_id, month, currency, kind, category_id, total, count)
                VALUES (\(me), DATE '2026-01-01', 'KWD', 'expense', \(otherId), 9223372036854775000, 1)
                """, logger: TestDatabase.logger)
            let past = try await Self.spend(http, token, "1.000", #","currency":"KWD","category_id":"\#(other)","date":"2026-01-15""#)
            #expect(past.status == .created, "\(past.text)")
            let january = try await http.call(.get, "/api/v1/finance/summary?month=2026-01", token: token)
            #expect(january.status == .ok, "\(january.text)")
            #expect(Self.currencies(january).first { $0["currency"] as? String == "KWD" }?["expense"] as? String == "9223372036854776.000")
            let more = try await Self.spend(http, token, "1.000", #","currency":"KWD","category_id":"\#(rent)","date":"2026-02-10""#)
            #expect(more.status == .created, "\(more.text)")
            let february = try await http.call(.get, "/api/v1/finance/summary?month=2026-02", token: token)
            #expect(Self.currencies(february).first { $0["currency"] as? String == "KWD" }?["expense"] as? String == "9299999999999991.700")
            let series = try await http.call(.get, "/api/v1/finance/analytics?months=3", token: token)
            #expect(series.status == .ok, "\(series.text)")
            #expect((Self.currencies(series).first { $0["currency"] as? String == "KWD" }?["months"] as? [[String: Any]])?
                .map { $0["expense"] as? String } == ["9223372036854776.000", "9299999999999991.700", "0.000"])
        }
    }
}
