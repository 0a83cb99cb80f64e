import Domain
import Hummingbird

extension Request {
    /// A command's typed input: the body read as its draft (`json`), then checked
    /// (`ValidatedInput`); a draft with wrong fields is one 422 naming them all.
    func input<T: ValidatedInput>(_ type: T.Type, context: some RequestContext) async throws -> T {
        try T.validated(from: try await json(T.Draft.self, context: context)).get()
    }

    /// A command's typed input whose draft's errors the decider reports with its own, after what
    /// its state says first (`CheckedInput`); a draft no command can be made of is 422 at once.
    func checked<T: CheckedInput>(_ type: T.Type, context: some RequestContext) async throws -> Checked<T> {
        try T.checked(from: try await json(T.Draft.self, context: context)).get()
    }
}
