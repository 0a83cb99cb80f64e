import Domain
import Testing

@Suite struct MoneyTests {
    let eur = Currency("EUR")!, jpy = Currency("JPY")!, kwd = Currency("KWD")!

    @Test(arguments: ["", "1e3", "10.005", "-5", "+5", "0", "0.00", "1,000", "1 000", "1_000", "1000000000000", ".5", "5.", "١٢", "12.5.1", " 1", "0x10"])
    func refusedAmountsNameTheField(_ text: String) {
        let error = #expect(throws: ValidationFailure.self) { try Money.parse(text, currency: eur) }
        #expect(error?.errors.map(\.field) == ["amount"])
    }

    @Test func digitsFollowTheCurrency() throws {
        #expect(throws: ValidationFailure.self) { try Money.parse("100.5", currency: jpy) }
        #expect(try Money.parse("1500", currency: jpy).description == "1500")
        #expect(try Money.parse("1.250", currency: kwd).minorUnits == 1250)
        #expect(try Money.parse("12.3", currency: eur).description == "12.30")
        #expect(try Money.parse("999999999999.99", currency: eur).minorUnits == 99_999_999_999_999)
        #expect(Money(minorUnits: -425, currency: kwd).description == "-0.425")
    }

    @Test func tenAndTwentyCentsAreExactlyThirty() throws {
        let sum = try Money.parse("0.10", currency: eur).minorUnits + Money.parse("0.20", currency: eur).minorUnits
        #expect(Money(minorUnits: sum, currency: eur).description == "0.30")
    }

    @Test func percentagesRoundHalfToEven() {
        #expect(Percent.of(15000, 20000) == "75.0")
        #expect(Percent.of(3, 8) == "37.5")
        #expect(Percent.of(1, 1600) == "0.1")  // 0.0625 → 0.1 (above half)
        #expect(Percent.of(1, 2000) == "0.0")  // 0.05 → 0.0 (half, to even)
        #expect(Percent.of(3, 2000) == "0.2")  // 0.15 → 0.2 (half, to even)
        #expect(Percent.of(-1, 4) == "-25.0")
        #expect(Percent.of(1, 0) == nil)
    }

    @Test func monthsParseAndClampDays() {
        #expect(LocalMonth("2024-02")?.day(31).description == "2024-02-29")
        #expect(LocalMonth("2025-13") == nil)
        #expect(LocalMonth("2025-1") == nil)
        #expect(LocalMonth("2025-11")?.adding(months: 3).description == "2026-02")
    }
}
