import Domain
import EventStore
import Foundation
import Logging
import Projections

/// What every area's service starts from: the command path over the log, the users' settings
/// (a decision is made in the user's calendar) and the clock. One value, built the same way for
/// every service, instead of the same three lines in each initialiser.
public struct ServiceBasis: Sendable {
    let commands: CommandPath
    let users: AccountsReadModel
    let clock: any WallClock

    public init(store: PostgresEventStore, clock: any WallClock, logger: Logger) {
        commands = CommandPath(store: store)
        users = AccountsReadModel(client: store.client, logger: logger)
        self.clock = clock
    }
}

/// An area's service built on a `ServiceBasis`.
protocol AreaService: Sendable {
    var basis: ServiceBasis { get }
}

extension AreaService {
    var commands: CommandPath { basis.commands }
    var users: AccountsReadModel { basis.users }
    var clock: any WallClock { basis.clock }

    /// The user's calendar; a user who is not there is `notFound`.
    func calendar(_ owner: UUID) async throws -> UserCalendar {
        guard let calendar = try await users.calendar(owner) else { throw ResourceError.notFound }
        return calendar
    }
}
