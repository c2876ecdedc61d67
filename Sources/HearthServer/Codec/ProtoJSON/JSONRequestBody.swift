import HearthCore
import HearthTransport

/// A request body read as JSON, for every endpoint that takes one (REST, the emulator's own
/// endpoints, the console's API): whatever the content type (the web SDK posts
/// `text/plain`), with production's size cap, and an empty body read as `{}`.
enum JSONRequestBody {
    static func parse(_ request: HTTPRequest) throws(FirestoreError) -> JSON {
        try RequestSize.check(request.body.count)
        if request.body.allSatisfy({ $0 == 32 || $0 == 10 || $0 == 13 || $0 == 9 }) { return .object([]) }
        do {
            return try JSON.parse(request.body)
        } catch {
            throw .invalidArgument("Invalid JSON payload received. \(error.message) (byte \(error.offset) of the body).")
        }
    }
}
