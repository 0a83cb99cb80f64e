import Foundation

// The reader's byte-level scanning (tags, attributes, entities, the root element) and how Apple's units, values and sources map to lifelog's.
extension AppleHealthExportReader {
    /// `<![CDATA[` at `open`.
    static func startsCDATA(_ buffer: UnsafeBufferPointer<UInt8>, at open: Int) -> Bool {
        let marker = Array("<![CDATA[".utf8)
        guard open + marker.count <= buffer.count else { return false }
        return (0..<marker.count).allSatisfy { buffer[open + $0] == marker[$0] }
    }

    /// The name of the document's root element, read from the start of a file: the first tag
    /// that is not a declaration, a comment or a processing instruction (`HealthData` for Apple's
    /// export, whatever the file is called in the phone's language: `exportar.xml`, `vienti.xml`;
    /// `ClinicalDocument` for `export_cda.xml`). Nil when `prefix` holds none.
    public static func rootElement(_ prefix: some Collection<UInt8>) -> String? {
        let bytes = Array(prefix)
        var index = 0
        while let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")) {
            guard open + 1 < bytes.count else { return nil }
            let next = bytes[open + 1]
            if next == UInt8(ascii: "?") || next == UInt8(ascii: "!") {
                // A comment ends at "-->"; a declaration (its internal subset's own <!…> included) at its '>'.
                if bytes[open...].starts(with: Array("<!--".utf8)) {
                    guard let end = (open + 4..<max(open + 4, bytes.count - 2)).first(where: {
                        bytes[$0] == UInt8(ascii: "-") && bytes[$0 + 1] == UInt8(ascii: "-") && bytes[$0 + 2] == UInt8(ascii: ">")
                    }) else { return nil }
                    index = end + 3
                } else {
                    guard let end = bytes[(open + 1)...].firstIndex(of: UInt8(ascii: ">")) else { return nil }
                    index = end + 1
                }
                continue
            }
            guard next != UInt8(ascii: "/"), next != UInt8(ascii: "]") else { index = open + 1; continue }
            let name = bytes[(open + 1)...].prefix { ![UInt8(ascii: " "), UInt8(ascii: ">"), UInt8(ascii: "/"), UInt8(ascii: "\n"),
                                                     UInt8(ascii: "\t"), UInt8(ascii: "\r")].contains($0) }
            return name.isEmpty ? nil : String(decoding: name, as: UTF8.self)
        }
        return nil
    }

    /// Apple's unit spellings that lifelog's names differ from.
    static func unit(_ unit: String?) -> String? {
        switch unit {
        case "count/min": "count/min"
        case "mL/min·kg", "mL/(kg·min)": nil
        default: unit
        }
    }

    static func figure(_ value: String?, _ unit: String?, _ metric: HealthMetric) -> Double? {
        value.flatMap(Double.init).flatMap { metric.normalized($0, unit: unit) }
    }

    /// The source's name, and its kind from the device description when there is one
    /// (`<<HKDevice: 0x…>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, …>`).
    static func source(_ attributes: [String: String]) -> HealthSource {
        let name = String((attributes["sourceName"] ?? "Apple Health").prefix(200))
        var kind = HealthSourceKind.guessed(fromName: name)
        if let device = attributes["device"] {
            if device.contains("model:Watch") || device.contains("name:Apple Watch") { kind = .watch }
            else if device.contains("model:iPhone") || device.contains("name:iPhone") { kind = .phone }
        }
        return HealthSource(name: name, kind: kind)
    }

    /// `Running` → `running`, `HighIntensityIntervalTraining` → `high_intensity_interval_training`.
    static func snake(_ name: String) -> String {
        name.reduce(into: "") { result, char in
            if char.isUppercase, !result.isEmpty { result += "_" }
            result += char.lowercased()
        }
    }

    /// The element's name: the bytes up to the first space, '/' or end.
    static func name(_ tag: UnsafeBufferPointer<UInt8>) -> String {
        var end = 0
        while end < tag.count, tag[end] != UInt8(ascii: " "), tag[end] != UInt8(ascii: "/"), tag[end] != UInt8(ascii: "\n"),
              tag[end] != UInt8(ascii: "\t"), tag[end] != UInt8(ascii: "\r") { end += 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: tag[0..<end]), as: UTF8.self)
    }

    /// `name="value"` pairs (either quote), entities decoded.
    static func attributes(_ tag: UnsafeBufferPointer<UInt8>) -> [String: String] {
        var found: [String: String] = [:]
        var index = 0
        let count = tag.count
        // Skip the element's name.
        while index < count, tag[index] != UInt8(ascii: " "), tag[index] != UInt8(ascii: "\n"), tag[index] != UInt8(ascii: "\t") { index += 1 }
        while index < count {
            while index < count, tag[index] == UInt8(ascii: " ") || tag[index] == UInt8(ascii: "\n") || tag[index] == UInt8(ascii: "\t")
                    || tag[index] == UInt8(ascii: "\r") || tag[index] == UInt8(ascii: "/") { index += 1 }
            let nameStart = index
            while index < count, tag[index] != UInt8(ascii: "="), tag[index] != UInt8(ascii: " ") { index += 1 }
            let nameEnd = index
            while index < count, tag[index] != UInt8(ascii: "\""), tag[index] != UInt8(ascii: "'") { index += 1 }
            guard index < count, nameEnd > nameStart else { break }
            let quote = tag[index]
            index += 1
            let valueStart = index
            var hasEntity = false
            while index < count, tag[index] != quote {
                if tag[index] == UInt8(ascii: "&") { hasEntity = true }
                index += 1
            }
            let name = String(decoding: UnsafeBufferPointer(rebasing: tag[nameStart..<nameEnd]), as: UTF8.self)
            let value = UnsafeBufferPointer(rebasing: tag[valueStart..<min(index, count)])
            found[name] = hasEntity ? decodeEntities(value) : String(decoding: value, as: UTF8.self)
            index += 1
        }
        return found
    }

    /// An attribute's bytes with the five named entities decoded (every record's `device` has
    /// them); numeric ones and anything unusual go the general way.
    static func decodeEntities(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        let count = bytes.count
        func matches(_ name: StaticString) -> Bool {
            let length = name.utf8CodeUnitCount
            guard index + length + 1 < count, bytes[index + length + 1] == UInt8(ascii: ";") else { return false }
            return name.withUTF8Buffer { name in (0..<length).allSatisfy { bytes[index + 1 + $0] == name[$0] } }
        }
        while index < count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "&") else { decoded.append(byte); index += 1; continue }
            if matches("lt") { decoded.append(UInt8(ascii: "<")); index += 4 }
            else if matches("gt") { decoded.append(UInt8(ascii: ">")); index += 4 }
            else if matches("amp") { decoded.append(UInt8(ascii: "&")); index += 5 }
            else if matches("quot") { decoded.append(UInt8(ascii: "\"")); index += 6 }
            else if matches("apos") { decoded.append(UInt8(ascii: "'")); index += 6 }
            else { return decodeEntities(String(decoding: bytes, as: UTF8.self)) }
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    static func decodeEntities(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";"), rest.distance(from: amp, to: semicolon) <= 10 else {
                result += rest[amp...]
                return result
            }
            let entity = rest[rest.index(after: amp)..<semicolon]
            switch entity {
            case "amp": result += "&"
            case "lt": result += "<"
            case "gt": result += ">"
            case "quot": result += "\""
            case "apos": result += "'"
            default:
                let number = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16) : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
                // XML has no character 0 (and PostgreSQL's jsonb refuses it): kept as written.
                if let number, number != 0, let scalar = Unicode.Scalar(number) { result.unicodeScalars.append(scalar) } else { result += "&\(entity);" }
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return result + rest
    }
}
