import Foundation

/// Typed failures of the event store; the API maps them to HTTP in one place.
public enum EventStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Optimistic concurrency: the stream was not at the version the writer expected.
    case wrongExpectedVersion(stream: String, expected: ExpectedVersion, actual: Int64)
    /// An event id of the batch is already stored, but the batch is not a replay of it.
    case eventIdConflict(stream: String)
    /// The stream exists and belongs to another owner.
    case streamOwnedByAnotherOwner(stream: String)
    case emptyAppend
    /// The append ran in a transaction that had already written; the read order needs it first.
    case appendNotFirstWrite
    /// An event payload or metadata is not a JSON object.
    case invalidEventData(String)
    /// The owner's data key was deleted (the account was erased): nothing more is written for them.
    case ownerErased(UUID)

    public var description: String {
        switch self {
        case let .wrongExpectedVersion(stream, expected, actual):
            "stream \(stream) is at version \(actual), expected \(expected)"
        case let .eventIdConflict(stream):
            "an event id appended to \(stream) is already stored as a different event"
        case let .streamOwnedByAnotherOwner(stream):
            "stream \(stream) belongs to another owner"
        case .emptyAppend:
            "an append needs at least one event"
        case .appendNotFirstWrite:
            "an append must be the first write of its transaction"
        case let .invalidEventData(reason):
            "invalid event data: \(reason)"
        case let .ownerErased(owner):
            "owner \(owner) was erased; nothing more is stored for them"
        }
    }
}
