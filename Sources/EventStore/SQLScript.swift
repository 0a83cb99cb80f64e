/// Splits a migration file into statements. The extended protocol takes one statement at a time,
/// so `;` separates statements except inside quotes, comments and dollar-quoted bodies.
enum SQLScript {
    static func statements(_ sql: String) -> [String] {
        // Over 60 lines: one scanner over quotes, comments and dollar-quoted bodies; its states read best together.
        let chars = Array(sql.unicodeScalars)
        var statements: [String] = []
        var current = String.UnicodeScalarView()
        var index = 0

        func flush() {
            let text = String(current).trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty, !isOnlyComments(text) { statements.append(text) }
            current = String.UnicodeScalarView()
        }

        while index < chars.count {
            let char = chars[index]
            let next: Unicode.Scalar? = index + 1 < chars.count ? chars[index + 1] : nil
            switch char {
            case "-" where next == "-":
                while index < chars.count, chars[index] != "\n" { current.append(chars[index]); index += 1 }
                continue
            case "/" where next == "*":
                var depth = 0
                repeat {
                    if chars[index] == "/", index + 1 < chars.count, chars[index + 1] == "*" { depth += 1; current.append(chars[index]); index += 1 }
                    else if chars[index] == "*", index + 1 < chars.count, chars[index + 1] == "/" { depth -= 1; current.append(chars[index]); index += 1 }
                    current.append(chars[index]); index += 1
                } while index < chars.count && depth > 0
                continue
            case "'", "\"":
                current.append(char); index += 1
                while index < chars.count {
                    current.append(chars[index])
                    if chars[index] == char {
                        if index + 1 < chars.count, chars[index + 1] == char { index += 1; current.append(chars[index]) }
                        else { break }
                    }
                    index += 1
                }
                index += 1
                continue
            case "$":
                // $tag$ ... $tag$ (tag may be empty)
                var end = index + 1
                while end < chars.count, chars[end] == "_" || chars[end].properties.isAlphabetic || (end > index + 1 && ("0"..."9").contains(chars[end])) { end += 1 }
                if end < chars.count, chars[end] == "$" {
                    let tag = Array(chars[index...end])
                    for scalar in tag { current.append(scalar) }
                    index = end + 1
                    while index < chars.count {
                        if chars[index] == "$", index + tag.count <= chars.count, Array(chars[index..<(index + tag.count)]) == tag {
                            for scalar in tag { current.append(scalar) }
                            index += tag.count
                            break
                        }
                        current.append(chars[index]); index += 1
                    }
                    continue
                }
            case ";":
                flush(); index += 1
                continue
            default:
                break
            }
            current.append(char); index += 1
        }
        flush()
        return statements
    }

    private static func isOnlyComments(_ text: String) -> Bool {
        text.split(separator: "\n").allSatisfy { $0.trimmingCharacters(in: .whitespaces).hasPrefix("--") || $0.trimmingCharacters(in: .whitespaces).isEmpty }
    }
}
