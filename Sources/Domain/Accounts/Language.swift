import Foundation

/// The languages server-produced words come in.
public enum Language: String, Sendable, Codable, CaseIterable {
    case en, ru, sr

    /// `?lang=` first, then `Accept-Language` (by quality), then the user's language, then English.
    public static func resolve(query: String?, acceptLanguage: String?, userLanguage: Language?) -> Language {
        if let query, let language = Language(tag: query) { return language }
        if let acceptLanguage {
            let ranked = acceptLanguage.split(separator: ",").compactMap { part -> (Language, Double)? in
                let pieces = part.split(separator: ";").map { $0.filter { $0 != " " && $0 != "\t" } }
                guard let tag = pieces.first, let language = Language(tag: tag) else { return nil }
                let quality = pieces.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
                return quality > 0 ? (language, quality) : nil
            }
            // A stable sort keeps the header's order among equal qualities.
            if let best = ranked.enumerated().sorted(by: { ($0.element.1, -$0.offset) > ($1.element.1, -$1.offset) }).first {
                return best.element.0
            }
        }
        return userLanguage ?? .en
    }

    /// Accepts `sr`, `sr-Latn-RS`, `RU`…; the primary subtag decides.
    public init?(tag: some StringProtocol) {
        let primary = tag.split(separator: "-").first.map { $0.lowercased() } ?? ""
        self.init(rawValue: primary)
    }
}

