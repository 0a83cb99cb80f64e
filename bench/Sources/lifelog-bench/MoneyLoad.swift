import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOHTTP1

/// Finance and savings over HTTP at a fixed request rate, on a history seeded over HTTP: 30
/// categories, 50,000 transactions over five years in two currencies, 20 savings goals with
/// monthly plans and five years of deposits (issue 11's benchmark).
struct MoneyLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "money", abstract: "Finance summary and analytics, the savings overview, and money writes at a fixed rate.")

    @Option(help: "The running server.") var baseURL = "http://127.0.0.1:8089"
    @OptionGroup var options: Options
    @Option(help: "Requests per second.") var rate = 100
    @Option(help: "Seconds per scenario.") var duration = 20
    @Option(help: "Transactions to seed.") var transactions = 50_000
    @Option(help: "Years of history.") var years = 5
    @Option(help: "Savings goals to seed.") var goals = 20

    func run() async throws {
        try await HTTPDriver.with(baseURL: baseURL, load)
    }

    func load(_ http: HTTPDriver) async throws {
        let token = try await http.register()
        try await http.openLoop("GET /healthz (the floor: server and load tool alone)", rate: rate, duration: duration, token: token) { _ in
            (.GET, "/healthz", nil)
        }
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = TimeZone(identifier: "Europe/Belgrade")
        let gregorian = Calendar(identifier: .gregorian)
        let now = Date()
        let days = years * 365
        let dates = (0..<days).map { formatter.string(from: gregorian.date(byAdding: .day, value: -$0, to: now) ?? now) }

        print("seeding 30 categories, \(transactions) transactions over \(years) years and \(goals) savings goals ...")
        let seedStarted = ContinuousClock.now
        var expense: [String] = [], income: [String] = []
        for n in 0..<30 {
            let kind = n < 24 ? "expense" : "income"
            let id = try await http.create("/api/v1/finance/categories", token: token, json: #"{"name":"Category \#(n)","kind":"\#(kind)","emoji":"🏷️"}"#)
            if n < 24 { expense.append(id) } else { income.append(id) }
        }
        for (n, id) in expense.prefix(10).enumerated() {
            let (code, body) = try await http.call(.PUT, "/api/v1/finance/categories/\(id)/budget", token: token,
                                                   json: #"{"amount":"\#(300 + n * 25).00","currency":"EUR","from_month":"\#(dates[days - 1].prefix(7))"}"#)
            guard code == 200 else { throw HTTPDriver.Failure(description: "budget failed: \(code) \(body)") }
        }
        let (expenseIds, incomeIds, count) = (expense, income, transactions)
        try await http.parallel(count, width: 8) { i in
            let isIncome = i % 10 == 0
            let category = isIncome ? incomeIds[i % incomeIds.count] : expenseIds[(i * 7) % expenseIds.count]
            let currency = i % 5 == 4 ? "USD" : "EUR"
            let amount = isIncome ? "\(1_000 + i % 900).00" : "\(1 + (i * 37) % 250).\(String(format: "%02d", i % 100))"
            let json = #"{"kind":"\#(isIncome ? "income" : "expense")","amount":"\#(amount)","currency":"\#(currency)","category_id":"\#(category)","date":"\#(dates[(i * 7919) % days])"}"#
            let (code, body) = try await http.call(.POST, "/api/v1/finance/transactions", token: token, json: json)
            guard code == 201 else { throw HTTPDriver.Failure(description: "transaction failed: \(code) \(body)") }
        }
        let goalIds = try await seedSavings(http, token: token, now: now, formatter: formatter)
        print(String(format: "seeded in %.0f s", seconds(ContinuousClock.now - seedStarted)))
        try await Settle.database(options.databaseURL, logger: options.logger)

        let months = (0..<12).map { String(dates[$0 * 30].prefix(7)) }
        try await http.openLoop("GET /api/v1/finance/summary?month=…", rate: rate, duration: duration, token: token) { n in
            (.GET, "/api/v1/finance/summary?month=\(months[abs(n) % months.count])", nil)
        }
        try await http.openLoop("GET /api/v1/finance/analytics?months=12", rate: rate, duration: duration, token: token) { _ in
            (.GET, "/api/v1/finance/analytics?months=12", nil)
        }
        if !goalIds.isEmpty {
            try await http.openLoop("GET /api/v1/savings/overview", rate: rate, duration: duration, token: token) { _ in
                (.GET, "/api/v1/savings/overview", nil)
            }
        }
        try await http.openLoop("GET /api/v1/today (finance and savings)", rate: rate, duration: duration, token: token) { _ in
            (.GET, "/api/v1/today", nil)
        }
        let category = expense[0]
        try await http.openLoop("POST /api/v1/finance/transactions", rate: rate, duration: duration, token: token) { n in
            (.POST, "/api/v1/finance/transactions", #"{"kind":"expense","amount":"\#(abs(n) % 90 + 1).50","category_id":"\#(category)"}"#)
        }
        if !goalIds.isEmpty {
            let today = dates[0]
            try await http.openLoop("POST /api/v1/savings/goals/{id}/transactions (deposit)", rate: rate, duration: duration, token: token) { n in
                (.POST, "/api/v1/savings/goals/\(goalIds[abs(n) % goalIds.count])/transactions", #"{"kind":"deposit","amount":"1.00","date":"\#(today)"}"#)
            }
        }
    }

    /// Goals with a monthly plan from five years ago and a deposit for most months; none when the
    /// server has no savings routes.
    func seedSavings(_ http: HTTPDriver, token: String, now: Date, formatter: DateFormatter) async throws -> [String] {
        let (probe, _) = try await http.call(.GET, "/api/v1/savings/goals", token: token, json: nil)
        guard probe == 200 else {
            print("savings: GET /api/v1/savings/goals answers \(probe); the savings scenarios are skipped")
            return []
        }
        let gregorian = Calendar(identifier: .gregorian)
        let start = gregorian.date(byAdding: .month, value: -12 * years, to: now) ?? now
        let startMonth = String(formatter.string(from: start).prefix(7))
        var goalIds: [String] = []
        for n in 0..<goals {
            let id = try await http.create("/api/v1/savings/goals", token: token,
                                           json: #"{"name":"Goal \#(n)","emoji":"🎯","currency":"\#(n % 4 == 3 ? "USD" : "EUR")","target_amount":"100000"}"#)
            let (code, body) = try await http.call(.PUT, "/api/v1/savings/goals/\(id)/plan", token: token,
                                                   json: #"{"amount":"100.00","anchor_day":\#(n % 3 == 0 ? "\"last\"" : "\(1 + n % 28)"),"every_months":1,"start_month":"\#(startMonth)"}"#)
            guard code == 200 || code == 201 else { throw HTTPDriver.Failure(description: "plan failed: \(code) \(body)") }
            goalIds.append(id)
        }
        let deposits = (0..<goals).flatMap { goal in (0..<(12 * years)).filter { ($0 + goal) % 9 != 0 }.map { (goal, $0) } }
        let ids = goalIds
        try await http.parallel(deposits.count, width: 8) { i in
            let (goal, month) = deposits[i]
            let date = formatter.string(from: gregorian.date(byAdding: .day, value: 27, to: gregorian.date(byAdding: .month, value: month, to: start) ?? start) ?? start)
            let (code, body) = try await http.call(.POST, "/api/v1/savings/goals/\(ids[goal])/transactions", token: token,
                                                   json: #"{"kind":"deposit","amount":"100.00","date":"\#(date)"}"#)
            guard code == 201 else { throw HTTPDriver.Failure(description: "deposit failed: \(code) \(body)") }
        }
        return goalIds
    }
}
