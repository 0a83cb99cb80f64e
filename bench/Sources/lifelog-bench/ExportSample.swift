import ArgumentParser
import Domain
import Foundation

/// Writes a synthetic Apple Health `export.xml` of about `records` records for the import
/// benchmark: a watch's heart rate every minute, steps every 10 minutes from the watch and the
/// phone, nightly sleep stages, in Apple's exact shape (AppleHealthExportSample's header).
struct ExportSample: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export-sample", abstract: "Write a synthetic Apple Health export.xml.")
    @Option(help: "Records to write (about).") var records = 1_000_000
    @Option(help: "The file to write.") var out: String

    func run() throws {
        FileManager.default.createFile(atPath: out, contents: nil)
        guard let file = FileHandle(forWritingAtPath: out) else { throw ValidationError("cannot write \(out)") }
        defer { try? file.close() }
        file.write(Data(AppleHealthExportSample.header.utf8))
        let watch = #"sourceName="Apple Watch" sourceVersion="10.1" device="&lt;&lt;HKDevice: 0x1&gt;, name:Apple Watch, model:Watch&gt;""#
        let phone = #"sourceName="iPhone" sourceVersion="17.2""#
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "Europe/Belgrade")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        // About 1.175 records a minute (heart rate each minute, steps or sleep every 10): ending weeks before now.
        let start = Date().addingTimeInterval(-Double(records) / 1.1 * 60)
        var written = 0, minute = 0
        var buffer = ""
        while written < records {
            let at = start.addingTimeInterval(Double(minute) * 60)
            let from = formatter.string(from: at)
            buffer += #" <Record type="HKQuantityTypeIdentifierHeartRate" \#(watch) unit="count/min" creationDate="\#(from)" startDate="\#(from)" endDate="\#(from)" value="\#(55 + minute % 50)"/>"# + "\n"
            written += 1
            if minute % 10 == 0 {
                let to = formatter.string(from: at.addingTimeInterval(600))
                let hour = (minute / 60) % 24
                if hour < 6 {
                    buffer += #" <Record type="HKCategoryTypeIdentifierSleepAnalysis" \#(watch) startDate="\#(from)" endDate="\#(to)" value="HKCategoryValueSleepAnalysisAsleep\#(["Core", "Deep", "REM"][(minute / 10) % 3])"/>"# + "\n"
                    written += 1
                } else {
                    buffer += #" <Record type="HKQuantityTypeIdentifierStepCount" \#(watch) unit="count" startDate="\#(from)" endDate="\#(to)" value="\#(100 + minute % 300)"/>"# + "\n"
                    buffer += #" <Record type="HKQuantityTypeIdentifierStepCount" \#(phone) unit="count" startDate="\#(from)" endDate="\#(to)" value="\#(90 + minute % 250)"/>"# + "\n"
                    written += 2
                }
            }
            minute += 1
            if buffer.utf8.count > 1 << 20 {
                file.write(Data(buffer.utf8))
                buffer = ""
            }
        }
        file.write(Data((buffer + AppleHealthExportSample.footer).utf8))
        print("wrote \(written) records to \(out)")
    }
}
