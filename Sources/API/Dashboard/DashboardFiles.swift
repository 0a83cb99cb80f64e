import Crypto
import Foundation
import NIOCore

/// The web dashboard's files (`Sources/API/Web/`, resources of this target beside the OpenAPI
/// YAML), read once when the server starts, each kept as it is and gzip-compressed.
///
/// Assets are served under `/assets/<version>/<name>`, where the version is a hash of every
/// file: a changed file changes every asset's address, so an asset can be cached for a year
/// (`immutable`), and the modules' relative imports (`./api.js`) stay within one version.
/// `/` (the page) and `/sw.js` (the service worker, which must sit at the root to control it)
/// are revalidated on every visit with their ETag. `{{version}}` in any file becomes the
/// version, and `{{assets}}` a JSON list of the assets' addresses (the service worker's cache).
public struct DashboardFiles: Sendable {
    public struct File: Sendable {
        public let body: ByteBuffer
        public let gzip: ByteBuffer?
        public let contentType: String
        public let etag: String
    }

    public let version: String
    public let index: File
    public let serviceWorker: File
    public let assets: [String: File]

    /// Files that are not assets.
    static let pages: Set<String> = ["index.html", "sw.js"]

    static let types: [String: String] = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
        "svg": "image/svg+xml", "json": "application/json", "webmanifest": "application/manifest+json", "txt": "text/plain; charset=utf-8",
    ]

    /// The files of the resource bundle's `Web` folder; nil when the bundle or the page is missing
    /// (a binary copied without its bundle), and the server then says so at `/`.
    public static let bundled: DashboardFiles? = {
        guard let folder = OpenAPIDocument.resources?.resourceURL?.appendingPathComponent("Web") else { return nil }
        return load(from: folder)
    }()

    static func load(from folder: URL) -> DashboardFiles? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return nil }
        var contents: [String: [UInt8]] = [:]
        for name in names.sorted() where !name.hasPrefix(".") {
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) else { continue }
            contents[name] = Array(data)
        }
        return make(contents)
    }

    /// Built from file names and bytes (tests give their own).
    static func make(_ contents: [String: [UInt8]]) -> DashboardFiles? {
        guard contents["index.html"] != nil, contents["sw.js"] != nil else { return nil }
        var hasher = SHA256()
        for name in contents.keys.sorted() {
            hasher.update(data: Array(name.utf8) + [0])
            hasher.update(data: contents[name] ?? [])
        }
        let version = hasher.finalize().prefix(6).map { String(format: "%02x", $0) }.joined()
        let assetNames = contents.keys.filter { !pages.contains($0) }.sorted()
        let assetList = "[" + assetNames.map { "\"/assets/\(version)/\($0)\"" }.joined(separator: ",") + "]"
        func file(_ name: String) -> File {
            var bytes = contents[name] ?? []
            let type = types[name.split(separator: ".").last.map(String.init) ?? ""] ?? "application/octet-stream"
            if type.hasPrefix("text/") || type.contains("json") {
                let text = String(decoding: bytes, as: UTF8.self)
                if text.contains("{{") {
                    bytes = Array(text.replacingOccurrences(of: "{{version}}", with: version)
                        .replacingOccurrences(of: "{{assets}}", with: assetList).utf8)
                }
            }
            let digest = SHA256.hash(data: bytes).prefix(8).map { String(format: "%02x", $0) }.joined()
            // Worth it above a kilobyte; images such as SVG compress too.
            let gzip = bytes.count > 1_024 ? Gzip.compress(bytes).flatMap { $0.count < bytes.count ? ByteBuffer(bytes: $0) : nil } : nil
            return File(body: ByteBuffer(bytes: bytes), gzip: gzip, contentType: type, etag: "\"\(digest)\"")
        }
        var assets: [String: File] = [:]
        for name in assetNames { assets[name] = file(name) }
        return DashboardFiles(version: version, index: file("index.html"), serviceWorker: file("sw.js"), assets: assets)
    }
}
