@testable import API
@testable import Core
import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO
@testable import Projections
import Testing
import TestSupport

/// Accounts decide on their read model (`AccountsReadModel.decisionState`: the profile and the
/// devices still allowed in), not on a fold of the user's stream. Over random command sequences
/// the loaded state equals the fold of the account's own events (`evolve`) at the same version,
/// and a rebuild of the read model in the middle changes nothing (issue 25 §4).
@Suite struct AccountDecisionStateTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func theReadModelsStateIsTheFoldOfTheStream(seed: UInt64) async throws {
        try await AppHarness.with { harness, http in
            let owner = try #require(try await harness.registeredUser(http, "account-fold-\(seed)@example.com"))
            let accounts = harness.accounts
            let readModel = AccountsReadModel(client: harness.client, logger: TestDatabase.logger)
            let stream = StreamName(id: AccountEvent.streamId(owner), ownerId: owner, type: AccountEvent.streamType)
            var random = CommandSequenceRandom(seed: seed)
            var devices: [UUID] = []
            var compared = 0

            func check(_ step: Int) async throws {
                let loaded = try #require(try await readModel.decisionState(owner), "seed \(seed), step \(step): the account is there")
                let folded = try await accounts.sessions.store.commands.folded(AccountDecider.self, stream)
                compared += 1
                #expect(folded.streamVersion == loaded.version, "seed \(seed), step \(step): versions")
                #expect(folded.state == loaded.account, "seed \(seed), step \(step): the read model's account is not the fold of its stream")
            }

            for step in 0..<30 {
                let context = CommandContext(userId: owner)
                do {
                    switch random.next(5) {
                    case 0:
                        var change = ProfileChange()
                        change.name = "Name \(step)"
                        _ = try await accounts.profiles.update(context, change: change)
                    case 1:
                        var change = ProfileChange()
                        change.timezone = ["Europe/Belgrade", "UTC", "America/New_York"][random.next(3)]
                        change.language = [Language.en, .ru, .sr][random.next(3)]
                        change.weekStart = 1 + random.next(7)
                        _ = try await accounts.profiles.update(context, change: change)
                    case 2, 3:
                        let (device, _) = try await accounts.devices.create(context, NewDevice(name: "Device \(step)", kind: .watch))
                        devices.append(device.id)
                    default:
                        guard !devices.isEmpty else { continue }
                        try await accounts.devices.revoke(context, deviceId: devices.remove(at: random.next(devices.count)))
                    }
                } catch let error as any ProblemDescribing {
                    // A change the rules refuse is part of a random sequence.
                    _ = error
                }
                try await check(step)
                if step == 15 {
                    // Rebuilt from the log halfway: the decisions after it load the same states.
                    try await harness.rebuild(AccountsProjector())
                    try await check(step)
                }
            }
            #expect(compared >= 20, "the sequence compared the account's states (\(compared))")
        }
    }
}
