import API
import ArgumentParser
import Core
import Domain
import EventStore
import Foundation
import Logging
import PostgresNIO
import Projections

struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "Manage accounts from the server's shell.",
        subcommands: [Create.self, ResetPassword.self, List.self, Erase.self])

    static func withAccounts<T: Sendable>(_ body: @escaping @Sendable (AccountService) async throws -> T) async throws -> T {
        let configuration = try Environment.configuration(signingKeys: true)
        let logger = Environment.logger("lifelog.users", level: .warning)
        return try await Environment.withOwnerClient(configuration, logger: logger) { client in
            do {
                let accounts = try await makeAccountService(client: client, keys: configuration.signingKeys, clock: SystemClock(), logger: logger)
                return try await body(accounts)
            } catch let failure as ValidationFailure {
                throw CLIError(failure.errors.map { "\($0.field) \($0.message)" }.joined(separator: "; "))
            } catch AuthError.emailTaken {
                throw CLIError("an account with this email already exists")
            } catch ResourceError.notFound {
                throw CLIError("no account has this email")
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an account; the password is read from standard input.")
        @Option var email: String
        @Option var name: String?
        @Option(help: "IANA time zone name.") var timezone = "UTC"
        @Option var language: String?
        @Option var currency: String?
        @Flag(help: "Read the password from standard input (required, so it never appears in the process list).")
        var passwordStdin = false

        func run() async throws {
            guard passwordStdin else { throw CLIError("pass --password-stdin and give the password on standard input") }
            guard let password = readLine(strippingNewline: true), !password.isEmpty else { throw CLIError("no password on standard input") }
            let account = try NewAccount.validated(from: AccountDraft(
                email: email, password: password, name: name ?? String(email.split(separator: "@").first ?? "user"),
                timezone: timezone, language: language, currency: currency?.uppercased())).get()
            let user = try await UsersCommand.withAccounts { accounts in try await accounts.sessions.register(account).0 }
            print("created \(user.profile.email) (\(user.id.uuidString.lowercased()))")
        }
    }

    struct ResetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give an account a new random password (printed once) and end all its sessions.")
        @Option var email: String

        func run() async throws {
            let email = self.email
            let password = try await UsersCommand.withAccounts { accounts in try await accounts.operators.resetPassword(email: email) }
            print(password)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List accounts.")

        func run() async throws {
            let users = try await UsersCommand.withAccounts { accounts in try await accounts.operators.listUsers() }
            let formatter = ISO8601DateFormatter()
            for user in users {
                print("\(user.id.uuidString.lowercased())  \(user.email)  \(user.name)  \(formatter.string(from: user.createdAt))")
            }
        }
    }

    struct Erase: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Erase an account for good: its data key is deleted (the log keeps nothing readable of it) and every row of it goes.")
        @Option var email: String
        @Flag(help: "Do not ask for confirmation.") var yes = false

        func run() async throws {
            let email = self.email
            if !yes {
                guard isatty(0) == 1 else { throw CLIError("pass --yes to erase without a terminal to confirm on") }
                FileHandle.standardError.write(Data("Erase \(email) and everything it owns, for good? Type the email again to confirm: ".utf8))
                guard readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces).lowercased() == email.lowercased() else {
                    throw CLIError("not confirmed; nothing was erased")
                }
            }
            let id = try await UsersCommand.withAccounts { accounts in
                do {
                    return try await accounts.erasure.erase(email: email)
                } catch ErasureStore.Failure.plainEventsRemain {
                    throw CLIError("this account has events stored before payloads were sealed; run `lifelog migrate` first")
                }
            }
            print("erased \(id.uuidString.lowercased())")
        }
    }
}
