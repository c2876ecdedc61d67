import HearthCore

/// A request's query string: `name=value` pairs, percent-decoded (`+` stays a plus, as the
/// official emulator reads it; clients write a space as `%20`), with
/// names normalised to lowerCamel per dotted part so `update_mask.field_paths` and
/// `updateMask.fieldPaths` are the same parameter. Repeated names keep every value.
struct QueryParameters {
    private(set) var pairs: [(name: String, value: String)] = []

    init(_ query: Substring) throws(FirestoreError) {
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            let (rawName, rawValue): (Substring, Substring)
            if let eq = part.firstIndex(of: "=") {
                rawName = part[..<eq]
                rawValue = part[part.index(after: eq)...]
            } else {
                rawName = part
                rawValue = ""
            }
            guard let name = PercentDecoding.decode(rawName, plusIsSpace: false),
                  let value = PercentDecoding.decode(rawValue, plusIsSpace: false) else {
                throw .invalidArgument("Invalid percent-encoding in query parameter '\(rawName.prefix(60))'.")
            }
            pairs.append((Self.camel(name), value))
        }
    }

    func first(_ name: String) -> String? { pairs.first { $0.name == name }?.value }

    /// REST reads the query string as the request message's fields: only a `repeated` field
    /// (`repeatable`) may be given twice; any other given twice is the official emulator's
    /// "Payload isn't valid for request." (`pageSize=1&pageSize=2`).
    func checkSingular(except repeatable: Set<String>) throws(FirestoreError) {
        var seen = Set<String>()
        for (name, _) in pairs where !repeatable.contains(name) && !seen.insert(name).inserted {
            throw .invalidArgument("Payload isn't valid for request.")
        }
    }
    func all(_ name: String) -> [String] { pairs.filter { $0.name == name }.map(\.value) }

    static func camel(_ name: String) -> String {
        guard name.utf8.contains(UInt8(ascii: "_")) else { return name }
        return name.split(separator: ".", omittingEmptySubsequences: false).map { part -> String in
            var out = ""
            var upper = false
            for c in part {
                if c == "_" && !out.isEmpty { upper = true; continue }
                out.append(upper ? Character(c.uppercased()) : c)
                upper = false
            }
            return out
        }.joined(separator: ".")
    }

    /// A boolean parameter: true only for the text `true`.
    func bool(_ name: String) -> Bool { first(name) == "true" }

    func int(_ name: String) throws(FirestoreError) -> Int? {
        guard let s = first(name) else { return nil }
        guard let n = Int32(s) else { throw .invalidArgument("Invalid value for query parameter \(name): \"\(s.prefix(40))\" is not an int32.") }
        return Int(n)
    }

    /// A timestamp parameter: RFC 3339 (`readTime=…`) or `name.seconds` / `name.nanos`.
    func timestamp(_ name: String) throws(FirestoreError) -> Timestamp? {
        if let s = first(name) {
            guard let t = Timestamp(rfc3339: s) else {
                throw .invalidArgument("Invalid value for query parameter \(name): \"\(s.prefix(40))\" is not an RFC 3339 timestamp.")
            }
            return t
        }
        let seconds = first(name + ".seconds")
        let nanos = first(name + ".nanos")
        if seconds == nil && nanos == nil { return nil }
        guard let sec = Int64(seconds ?? "0"), let ns = Int32(nanos ?? "0") else {
            throw .invalidArgument("Invalid value for query parameter \(name).seconds / \(name).nanos.")
        }
        return try Timestamp.validated(seconds: sec, nanos: ns)
    }
}

/// Percent-decoding of URL paths and query strings.
enum PercentDecoding {
    /// Nil when an escape is malformed or the result is not UTF-8.
    static func decode<S: StringProtocol>(_ s: S, plusIsSpace: Bool = false) -> String? {
        // Nothing to decode (most paths): no copy of the bytes.
        if !s.utf8.contains(37) && !(plusIsSpace && s.utf8.contains(43)) { return String(s) }
        let utf8 = Array(s.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var i = 0
        while i < utf8.count {
            let b = utf8[i]
            if b == 37 {
                guard i + 2 < utf8.count, let h = hex(utf8[i + 1]), let l = hex(utf8[i + 2]) else { return nil }
                out.append(UInt8(h * 16 + l))
                i += 3
            } else {
                out.append(plusIsSpace && b == 43 ? 32 : b)
                i += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hex(_ b: UInt8) -> Int? {
        switch b {
        case 48...57: Int(b - 48)
        case 65...70: Int(b - 55)
        case 97...102: Int(b - 87)
        default: nil
        }
    }
}
