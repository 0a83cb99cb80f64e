import Domain
import Foundation
import Testing

/// What a body must be before it is decoded (RFC 8259), and what is named when it is JSON but
/// cannot be kept as sent.
@Suite struct StrictJSONTests {
    static func issue(_ text: String, fieldRules: Bool = true) -> StrictJSON.Issue? {
        do {
            try StrictJSON.check(Data(text.utf8), fieldRules: fieldRules)
            return nil
        } catch {
            return error
        }
    }

    static func isSyntax(_ text: String) -> Bool {
        if case .syntax? = issue(text) { return true }
        return false
    }

    @Test func validJSONPasses() {
        for text in [#"{"title":"a","priority":2,"tags":[],"nested":{"x":[1,-0.5,2e3,1E-2,true,false,null]}}"#,
                     " [ ] ", #""\u00e9\ud83d\ude00\n""#, "0", "-12.50", #"{"é":"ü"}"#] {
            #expect(Self.issue(text) == nil, "\(text)")
        }
    }

    @Test func whatIsNotJSONIsASyntaxIssue() {
        for text in [#"{"title":"a",}"#, "[1,]", "[1,,2]", #"{"a" 1}"#, "01", "1.", ".5", "-", "1e", "+1", "{", #""abc"#,
                     "{\"a\":\"tab\there\"}", #"{"a":tru}"#, "{} {}", #"{'a':1}"#, #"{"a":"\x"}"#, #"{"a":"\u12"}"#, "NaN"] {
            #expect(Self.isSyntax(text), "\(text)")
        }
        let deep = String(repeating: "[", count: StrictJSON.maxDepth + 1) + String(repeating: "]", count: StrictJSON.maxDepth + 1)
        #expect(Self.isSyntax(deep))
        let fine = String(repeating: "[", count: StrictJSON.maxDepth) + String(repeating: "]", count: StrictJSON.maxDepth)
        #expect(Self.issue(fine) == nil)
    }

    @Test func aTrailingCommaIsNamedAsSuch() {
        guard case .syntax(let why)? = Self.issue(#"{"title":"a",}"#) else { Issue.record("accepted"); return }
        #expect(why.contains("comma before the closing brace"))
    }

    @Test func aNULInAStringNamesItsField() {
        #expect(Self.issue(#"{"title":"a","notes":"x\u0000y"}"#) == .field(path: "notes", message: "contains a NUL character"))
        #expect(Self.issue(#"{"items":[{"name":"ok"},{"name":"\u0000"}]}"#)
            == .field(path: "items.1.name", message: "contains a NUL character"))
        // Syntax only: the lenient exporters' formats.
        #expect(Self.issue(#"{"notes":"x\u0000y"}"#, fieldRules: false) == nil)
    }

    @Test func halfASurrogatePairNamesItsField() {
        #expect(Self.issue(#"{"notes":"\ud83d"}"#) == .field(path: "notes", message: "contains half of a UTF-16 surrogate pair"))
        #expect(Self.issue(#"{"notes":"\ude00x"}"#) == .field(path: "notes", message: "contains half of a UTF-16 surrogate pair"))
        #expect(Self.issue(#"{"notes":"\ud83dx"}"#) == .field(path: "notes", message: "contains half of a UTF-16 surrogate pair"))
    }

    @Test func aNumberWithMoreDigitsThanAreKeptNamesItsField() {
        guard case .field(let path, _)? = Self.issue(#"{"priority":2.9999999999999999999}"#) else { Issue.record("accepted"); return }
        #expect(path == "priority")
        // 17 significant digits (what any Double prints as) pass; trailing and leading zeros do not count.
        #expect(Self.issue(#"{"v":0.12345678901234567}"#) == nil)
        #expect(Self.issue(#"{"v":0.000012345678901234567000}"#) == nil)
        #expect(Self.issue(#"{"v":1.2345678901234567e300}"#) == nil)
        // A whole number written plainly is the decoder's to range-check.
        #expect(Self.issue(#"{"v":12345678901234567890}"#) == nil)
    }

    @Test func fractionalNumbersAreFoundWithTheirPathAndWholeness() {
        let text = #"{"a":1,"b":[0.5,{"c":1.0}],"d":15e-1,"e":1.5e1,"f":100e-2,"g":-2}"#
        let numbers = StrictJSON.fractionalNumbers(in: Data(text.utf8))
        #expect(numbers.map(\.path) == ["b.0", "b.1.c", "d", "e", "f"])
        #expect(numbers.map(\.whole) == [false, true, false, true, true])
        let bytes = Array(text.utf8)
        #expect(numbers.map { String(decoding: bytes[$0.range], as: UTF8.self) } == ["0.5", "1.0", "15e-1", "1.5e1", "100e-2"])
    }

    /// What lifelog writes itself (health events, recovery answers) reads back as what it holds,
    /// whether a string needs escaping or not.
    @Test func jsonTextWritesStringsThatReadBackTheSame() throws {
        let values = ["plain", "Jane’s Apple Watch ☺", "say \"hi\"", "back\\slash", "line\nbreak\ttab\r", "bell\u{7}", ""]
        var json = JSONText()
        json.openArray()
        for value in values { json.element(); json.string(value) }
        json.closeArray()
        #expect(try JSONDecoder().decode([String].self, from: Data(json.text.utf8)) == values)
        #expect(json.text.hasPrefix(#"["plain","Jane’s Apple Watch ☺","say \"hi\"""#))
    }
}
