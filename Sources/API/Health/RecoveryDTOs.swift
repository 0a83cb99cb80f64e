import Core
import Domain
import Foundation
import Hummingbird
import Projections

/// A date's recovery score as clients render it: every word in the asked language. It writes
/// its own JSON (`JSONText`; missing figures and `check_in` as null, never left out): a 90-day
/// series through Foundation's encoder took ~40 ms.
struct RecoveryDTO: Sendable {
    struct Methodology: Encodable, Sendable {
        var `class`: String
        var label: String
    }

    struct Component: Sendable {
        var key: String
        var label: String
        var value: Double?
        var unit: String
        var baselineMean: Double?
        var baselineSd: Double?
        var baselineDays: Int
        var z: Double?
        var score: Double?
        var weightUsed: Double
        var available: Bool
        var reason: String?
        var reasonLabel: String?
    }

    var date: String
    var score: Double?
    var status: String
    var statusLabel: String
    var colorToken: String
    var formulaVersion: String
    var methodology: Methodology
    var daysUntilReady: Int?
    var components: [Component]
    var checkIn: CheckInDTO?

    init(_ score: RecoveryScore, checkIn: HealthReadModel.CheckIn?, language: Language) {
        date = score.date.description
        self.score = score.score
        status = score.status.rawValue
        statusLabel = LabelCatalogue.text(LabelCatalogue.status(score.status), language)
        colorToken = score.status.colorToken
        formulaVersion = score.formulaVersion
        methodology = Methodology(class: LabelCatalogue.methodologyClass, label: LabelCatalogue.text(LabelCatalogue.methodology, language))
        daysUntilReady = score.daysUntilReady
        components = score.components.map { component in
            Component(
                key: component.key.rawValue, label: LabelCatalogue.text(LabelCatalogue.component(component.key), language),
                value: component.value.map(Self.figure), unit: component.unit, baselineMean: component.baselineMean.map(Self.figure),
                baselineSd: component.baselineSd.map(Self.figure), baselineDays: component.baselineDays, z: component.z.map(Self.figure),
                score: component.score.map(RecoveryFormula.rounded), weightUsed: Self.figure(component.weightUsed),
                available: component.available, reason: component.reason?.rawValue,
                reasonLabel: component.reason.map { LabelCatalogue.text(LabelCatalogue.reason($0), language) })
        }
        self.checkIn = checkIn.map { CheckInDTO($0, language: language) }
    }

    /// Four decimals: enough to check z against value, mean and sd by hand.
    static func figure(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }
}

struct RecoveryListDTO: Sendable {
    var asOfPosition: String
    var items: [RecoveryDTO]
}

extension RecoveryDTO: ResponseGenerator {
    func write(_ json: inout JSONText) {
        json.open()
        json.field("date", date)
        json.nullable("score", score)
        json.field("status", status)
        json.field("status_label", statusLabel)
        json.field("color_token", colorToken)
        json.field("formula_version", formulaVersion)
        json.key("methodology")
        json.open()
        json.field("class", methodology.class)
        json.field("label", methodology.label)
        json.close()
        if let daysUntilReady { json.key("days_until_ready"); json.number(Int64(daysUntilReady)) }
        json.key("components")
        json.openArray()
        for component in components {
            json.element()
            json.open()
            json.field("key", component.key)
            json.field("label", component.label)
            json.nullable("value", component.value)
            json.field("unit", component.unit)
            json.nullable("baseline_mean", component.baselineMean)
            json.nullable("baseline_sd", component.baselineSd)
            json.key("baseline_days"); json.number(Int64(component.baselineDays))
            json.nullable("z", component.z)
            json.nullable("score", component.score)
            json.key("weight_used"); json.number(component.weightUsed)
            json.key("available"); json.bool(component.available)
            json.field("reason", component.reason)
            json.field("reason_label", component.reasonLabel)
            json.close()
        }
        json.closeArray()
        json.key("check_in")
        if let checkIn {
            json.open()
            json.field("date", checkIn.date)
            json.key("feeling"); json.number(Int64(checkIn.feeling))
            json.field("feeling_label", checkIn.feelingLabel)
            json.field("note", checkIn.note)
            json.close()
        } else {
            json.null()
        }
        json.close()
    }

