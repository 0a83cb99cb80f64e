import Domain
import Foundation

extension ImportCommand {
    /// Loop's export as its importer takes it: `Habits.csv` and every habit folder's
    /// `Checkmarks.csv`, read from the zip (through `unzip`, as the Apple Health import reads
    /// its zip) or from the folder it was unpacked to. The other files (`Scores.csv`, the
    /// all-habits `Checkmarks.csv`) are Loop's own figures and not read.
    static func loopExport(_ path: String) throws -> LoopHabits.Export {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { throw CLIError("cannot read \(path)") }
        let names: [String]
        let read: (String) throws -> String
        if isFolder.boolValue {
            let root = URL(fileURLWithPath: path)
            names = (FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? []).sorted()
            read = { name in
                guard let data = FileManager.default.contents(atPath: root.appendingPathComponent(name).path) else { throw CLIError("cannot read \(name)") }
                return String(decoding: data, as: UTF8.self)
            }
        } else {
            names = String(decoding: try ExportSource.run(["-Z1", path], limit: 16 << 20), as: UTF8.self)
                .split(whereSeparator: \.isNewline).map(String.init)
            read = { name in
                // unzip reads a name as a pattern: its wildcard characters are escaped.
                let pattern = name.reduce(into: "") { text, char in text += "[]*?\\".contains(char) ? "\\\(char)" : String(char) }
                return String(decoding: try ExportSource.run(["-p", path, pattern], limit: 256 << 20), as: UTF8.self)
            }
        }
        // Habits.csv at the top of the export (the zip may hold it in a folder of its own).
        guard let habits = names.filter({ $0 == "Habits.csv" || $0.hasSuffix("/Habits.csv") }).min(by: { $0.count < $1.count }) else {
            throw CLIError("\(path) is not Loop Habit Tracker's export: it has no Habits.csv")
        }
        let prefix = String(habits.dropLast("Habits.csv".count))
        var checkmarks: [String: String] = [:]
        for name in names where name.hasPrefix(prefix) && name.hasSuffix("/Checkmarks.csv") {
            let folder = name.dropFirst(prefix.count).dropLast("/Checkmarks.csv".count)
            guard !folder.isEmpty, !folder.contains("/") else { continue }
            checkmarks[String(folder)] = try read(name)
        }
        return LoopHabits.Export(habits: try read(habits), checkmarks: checkmarks)
    }
}
