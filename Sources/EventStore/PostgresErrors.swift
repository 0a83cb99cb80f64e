import PostgresNIO

/// Helpers at the storage boundary: unwrap transaction errors and read SQLSTATEs.
public enum PostgresErrors {
    /// `withTransaction` wraps what its closure threw; hand back the original error.
    public static func unwrap(_ error: any Error) -> any Error {
        if let transactionError = error as? PostgresTransactionError {
            if let inner = transactionError.closureError { return unwrap(inner) }
            if let inner = transactionError.commitError { return unwrap(inner) }
            if let inner = transactionError.beginError { return unwrap(inner) }
        }
        return error
    }

    public static func sqlState(_ error: any Error) -> String? {
        (unwrap(error) as? PSQLError)?.serverInfo?[.sqlState]
    }

    public static func detail(_ error: any Error) -> String? {
        (unwrap(error) as? PSQLError)?.serverInfo?[.detail]
    }

    public static func constraint(_ error: any Error) -> String? {
        (unwrap(error) as? PSQLError)?.serverInfo?[.constraintName]
    }

    public static func message(_ error: any Error) -> String? {
        (unwrap(error) as? PSQLError)?.serverInfo?[.message]
    }

    /// True when the error means the database could not be reached, or is going away or full:
    /// a temporary state (503), not a fault in the request. Besides client-side connection
    /// failures, the server says so with SQLSTATE class 08 (connection exception), 57P01–57P03
    /// (shutting down, crashed, starting up) and 53300 (too many connections).
    public static func isConnectionFailure(_ error: any Error) -> Bool {
        if unwrap(error) is ConnectionClosedBeforeStatement { return true }
        guard let psql = unwrap(error) as? PSQLError else { return false }
        if let state = psql.serverInfo?[.sqlState] {
            return state.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300"].contains(state)
        }
        switch psql.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed:
            return true
        default:
            return String(describing: psql.code).contains("connection") || String(describing: psql.code).contains("Connection")
        }
    }

    public static let uniqueViolation = "23505"
    public static let lockNotAvailable = "55P03"
    public static let wrongExpectedVersion = "LL001"
    public static let eventIdConflict = "LL002"
    public static let streamOwnedByAnotherOwner = "LL003"
    public static let appendOnlyViolation = "LL004"
    public static let appendNotFirstWrite = "LL005"
    public static let ownerErased = "LL006"
}
