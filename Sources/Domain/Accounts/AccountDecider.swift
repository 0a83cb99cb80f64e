import Foundation

/// An account as its rules see it: the profile and the devices still allowed in.
public struct Account: Sendable, Equatable {
    public var userId: UUID
    public var profile: UserProfile
    public var activeDevices: Set<UUID>
    public init(userId: UUID, profile: UserProfile, activeDevices: Set<UUID> = []) {
        self.userId = userId
        self.profile = profile
        self.activeDevices = activeDevices
    }
}

/// What can be asked of an account's stream. Secrets (password hashes, keys) never reach the
/// decider: they are stored beside the events, in the same transaction, by the services.
public enum AccountCommand: Sendable {
    /// The profile a new account starts with (`NewAccount.profile`, its rules read at the edge).
    case register(userId: UUID, profile: UserProfile)
    case changeProfile(ProfileChange)
    case recordPasswordChange(reason: String)
    case registerDevice(id: UUID, NewDevice, via: String)
    case revokeDevice(id: UUID)
}

public enum AccountDecider: Decider {
    public static let initial: Account? = nil

    public static func decide(_ state: Account?, _ command: AccountCommand, _ now: DecisionTime) throws -> [AccountEvent] {
        if case .register(let userId, let profile) = command {
            guard state == nil else { throw ResourceError.conflict("This account already exists.") }
            return [.registered(.init(userId: userId, profile: profile))]
        }
        guard let account = state else { throw ResourceError.notFound }
        switch command {
        case .register:
            return []
        case .changeProfile(let change):
            let (profile, changed) = try change.apply(to: account.profile)
            // Sending what is already there is not a change.
            return changed.isEmpty ? [] : [.profileChanged(.init(userId: account.userId, profile: profile, changedFields: changed))]
        case .recordPasswordChange(let reason):
            return [.passwordChanged(.init(userId: account.userId, reason: reason))]
        case .registerDevice(let id, let device, let via):
            return [.deviceRegistered(.init(userId: account.userId, deviceId: id, name: device.name, kind: device.kind, via: via))]
        case .revokeDevice(let id):
            guard account.activeDevices.contains(id) else { throw ResourceError.notFound }
            return [.deviceRevoked(.init(userId: account.userId, deviceId: id))]
        }
    }

    public static func evolve(_ state: Account?, _ event: AccountEvent) -> Account? {
        if case .registered(let registered) = event {
            return Account(userId: registered.userId, profile: registered.profile)
        }
        guard var account = state else { return state }
        switch event {
        case .registered, .passwordChanged:
            break
        case .profileChanged(let changed):
            account.profile = changed.profile
        case .deviceRegistered(let device):
            account.activeDevices.insert(device.deviceId)
        case .deviceRevoked(let revoked):
            account.activeDevices.remove(revoked.deviceId)
        }
        return account
    }
}
