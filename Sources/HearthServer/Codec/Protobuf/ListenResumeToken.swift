import HearthCore

/// The Listen stream's resume token: the read time it was sent at, as 12 bytes (seconds
/// big-endian, then nanos big-endian). Opaque to clients; a token that does not decode
/// (another server's) resumes nothing, and the target is sent in full after a RESET.
enum ListenResumeToken {
    static func encode(_ t: Timestamp) -> [UInt8] {
        let s = UInt64(bitPattern: t.seconds), n = UInt32(bitPattern: t.nanos)
        return (0..<8).map { UInt8(truncatingIfNeeded: s >> (56 - 8 * UInt64($0))) }
            + (0..<4).map { UInt8(truncatingIfNeeded: n >> (24 - 8 * UInt32($0))) }
    }

    /// The read time of a token, or nil when it is not one of ours.
    static func decode(_ bytes: [UInt8]) -> Timestamp? {
        guard bytes.count == 12 else { return nil }
        let s = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let n = bytes[8..<12].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let seconds = Int64(bitPattern: s), nanos = Int32(bitPattern: n)
        return try? Timestamp.validated(seconds: seconds, nanos: nanos)
    }
}
