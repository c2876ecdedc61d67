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

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.name): \(message)" }

    public static func invalidArgument(_ message: String) -> FirestoreError { .init(.invalidArgument, message) }
}
