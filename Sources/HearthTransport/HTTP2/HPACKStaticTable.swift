/// The HPACK static table (RFC 7541 Appendix A), indexes 1…61.
enum HPACKStaticTable {
    static let entries: [(name: String, value: String)] = [
        (":authority", ""),
        (":method", "GET"),
        (":method", "POST"),
        (":path", "/"),
        (":path", "/index.html"),
        (":scheme", "http"),
        (":scheme", "https"),
        (":status", "200"),
        (":status", "204"),
        (":status", "206"),
        (":status", "304"),
        (":status", "400"),
        (":status", "404"),
        (":status", "500"),
        ("accept-charset", ""),
        ("accept-encoding", "gzip, deflate"),
        ("accept-language", ""),
        ("accept-ranges", ""),
        ("accept", ""),
        ("access-control-allow-origin", ""),
        ("age", ""),
        ("allow", ""),
        ("authorization", ""),
        ("cache-control", ""),
        ("content-disposition", ""),
        ("content-encoding", ""),
        ("content-language", ""),
        ("content-length", ""),
        ("content-location", ""),
        ("content-range", ""),
        ("content-type", ""),
        ("cookie", ""),
        ("date", ""),
        ("etag", ""),
        ("expect", ""),
        ("expires", ""),
        ("from", ""),
        ("host", ""),
        ("if-match", ""),
        ("if-modified-since", ""),
        ("if-none-match", ""),
        ("if-range", ""),
        ("if-unmodified-since", ""),
        ("last-modified", ""),
        ("link", ""),
        ("location", ""),
        ("max-forwards", ""),
        ("proxy-authenticate", ""),
        ("proxy-authorization", ""),
        ("range", ""),
        ("referer", ""),
        ("refresh", ""),
        ("retry-after", ""),
        ("server", ""),
        ("set-cookie", ""),
        ("strict-transport-security", ""),
        ("transfer-encoding", ""),
        ("user-agent", ""),
        ("vary", ""),
        ("via", ""),
        ("www-authenticate", ""),
    ]

    static var count: Int { entries.count }

    /// The entries as bytes, for the decoder (an indexed field then costs no allocation).
    static let entryBytes: [(name: [UInt8], value: [UInt8])] = entries.map { (Array($0.name.utf8), Array($0.value.utf8)) }

    /// The entries as header fields, for the decoder.
    static let headers: [HTTP2Header] = entries.map { HTTP2Header($0.name, $0.value) }

    /// Index (1-based) of the first entry with this name and value, if any: by name, then
    /// value (no joined key to build for each field sent).
    static let fullIndex: [String: [String: Int]] = {
        var index: [String: [String: Int]] = [:]
        for (i, e) in entries.enumerated() where index[e.name]?[e.value] == nil {
            index[e.name, default: [:]][e.value] = i + 1
        }
        return index
    }()

    /// Index (1-based) of the first entry with this name, if any.
    static let nameIndex: [String: Int] = {
        var index: [String: Int] = [:]
        for (i, e) in entries.enumerated() where index[e.name] == nil { index[e.name] = i + 1 }
        return index
    }()
}
