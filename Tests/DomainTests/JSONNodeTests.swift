@testable import Domain
import Foundation
import Testing

/// The health batch's reader reads JSON as `JSONSerialization` did, without its objects: the
/// same values, the same documents refused. Checked side by side on tricky and random documents.
@Suite struct JSONNodeTests {
    /// A value in a form both readings can be compared in.
    static func plain(_ value: JSONNode) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): "b:\(flag)"
        case .number(let number): "n:\(number)"
        case .string(let text): "s:" + text.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: ".")
        case .array(let elements): "[" + elements.map(plain).joined(separator: ",") + "]"
        case .object(let object):
            // Each key once, with the value JSONSerialization keeps (the last).
            "{" + Set(object.members.map(\.key)).sorted().map { key in "\(key)=\(object[key].map(plain) ?? "?")" }.joined(separator: ",") + "}"
        }
    }

    static func plain(foundation value: Any) -> String {
        switch value {
        case is NSNull: return "null"
        case let number as NSNumber where String(describing: type(of: number)).contains("Boolean"): return "b:\(number.boolValue)"
        case let number as NSNumber: return "n:\(number.doubleValue)"
        case let text as String: return "s:" + text.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: ".")
        case let list as [Any]: return "[" + list.map { plain(foundation: $0) }.joined(separator: ",") + "]"
        case let object as [String: Any]: return "{" + object.keys.sorted().map { "\($0)=\(plain(foundation: object[$0] ?? NSNull()))" }.joined(separator: ",") + "}"
        default: return "?\(type(of: value))"
        }
    }

    static func both(_ data: Data) -> (ours: String?, foundation: String?) {
        let ours = JSONNode.parse(data).map(plain)
        let foundation = (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])).map { plain(foundation: $0) }
        return (ours, foundation)
    }

    @Test func readsWhatJSONSerializationReads() {
        let documents = [
            #"{"samples":[{"metric":"steps","value":12,"start":"2024-01-15T07:00:00Z","source":{"name":"Watch","kind":"watch"}}]}"#,
            #"{"a":1,"a":"second","b":[1,2.5,-0,-0.0,0.1,1E2,1e-400,9007199254740993,123456789012345678901234567890,1.7976931348623157e308]}"#,
            #"{"t":true,"f":false,"n":null,"e":{},"l":[],"nested":[[[{"x":[{}]}]]]}"#,
            #"{"esc":"q\"b\\s\/n\nr\rt\tb\bf\f","u":"\u00e9\u20AC\ud83d\ude00","raw":"é€😀","nul":"x\u0000y"}"#,
            " \n\t{ \"spaced\" : [ 1 , 2 ] } \r\n",
            #""a fragment""#, "42", "[]",
        ]
        for text in documents {
            let (ours, foundation) = Self.both(Data(text.utf8))
            #expect(ours != nil, "\(text)")
            #expect(ours == foundation, "\(text)")
        }
    }

    @Test func refusesWhatJSONSerializationRefuses() {
        var documents: [[UInt8]] = [
            "[1,,2]", #"{"a" 1}"#, "01", "-01", "1.", ".5", "-", "1e", "1e+", "+1", "{", #""abc"#, "{\"a\":\"tab\there\"}",
            #"{"a":tru}"#, "{} {}", #"{'a':1}"#, #"{"a":"\x"}"#, #"{"a":"\u12"}"#, #"{"a":"\u12G4"}"#, "NaN", "1e400", "-1e400", "",
        ].map { Array($0.utf8) }
        documents.append(Array(#"{"a":""#.utf8) + [0xFF, 0x41] + Array(#""}"#.utf8))
        documents.append(Array(#"{"a":""#.utf8) + [0xC3] + Array(#""}"#.utf8))
        for bytes in documents {
            let (ours, foundation) = Self.both(Data(bytes))
            #expect(foundation == nil, "JSONSerialization read \(String(decoding: bytes, as: UTF8.self))")
            #expect(ours == nil, "read \(String(decoding: bytes, as: UTF8.self)) as \(ours ?? "")")
        }
        // JSONSerialization takes a trailing comma; RFC 8259 (and StrictJSON, before any format is read) does not.
        for text in [#"{"a":1,}"#, "[1,]"] { #expect(JSONNode.parse(Data(text.utf8)) == nil, "\(text)") }
        let deep = String(repeating: "[", count: JSONNode.maxDepth + 1) + String(repeating: "]", count: JSONNode.maxDepth + 1)
        #expect(JSONNode.parse(Data(deep.utf8)) == nil)
    }

    /// What a JavaScript or Python client writes for 0.1 + 0.2 is read as that Double, not as
    /// the neighbour JSONSerialization's `Decimal` gave (the one difference in values).
    @Test func aLongNumberIsReadCorrectlyRounded() throws {
        for (text, expected) in [("0.30000000000000004", 0.30000000000000004), ("1.2345678901234567", 1.2345678901234567),
                                 ("0.000001234567891234", 0.000001234567891234)] {
            let read = try #require(JSONNode.parse(Data(#"{"v":\#(text)}"#.utf8))?.object?["v"]?.number)
            #expect(read == expected, "\(text) read as \(read)")
        }
    }

    /// Random documents of the shapes a batch has, with random numbers and strings.
    @Test func randomDocumentsReadTheSame() {
        var random = SplitMix(seed: 30)
        func text() -> String {
            let pieces = ["a", "é", "😀", "\\n", "\\\"", "\\u00e9", "\\ud83d\\ude00", " ", "Watch", "/"]
            return (0..<Int(random.next() % 6)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
        }
        func number() -> String {
            let whole = Int64(bitPattern: random.next()) % 1_000_000_000
            switch random.next() % 4 {
            case 0: return "\(whole)"
            case 1: return "\(whole).\(random.next() % 100_000)"
            case 2: return "\(whole % 1000)e\(Int(random.next() % 40) - 20)"
            default: return "-0.\(random.next() % 1_000)E+\(random.next() % 5)"
            }
        }
        func value(_ depth: Int) -> String {
            switch depth > 3 ? random.next() % 4 : random.next() % 6 {
            case 0: return number()
            case 1: return "\"\(text())\""
            case 2: return ["true", "false", "null"][Int(random.next() % 3)]
            case 3: return "\"k\(random.next() % 3)\""
            case 4: return "[" + (0..<Int(random.next() % 4)).map { _ in value(depth + 1) }.joined(separator: ",") + "]"
            default: return "{" + (0..<Int(random.next() % 4)).map { _ in "\"k\(random.next() % 3)\":\(value(depth + 1))" }.joined(separator: ",") + "}"
            }
        }
        for _ in 0..<2_000 {
            let document = "{\"d\":\(value(0))}"
            let (ours, foundation) = Self.both(Data(document.utf8))
            #expect(ours != nil && ours == foundation, "\(document)")
        }
    }

    /// Whether the cursor, passing over the whole document, takes it.
    static func skipped(_ text: String) -> Bool {
        JSONNode.Cursor.read(text) { $0.skip() ? true : nil } != nil
    }

    /// The root object's members as the cursor visits them, each read whole: the last of a
    /// name written twice is the one `parse` keeps.
    static func visited(_ text: String) -> String? {
        JSONNode.Cursor.read(text) { cursor -> String? in
            var members: [(String, JSONNode)] = []
            let read = cursor.object { cursor, key in
                // Every other member is passed over and read again: both ways must agree.
                if key.text.hasPrefix("k"), !(key == "k0") {
                    var copy = cursor
                    guard copy.skip(), let value = cursor.value() else { return false }
                    guard copy.reader.at == cursor.reader.at else { return false }
                    members.append((key.text, value))
                    return true
                }
                guard let value = cursor.value() else { return false }
                members.append((key.text, value))
                return true
            }
            return read ? plain(.object(JSONNode.Object(members: members))) : nil
        }
    }

    /// The cursor takes and refuses the documents `parse` does, and a value it reads is the one
    /// `parse` finds (the outline and the records' columns are read with it).
    @Test func theCursorTakesWhatParseTakesAndReadsTheSameValues() {
        var documents = [
            #"{"samples":[{"metric":"steps","value":12}]}"#, #"{"a":1,"a":"second","b":[1,2.5,-0]}"#, #"{"t":true,"n":null,"e":{},"l":[]}"#,
            #"{"esc":"q\"b\\s\/n\n","u":"\u00e9\ud83d\ude00","raw":"é€😀"}"#, " \n\t{ \"spaced\" : [ 1 , 2 ] } \r\n", "[1,,2]", #"{"a" 1}"#,
            "01", "1.", "{", #""abc"#, #"{"a":tru}"#, "{} {}", #"{"a":"\x"}"#, #"{"a":"\u12G4"}"#, "1e400", "", #"{"a":1,}"#, "[1,]",
            String(repeating: "[", count: JSONNode.maxDepth + 1) + String(repeating: "]", count: JSONNode.maxDepth + 1),
            String(repeating: "[", count: JSONNode.maxDepth) + String(repeating: "]", count: JSONNode.maxDepth),
        ]
        documents.append(#"{"a":""# + String(decoding: [0xC3], as: UTF8.self) + #""}"#)
        var random = SplitMix(seed: 31)
        func value(_ depth: Int) -> String {
            switch depth > 3 ? random.next() % 4 : random.next() % 6 {
            case 0: return ["0", "-0", "12.5e3", "1e400", "01", "-"][Int(random.next() % 6)]
            case 1: return ["\"a\"", "\"\\u00e9\"", "\"\\x\"", "\"é\"", "\"\\\"\"", "\"open"][Int(random.next() % 6)]
            case 2: return ["true", "false", "null", "nul"][Int(random.next() % 4)]
            case 3: return "\"k\(random.next() % 3)\""
            case 4: return "[" + (0..<Int(random.next() % 4)).map { _ in value(depth + 1) }.joined(separator: random.next() % 20 == 0 ? ",," : ",") + "]"
            default: return "{" + (0..<Int(random.next() % 4)).map { _ in "\"k\(random.next() % 3)\":\(value(depth + 1))" }.joined(separator: ",") + "}"
            }
        }
        for _ in 0..<3_000 { documents.append("{\"d\":\(value(0)),\"k\(random.next() % 3)\":\(value(1))}") }
        var taken = 0
        for document in documents {
            let parsed = JSONNode.parse(document)
            #expect(Self.skipped(document) == (parsed != nil), "\(document)")
            if let parsed, parsed.object != nil {
                taken += 1
                #expect(Self.visited(document) == Self.plain(parsed), "\(document)")
            }
        }
        #expect(taken > 1_000)
    }
}