    var jsonText: String {
        var json = JSONText()
        write(&json)
        return json.text
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response.json(jsonText)
    }
}

extension RecoveryListDTO: ResponseGenerator {
    var jsonText: String {
        var json = JSONText()
        json.open()
        json.field("as_of_position", asOfPosition)
        json.key("items")
        json.openArray()
        for item in items {
            json.element()
            item.write(&json)
        }
        json.closeArray()
        json.close()
        return json.text
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response.json(jsonText)
    }
}

extension Response {
    /// A JSON body written by hand, with the content type the JSON encoder's answers have.
    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

struct CheckInDTO: ResponseEncodable {
    var date: String
    var feeling: Int
    var feelingLabel: String
    var note: String?

    init(_ checkIn: HealthReadModel.CheckIn, language: Language) {
        date = checkIn.date.description
        feeling = checkIn.feeling
        feelingLabel = LabelCatalogue.text("check_in.feeling.\(checkIn.feeling)", language)
        note = checkIn.note
    }
}

struct CheckInBody: Decodable {
    var feeling: Int
    var note: String?
}

struct LabelsDTO: ResponseEncodable {
    var lang: String
    var labels: [String: String]
}

/// `GET /health/briefing`: every word in the asked language; missing figures are null.
struct BriefingDTO: ResponseEncodable {
    struct Delta: Encodable, Sendable {
        var metric: String
        var value: Double
        var unit: String
        @NullWhenEmpty var baseline: Double? = nil
        @NullWhenEmpty var change: Double? = nil
        @NullWhenEmpty var changePercent: Double? = nil
        @NullWhenEmpty var direction: String? = nil
        @NullWhenEmpty var good: Bool? = nil

        enum CodingKeys: String, CodingKey { case metric, value, unit, baseline, change, changePercent, direction, good }

    }

    struct Section: Encodable, Sendable {
        var key: String
        var title: String
        var summary: String
        var status: String
        var colorToken: String
        var deltas: [Delta]
        var methodology: RecoveryDTO.Methodology
    }

    struct Blocks: Encodable, Sendable {
        @NullWhenEmpty var sleep: String? = nil
        @NullWhenEmpty var yesterday: String? = nil
        @NullWhenEmpty var recovery: String? = nil
        @NullWhenEmpty var recommendation: String? = nil

        enum CodingKeys: String, CodingKey { case sleep, yesterday, recovery, recommendation }

    }

    var date: String
    var lang: String
    var asOfPosition: String
    var sections: [Section]
    var blocks: Blocks
    @NullWhenEmpty var checkIn: CheckInDTO? = nil
    /// Per section key, the newest sample's time (RFC 3339), null when none in the three days up to the date.
    var freshness: [String: Date?]

    enum CodingKeys: String, CodingKey { case date, lang, asOfPosition, sections, blocks, checkIn, freshness }

    init(_ briefing: Briefing, checkIn: HealthReadModel.CheckIn?, freshness: [Briefing.SectionKey: Int64], language: Language, asOf: String) {
        date = briefing.date.description
        lang = language.rawValue
        asOfPosition = asOf
        sections = briefing.sections.map { section in
            Section(key: section.key.rawValue, title: section.title, summary: section.summary, status: section.status,
                    colorToken: section.colorToken,
                    deltas: section.deltas.map {
                        Delta(metric: $0.metric, value: $0.value, unit: $0.unit, baseline: $0.baseline, change: $0.change,
                              changePercent: $0.changePercent, direction: $0.direction?.rawValue, good: $0.good)
                    },
                    methodology: .init(class: section.methodologyClass, label: section.methodologyLabel))
        }
        blocks = Blocks(sleep: briefing.blocks.sleep, yesterday: briefing.blocks.yesterday, recovery: briefing.blocks.recovery,
                        recommendation: briefing.blocks.recommendation)
        self.checkIn = checkIn.map { CheckInDTO($0, language: language) }
        var times: [String: Date?] = [:]
        for key in Briefing.SectionKey.allCases {
            // updateValue keeps a nil as null; a subscript assignment of nil would drop the key.
            times.updateValue(freshness[key].map { Date(timeIntervalSince1970: TimeInterval($0)) }, forKey: key.rawValue)
        }
        self.freshness = times
    }
}
