/// The one error type of the engine: a Firestore status code (the gRPC codes) and the
/// message production Firestore gives. Front ends map it to NSError, HTTP or gRPC status.
public struct FirestoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The canonical gRPC status codes, with their numeric values.
    public enum Code: Int, Sendable, CaseIterable {
        case ok = 0, cancelled = 1, unknown = 2, invalidArgument = 3, deadlineExceeded = 4,
             notFound = 5, alreadyExists = 6, permissionDenied = 7, resourceExhausted = 8,
             failedPrecondition = 9, aborted = 10, outOfRange = 11, unimplemented = 12,
             `internal` = 13, unavailable = 14, dataLoss = 15, unauthenticated = 16

        /// The upper-case name used by gRPC and REST (`"INVALID_ARGUMENT"`).
        public var name: String {
            switch self {
            case .ok: "OK"
            case .cancelled: "CANCELLED"
            case .unknown: "UNKNOWN"
            case .invalidArgument: "INVALID_ARGUMENT"
            case .deadlineExceeded: "DEADLINE_EXCEEDED"
            case .notFound: "NOT_FOUND"
            case .alreadyExists: "ALREADY_EXISTS"
            case .permissionDenied: "PERMISSION_DENIED"
            case .resourceExhausted: "RESOURCE_EXHAUSTED"
            case .failedPrecondition: "FAILED_PRECONDITION"
            case .aborted: "ABORTED"
            case .outOfRange: "OUT_OF_RANGE"
            case .unimplemented: "UNIMPLEMENTED"
            case .internal: "INTERNAL"
            case .unavailable: "UNAVAILABLE"
            case .dataLoss: "DATA_LOSS"
            case .unauthenticated: "UNAUTHENTICATED"
            }
        }
    }

    public var code: Code
    public var message: String
    /// Set only by an injected fault (Faults/): the server's front ends close the
    /// connection instead of answering with the status.
    public var closesConnection = false

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public init(_ code: Code, _ message: String, closesConnection: Bool) {
        self.code = code
        self.message = message
        self.closesConnection = closesConnection
    }

    public var description: String { "\(code.name): \(message)" }

    public static func invalidArgument(_ message: String) -> FirestoreError { .init(.invalidArgument, message) }
}

/// Request-shape errors every front end raises for the same fault, with the official
/// emulator's texts (production's are not known to differ).
extension FirestoreError {
    public static let emptyWriteOperation = FirestoreError(.invalidArgument, "empty write operation")
    public static let missingTransformType = FirestoreError(.invalidArgument, "Operation type must be specified for field transformation.")
    public static let missingAggregationOperator = FirestoreError(.invalidArgument, "Operator field in Aggregation is not set.")
    public static let unsetValue = FirestoreError(.invalidArgument, "Cannot convert firestore.v1.Value with type unset.")
    public static let onlyStructuredQueries = FirestoreError(.invalidArgument, "only structured queries are supported")
    public static let tooManyCollectionSelectors = FirestoreError(.invalidArgument, "StructuredQuery.from cannot have more than one collection selector.")
    public static let negativeLimit = FirestoreError(.invalidArgument, "limit is negative")
    public static let negativeOffset = FirestoreError(.invalidArgument, "offset is negative")
    public static let negativePageSize = FirestoreError(.invalidArgument, "Page size must be nonnegative.")
    public static let invalidPageToken = FirestoreError(.invalidArgument, "invalid page token")
    public static let documentNameSet = FirestoreError(.invalidArgument, "document.name must not be set")
    public static let missingTransaction = FirestoreError(.invalidArgument, "Invalid transaction.")

    /// A filter in a query that names no collection (`field` is the first filtered field).
    public static func kindRequired(forFilterOn field: String) -> FirestoreError {
        FirestoreError(.invalidArgument, "kind is required for filter: \(field)")
    }
}

