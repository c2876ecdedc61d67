import HearthCore
import HearthTransport

/// A request body read as JSON, for every endpoint that takes one (REST, the emulator's own
/// endpoints, the console's API): whatever the content type (the web SDK posts
/// `text/plain`), with production's size cap, and an empty body read as `{}`.
enum JSONRequestBody {
    /// 10 MiB: the most a Firestore API request may carry.
    static let maxBytes = 10 << 20

    static func parse(_ request: HTTPRequest) throws(FirestoreError) -> JSON {
        // Production's cap on any request (the official emulator's own gRPC bridge gives up
        // at 4 MiB instead).
        if request.body.count > maxBytes {
            throw .invalidArgument("Request payload size exceeds the limit: \(maxBytes) bytes.")
        }
        if request.body.allSatisfy({ $0 == 32 || $0 == 10 || $0 == 13 || $0 == 9 }) { return .object([]) }
        do {
            return try JSON.parse(request.body)
        } catch {
            throw .invalidArgument("Invalid JSON payload received. \(error.message) (byte \(error.offset) of the body).")
        }
    }
}
