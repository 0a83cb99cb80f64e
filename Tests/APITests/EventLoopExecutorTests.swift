import Core
import Testing

@Suite struct EventLoopExecutorTests {
    /// Swift's own pool is the default, and `swift` names it: nothing is installed. (`nio`
    /// installs for the whole process, so it is tried through the binaries and the benchmarks.)
    @Test func swiftsOwnPoolIsTheDefault() {
        #expect(EventLoopExecutor.install(environment: [:]) == false)
        #expect(EventLoopExecutor.install(environment: ["LIFELOG_EXECUTOR": "swift"]) == false)
    }
}
