import HearthCore
import HearthTransport

extension FirestoreError.Code {
    /// The HTTP status google/rpc/code.proto maps this code to (docs/protocol.md#rest-errors).
    public var httpStatus: Int {
        switch self {
        case .ok: 200
        case .cancelled: 499
        case .unknown, .internal, .dataLoss: 500
        case .invalidArgument, .failedPrecondition, .outOfRange: 400
        case .deadlineExceeded: 504
        case .notFound: 404
        case .alreadyExists, .aborted: 409
        case .permissionDenied: 403
        case .unauthenticated: 401
        case .resourceExhausted: 429
        case .unimplemented: 501
        case .unavailable: 503
        }
    }
}

extension FirestoreError {
    /// `{"error": {"code": <HTTP status>, "message": …, "status": "<CODE>"}}` with that status.
    public var httpResponse: HTTPResponse {
        // proto3 JSON leaves an empty message out (the official emulator's 500 UNKNOWN has none).
        let body: JSON = .object([("error", .object(
            [("code", .int(code.httpStatus))] + (message.isEmpty ? [] : [("message", .string(message))]) + [("status", .string(code.name))]
        ))])
        return .json(code.httpStatus, body.bytes)
    }
}
