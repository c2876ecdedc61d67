@_spi(Fuzzing) import HearthTransport

/// Entry points for the libFuzzer targets in `Fuzz/` (docs/reliability.md#fuzzing); see
/// HearthTransport's `TransportFuzzing`. `@_spi(Fuzzing)`: not part of the module's API.
@_spi(Fuzzing) public enum GRPCFuzzing {
    /// gRPC length-prefixed messages from request body pieces, compressed ones gunzipped
    /// (the first byte picks the request's `grpc-encoding`: none, identity, gzip or another),
    /// with a 64 KiB message limit so the over-limit paths are reachable.
    public static func messages(_ data: [UInt8]) -> Int {
        guard let first = data.first else { return 0 }
        let encodings: [String?] = [nil, "identity", "gzip", "deflate"]
        var reader = GRPCMessageReader(maxMessageSize: 64 * 1024, encoding: encodings[Int(first % 4)])
        var produced = 0
        for piece in TransportFuzzing.pieces(Array(data.dropFirst())) {
            reader.append(piece)
            do {
                while let message = try reader.next() { produced += message.count + 1 }
            } catch {
                return produced + error.message.count
            }
        }
        return produced + reader.bytesToCompleteMessage + (reader.hasPartialMessage ? 1 : 0)
    }

    /// A gzip member (header flags, deflate stored/fixed/dynamic blocks, trailer CRC and
    /// length) under a 1 MiB output limit.
    public static func gunzip(_ data: [UInt8]) -> Int {
        do {
            return try Gzip.decompress(data, limit: 1 << 20).count
        } catch {
            return error.reason.count + (error.tooLarge ? 1 : 0)
        }
    }
}
