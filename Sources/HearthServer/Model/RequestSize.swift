import HearthCore

/// Production's cap on one API request, 10 MiB ("Maximum API request size",
/// docs/fidelity.md#limits), applied alike by every front end: a REST or emulator-endpoint
/// body, a unary or server-streaming gRPC request, and each message of a Write stream
/// (gRPC or WebChannel). The official emulator's own gRPC bridge gives up at 4 MiB instead
/// (RESOURCE_EXHAUSTED); known-differences.json lists it. The check is one comparison.
enum RequestSize {
    static let maxBytes = 10 << 20

    static func check(_ byteCount: Int) throws(FirestoreError) {
        if byteCount > maxBytes {
            throw .invalidArgument("Request payload size exceeds the limit: \(maxBytes) bytes.")
        }
    }
}
