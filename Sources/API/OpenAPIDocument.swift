import Foundation

/// The OpenAPI 3.1 document served at `/openapi.yaml`, written by hand as YAML files in
/// `Sources/API/OpenAPI/`, resources of this target: `base.yaml` holds the header and the
/// components every area shares; each area file holds its own `paths:` and `components:`.
/// Tests check the merged document against the router's routes, validate it as OpenAPI 3.1 and
/// compare each response DTO's keys with its schema.
enum OpenAPIDocument {
    /// The area files, in the order their paths appear in the document: the operational routes'
    /// (`/healthz`, `/metrics`, ...), then each registered area's, then each app adapter's
    /// (`ClientCatalog`), so a new area adds its file and its line in `AreaCatalog` and nothing here.
    static let areas = ["operations"] + AreaCatalog.areas.map { $0.openAPIPart } + ClientCatalog.adapters.map { $0.openAPIPart }

    static let yaml: String = {
        guard let base = file("base") else { return placeholder }
        var parts: [String] = []
        for area in areas {
            guard let part = file(area) else { return placeholder }
            parts.append(part)
        }
        return merged(base: base, parts: parts)
    }()

    /// The names of the properties marked `x-lifelog-secret: true` anywhere in the document:
    /// every answer that carries one is sealed before it is kept (`IdempotencyMiddleware`), so a
    /// new secret in any answer is protected by its mark in the document, not by a list per route.
    /// Read from the text, without a YAML parser: a mark inside a flow mapping names that line's
    /// key (`api_key: { type: string, x-lifelog-secret: true }`); on a line of its own, the key of
    /// the mapping it is indented under.
    static let secretFields: Set<String> = secretFields(in: yaml)

    static func secretFields(in document: String) -> Set<String> {
        var found: Set<String> = []
        let lines = document.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        func key(_ line: Substring) -> Substring? {
            let trimmed = line.drop { $0 == " " }
            let name = trimmed.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            return !name.isEmpty && trimmed.dropFirst(name.count).hasPrefix(":") ? name : nil
        }
        func indent(_ line: Substring) -> Int { line.prefix { $0 == " " }.count }
        for (index, line) in lines.enumerated() where line.contains("x-lifelog-secret: true") {
            if line.contains("{"), let name = key(line), !line.drop(while: { $0 == " " }).hasPrefix("x-lifelog-secret") {
                found.insert(String(name))
                continue
            }
            let depth = indent(line)
            for earlier in lines[..<index].reversed() where indent(earlier) < depth && !earlier.allSatisfy({ $0 == " " }) {
                if let name = key(earlier) { found.insert(String(name)) }
                break
            }
        }
        return found
    }

    /// Served when a file cannot be read: a valid but empty document, which the route test fails on.
    static let placeholder = """
        openapi: 3.1.0
        info:
          title: lifelog API (its OpenAPI files were not found beside the executable)
          version: 0.1.0
        paths: {}

        """

    /// The text of `OpenAPI/<name>.yaml` in this target's resource bundle; nil if unreadable.
    static func file(_ name: String) -> String? {
        guard let url = resources?.url(forResource: name, withExtension: "yaml", subdirectory: "OpenAPI") else { return nil }
        return try? String(contentsOf: url, encoding: .utf8)
    }

    /// The resource bundle SwiftPM builds beside the executable (`lifelog_API.resources` on Linux,
    /// `.bundle` on macOS). Not `Bundle.module`: its generated accessor calls fatalError when the
    /// bundle is missing (a binary copied without it), and a missing document is no reason to crash.
    /// It looks in the same place first; its other place is the build folder, which a test run
    /// or `swift run` does not need since the bundle is beside their executable there too.
    static let resources: Bundle? = {
        var folders = [Bundle.main.bundleURL]
        if let executable = Bundle.main.executableURL {
            folders.append(executable.resolvingSymlinksInPath().deletingLastPathComponent())
        }
        for folder in folders {
            for name in ["lifelog_API.resources", "lifelog_API.bundle"] {
                if let bundle = Bundle(url: folder.appendingPathComponent(name)) { return bundle }
            }
        }
        return nil
    }()

    /// Merges YAML documents line by line, without a YAML parser. A line at column 0 starts a
    /// top-level key (column-0 `#` lines are comments and dropped); under `components:`, a line at
    /// indent 2 ending in `:` starts a sub-key such as `schemas:`. The result is base's other
    /// top-level keys (`openapi`, `info`, `servers`, ...), then `components:` with each sub-key
    /// once and the entries of base and of every part under it, in order, then `paths:` with every
    /// part's paths. A part's other top-level keys are ignored; duplicates are kept, not resolved
    /// (the tests look for both).
    static func merged(base: String, parts: [String]) -> String {
        var header: [Substring] = []
        var subKeys: [Substring] = []  // in order of first appearance
        var entries: [Substring: [Substring]] = [:]
        var paths: [Substring] = []
        for (index, document) in ([base] + parts).enumerated() {
            var top: Substring = ""
            var sub: Substring?
            // isNewline, not "\n": a CRLF pair is one Character and would not split on "\n".
            for line in document.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).trimmingEmptyEnd() {
                if line.hasPrefix("#") { continue }
                if let first = line.first, first != " " {
                    top = line.prefix { $0 != ":" }
                    sub = nil
                    if index == 0, top != "components", top != "paths" { header.append(line) }
                    continue
                }
                switch top {
                case "components":
                    if isSubKey(line) {
                        let key = line.dropFirst(2).dropLast()
                        if entries[key] == nil {
                            subKeys.append(key)
                            entries[key] = []
                        }
                        sub = key
                    } else if let sub {
                        entries[sub, default: []].append(line)
                    }
                case "paths": paths.append(line)
                case "": continue  // indented text before any key
                default: if index == 0 { header.append(line) }
                }
            }
        }
        var out = header
        // A key with nothing under it would be YAML null, which OpenAPI refuses.
        let filled = subKeys.filter { entries[$0]?.isEmpty == false }
        if !filled.isEmpty {
            out.append("components:")
            for key in filled { out += ["  \(key):"] + (entries[key] ?? []) }
        }
        if !paths.isEmpty { out += ["paths:"] + paths }
        return out.joined(separator: "\n") + "\n"
    }

    /// `  schemas:`: indent 2 exactly, not a comment, ending in `:`.
    private static func isSubKey(_ line: Substring) -> Bool {
        line.hasPrefix("  ") && line.hasSuffix(":") && line.dropFirst(2).first.map { $0 != " " && $0 != "#" } == true
    }
}

private extension Array where Element == Substring {
    /// Without the empty lines a file ends with, so parts do not leave blank lines between them.
    func trimmingEmptyEnd() -> ArraySlice<Substring> {
        let end = (lastIndex { !$0.isEmpty } ?? -1) + 1
        return self[..<end]
    }
}
