import Foundation

/// A quantity the health area stores, with the one unit it is stored and answered in.
public enum HealthMetric: String, CaseIterable, Codable, Sendable {
    case steps
    case distance
    case activeEnergy = "active_energy"
    case heartRate = "heart_rate"
    case restingHeartRate = "resting_heart_rate"
    case hrvSdnn = "hrv_sdnn"
    case spo2
    case respiratoryRate = "respiratory_rate"
    case bodyMass = "body_mass"
    case bodyFat = "body_fat"
    case vo2Max = "vo2_max"

    /// How a day's samples make the day's figure.
    public enum DailyRule: Sendable, Equatable {
        /// Summed, each period counted once across sources (steps, distance, energy).
        case cumulative
        /// The mean, with the day's min and max.
        case mean
        /// The day's last reading (body mass and fat change slowly; the latest is the truth).
        case last
    }

    public var dailyRule: DailyRule {
        switch self {
        case .steps, .distance, .activeEnergy: .cumulative
        case .bodyMass, .bodyFat, .vo2Max: .last
        case .heartRate, .restingHeartRate, .hrvSdnn, .spo2, .respiratoryRate: .mean
        }
    }

    /// The unit every stored value and every answer uses.
    public var unit: String {
        switch self {
        case .steps: "count"
        case .distance: "m"
        case .activeEnergy: "kcal"
        case .heartRate, .restingHeartRate: "count/min"
        case .hrvSdnn: "ms"
        case .spo2, .bodyFat: "%"
        case .respiratoryRate: "count/min"
        case .bodyMass: "kg"
        case .vo2Max: "mL/(kg·min)"
        }
    }

    /// What a body or a device can plausibly report for one sample, in the stored unit. A value
    /// outside is a glitch or a wrong unit, and is rejected rather than skewing a day.
    public var plausibleRange: ClosedRange<Double> {
        switch self {
        case .steps: 0...200_000
        case .distance: 0...500_000
        case .activeEnergy: 0...30_000
        case .heartRate: 20...250
        case .restingHeartRate: 20...200
        case .hrvSdnn: 1...500
        case .spo2: 50...100
        case .respiratoryRate: 2...80
        case .bodyMass: 1...650
        case .bodyFat: 1...80
        case .vo2Max: 5...100
        }
    }

    /// A unit as sent, trimmed and lowercased; the common spellings (`count/min`, `kcal`) are
    /// taken as they are, without Foundation's trimming (a million samples' worth of it showed).
    static func unitName(_ given: String?) -> String {
        guard let given, !given.isEmpty else { return "" }
        let plain = given.utf8.allSatisfy { (0x61...0x7A).contains($0) || $0 == UInt8(ascii: "/") || (0x30...0x39).contains($0) }
        return plain ? given : given.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// `value` in `unit` converted to this metric's stored unit; nil when the unit is not one
    /// this metric can be measured in. A missing or empty unit means the stored unit.
    public func normalized(_ value: Double, unit given: String?) -> Double? {
        let unit = Self.unitName(given)
        switch self {
        case .steps:
            return ["", "count", "steps", "step", "count/day"].contains(unit) ? value : nil
        case .distance:
            switch unit {
            case "", "m", "meter", "meters", "metre", "metres": return value
            case "km", "kilometer", "kilometers": return value * 1_000
            case "mi", "mile", "miles": return value * 1_609.344
            case "ft", "foot", "feet": return value * 0.3048
            case "yd", "yard", "yards": return value * 0.9144
            case "cm": return value / 100
            default: return nil
            }
        case .activeEnergy:
            switch unit {
            case "", "kcal", "cal", "kilocalorie", "kilocalories", "calories": return value  // Apple's "Cal" is a kilocalorie
            case "kj", "kilojoule", "kilojoules": return value / 4.184
            default: return nil
            }
        case .heartRate, .restingHeartRate, .respiratoryRate:
            return ["", "count/min", "bpm", "/min", "beats/min", "breaths/min", "count/s"].contains(unit)
                ? (unit == "count/s" ? value * 60 : value) : nil
        case .hrvSdnn:
            switch unit {
            case "", "ms", "millisecond", "milliseconds": return value
            case "s": return value * 1_000
            default: return nil
            }
        case .spo2, .bodyFat:
            // A value of at most 1 is a fraction, whatever unit came with it (Apple's own export
            // says "%" and sends 0.97); the stored figure is a percent.
            guard ["", "%", "percent", "fraction", "count"].contains(unit) else { return nil }
            return value <= 1 ? value * 100 : value
        case .bodyMass:
            switch unit {
            case "", "kg", "kilogram", "kilograms": return value
            case "lb", "lbs", "pound", "pounds": return value * 0.45359237
            case "g": return value / 1_000
            case "st", "stone": return value * 6.35029318
            default: return nil
            }
        case .vo2Max:
            let compact = unit.replacingOccurrences(of: " ", with: "")
            return ["", "ml/(kg·min)", "ml/(kg*min)", "ml/kg/min", "ml/(kg.min)", "ml/kg·min", "ml/min·kg", "ml/(min·kg)"].contains(compact) ? value : nil
        }
    }
}
