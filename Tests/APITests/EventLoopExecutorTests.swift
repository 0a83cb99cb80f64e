import Core
import Testing

@Suite struct EventLoopExecutorTests {
    /// The operator's way back to Swift's own pool: nothing is installed. (The default installs
    /// for the whole process, so it is exercised by the binaries: `CommandLineTests`, the fuzz
    /// run and the benchmarks.)
    @Test func lifelogExecutorSwiftKeepsSwiftsOwnPool() {
        #expect(EventLoopExecutor.install(environment: ["LIFELOG_EXECUTOR": "swift"]) == false)
    }
}
