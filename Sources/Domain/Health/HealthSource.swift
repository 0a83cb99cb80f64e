import Foundation

/// What kind of device or app recorded a sample: the unit of source priority.
public enum HealthSourceKind: String, CaseIterable, Codable, Sendable {
    case manual, watch, ring, phone, scale, app

    /// A kind guessed from a source's name, for formats that send only a name ("Jane's Apple
    /// Watch", "iPhone", "Oura"). Unknown names are apps: they rank lowest, so a guess never
    /// outranks a device.
    public static func guessed(fromName name: String) -> HealthSourceKind {
        let name = name.lowercased()
        if name.contains("watch") || name.contains("garmin") || name.contains("fitbit") || name.contains("whoop") { return .watch }
        if name.contains("oura") || name.contains("ring") { return .ring }
        if name.contains("iphone") || name.contains("phone") || name.contains("pixel") { return .phone }
        if name.contains("scale") || name.contains("withings") || name.contains("renpho") || name.contains("eufy") { return .scale }
        return .app
    }
}

/// Who recorded a sample.
public struct HealthSource: Codable, Hashable, Sendable {
    public var name: String
    public var kind: HealthSourceKind
    public var bundleId: String?

    public init(name: String, kind: HealthSourceKind, bundleId: String? = nil) {
        self.name = name
        self.kind = kind
        self.bundleId = bundleId
    }

    /// A source named by a format that does not say its kind.
    public static func named(_ name: String) -> HealthSource {
        HealthSource(name: name, kind: .guessed(fromName: name))
    }
}

/// Which kind of source counts where several cover the same time: earlier in `order` wins.
public struct HealthSourcePriority: Codable, Equatable, Sendable {
    public var order: [HealthSourceKind]

    public static let `default` = HealthSourcePriority(order: [.manual, .watch, .ring, .phone, .scale, .app])

    public init(order: [HealthSourceKind]) {
        // Kinds left out keep their default order after the named ones.
        var seen = Set<HealthSourceKind>()
        var complete = order.filter { seen.insert($0).inserted }
        complete += HealthSourceKind.allCases.filter { !seen.contains($0) }
        self.order = complete
    }

    /// Lower ranks first.
    public func rank(_ kind: HealthSourceKind) -> Int { order.firstIndex(of: kind) ?? order.count }

    /// Orders sources by kind, then by name, so a choice between two sources of one kind is the
    /// same on every run.
    public func precedes(_ lhs: HealthSource, _ rhs: HealthSource) -> Bool {
        let (left, right) = (rank(lhs.kind), rank(rhs.kind))
        return left != right ? left < right : lhs.name < rhs.name
    }
}
