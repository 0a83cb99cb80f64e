import Core
import Domain
import Foundation
import Hummingbird
import Projections

/// The data audit's findings and its summary, as the quality routes answer them.
struct FindingDTO: ResponseEncodable {
    var id: String
    var type: String
    var typeLabel: String
    var severity: String
    var severityLabel: String
    var colorToken: String
    var metric: String?
    var from: String
    var to: String
    var summary: String
    var evidence: JSONValue
    var status: String
    var detectedAt: Date
    /// On an acknowledgement: pass as `min_position` to read it back.
    var position: String?

    init(_ finding: HealthReadModel.Finding, language: Language, position: String? = nil) throws {
        let evidence = try JSONSerialization.jsonObject(with: Data(finding.evidence.utf8)) as? [String: Any] ?? [:]
        id = finding.id.uuidString.lowercased()
        type = finding.type.rawValue
        typeLabel = LabelCatalogue.text("audit.type.\(finding.type.rawValue)", language)
        severity = finding.severity.rawValue
        severityLabel = LabelCatalogue.text("audit.severity.\(finding.severity.rawValue)", language)
        colorToken = finding.severity.colorToken
        metric = finding.metric
        from = finding.from.description
        to = finding.to.description
        summary = HealthAudit.summary(finding.type, metric: finding.metric, evidence: evidence, language: language)
        // Sent on as stored (Domain's JSONValue keeps integers exact).
        self.evidence = try JSONDecoder().decode(JSONValue.self, from: Data(finding.evidence.utf8))
        status = finding.status.rawValue
        detectedAt = finding.detectedAt
        self.position = position
    }
}

struct FindingsDTO: ResponseEncodable {
    var asOfPosition: String
    var items: [FindingDTO]
}

struct AcknowledgeBody: Decodable {
    var status: String
}

/// The audit at a glance: the state from the open findings' severities, its colour, and the
/// open findings per type (every type listed, 0 when none).
struct QualitySummaryDTO: ResponseEncodable {
    var state: String
    var stateLabel: String
    var colorToken: String
    var counts: [String: Int]
    var open: Int
    var acknowledged: Int
    var asOfPosition: String

    init(_ counted: [HealthReadModel.FindingCount], language: Language, asOf: String) {
        let open = counted.filter { $0.status == .open }
        let state = HealthAudit.State.of(openSeverities: open.map(\.severity))
        self.state = state.rawValue
        stateLabel = LabelCatalogue.text("audit.state.\(state.rawValue)", language)
        colorToken = state.colorToken
        var counts = Dictionary(uniqueKeysWithValues: HealthAudit.FindingType.allCases.map { ($0.rawValue, 0) })
        for group in open { counts[group.type.rawValue, default: 0] += group.count }
        self.counts = counts
        self.open = open.reduce(0) { $0 + $1.count }
        acknowledged = counted.filter { $0.status == .acknowledged }.reduce(0) { $0 + $1.count }
        asOfPosition = asOf
    }
}
