import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO
import Projections

/// What every area's service starts from: the command path over the log, the users' settings
/// (a decision is made in the user's calendar), the clock, and the database client and logger
/// its read model is built on. Built once, in `Services`, and handed to every service: one
/// value instead of the same constructor lines in each.
public struct ServiceBasis: Sendable {
    let commands: CommandPath
    let users: AccountsReadModel
    let clock: any WallClock
    let client: PostgresClient
    let logger: Logger

    public init(store: PostgresEventStore, clock: any WallClock, logger: Logger) {
        commands = CommandPath(store: store)
        users = AccountsReadModel(client: store.client, logger: logger)
        self.clock = clock
        client = store.client
        self.logger = logger
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
