import Domain
import Testing

/// The form of every decider test: given these events, when this command at this time, then
/// exactly these events (compared whole: every field of every event), or this error. One helper
/// for every area, so a test reads as the rule it checks.
struct Given<D: Decider> {
    let events: [D.Event]

    init(_: D.Type, _ events: [D.Event] = []) { self.events = events }

    /// The same history with more events after it.
    func and(_ more: [D.Event]) -> Given<D> { Given(D.self, events + more) }

    /// What the decider decides from the folded history; throws what it throws.
    func when(_ command: D.Command, at now: DecisionTime) throws -> [D.Event] {
        try D.decide(D.fold(events), command, now)
    }

    /// Then the decider stores exactly `expected`.
    func then(_ command: D.Command, at now: DecisionTime, _ expected: [D.Event], sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let decided = try when(command, at: now)
            #expect(decided == expected, sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected events, got \(error)", sourceLocation: sourceLocation)
        }
    }

    /// Then the decider stores nothing: the command changes nothing.
    func thenNothing(_ command: D.Command, at now: DecisionTime, sourceLocation: SourceLocation = #_sourceLocation) {
        then(command, at: now, [], sourceLocation: sourceLocation)
    }

    /// Then the decider refuses the command with exactly `error`.
    func thenThrows<E: Error & Equatable>(_ command: D.Command, at now: DecisionTime, _ error: E, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: error, sourceLocation: sourceLocation) { try when(command, at: now) }
    }

    /// Then the decider refuses the command with an error of `type`; returns it for a closer look.
    @discardableResult
    func thenThrows<E: Error>(_ command: D.Command, at now: DecisionTime, _ type: E.Type, sourceLocation: SourceLocation = #_sourceLocation) -> E? {
        #expect(throws: E.self, sourceLocation: sourceLocation) { try when(command, at: now) }
        do { _ = try when(command, at: now) } catch let error as E { return error } catch {}
        return nil
    }
}

/// The form of every draft test, beside the deciders': when this draft (as a client sent it) is
/// read, then exactly this typed input, or exactly these field errors, all in one answer.
struct Reading<Input: ValidatedInput & Equatable> {
    let draft: Input.Draft

    init(_: Input.Type, _ draft: Input.Draft) { self.draft = draft }

    func then(_ expected: Input, sourceLocation: SourceLocation = #_sourceLocation) {
        switch Input.validated(from: draft) {
        case .success(let input): #expect(input == expected, sourceLocation: sourceLocation)
        case .failure(let failure): Issue.record("expected typed input, got \(failure.errors)", sourceLocation: sourceLocation)
        }
    }

    func thenErrors(_ expected: [FieldError], sourceLocation: SourceLocation = #_sourceLocation) {
        switch Input.validated(from: draft) {
        case .success(let input): Issue.record("expected field errors, got \(input)", sourceLocation: sourceLocation)
        case .failure(let failure): #expect(failure.errors == expected, sourceLocation: sourceLocation)
        }
    }
}

/// A draft read as the edge reads it (`CheckedInput`), for the command the API makes of it: the
/// decider then reports the draft's errors with its own.
func read<Input: CheckedInput>(_ draft: Input.Draft) throws -> Checked<Input> { try Checked(reading: draft) }

/// The form of a checked draft's test (`CheckedInput`): when this draft is read, then this typed
/// input with exactly these field errors, which the decider reports with its own, or a refusal
/// at once.
struct Checking<Input: CheckedInput & Equatable> {
    let draft: Input.Draft

    init(_: Input.Type, _ draft: Input.Draft) { self.draft = draft }

    func then(_ expected: Input, errors: [FieldError] = [], sourceLocation: SourceLocation = #_sourceLocation) {
        switch Input.checked(from: draft) {
        case .success(let checked): #expect(checked == Checked(expected, errors: errors), sourceLocation: sourceLocation)
        case .failure(let failure): Issue.record("expected typed input, got \(failure.errors)", sourceLocation: sourceLocation)
        }
    }

    func thenRefused(_ expected: [FieldError], sourceLocation: SourceLocation = #_sourceLocation) {
        switch Input.checked(from: draft) {
        case .success(let checked): Issue.record("expected a refusal, got \(checked)", sourceLocation: sourceLocation)
        case .failure(let failure): #expect(failure.errors == expected, sourceLocation: sourceLocation)
        }
    }
}
