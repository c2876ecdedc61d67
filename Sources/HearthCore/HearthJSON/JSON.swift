import Foundation

/// JSON as Hearth reads and writes it everywhere (REST bodies, Hearth JSON seeds, rules
/// test cases). Numbers keep their source text, so int64 values and doubles are never
/// rounded through a binary double on the way in; objects keep their key order.
public indirect enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number's literal text (on output: written as is).
    case number(String)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    public static func == (a: JSON, b: JSON) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case let (.bool(x), .bool(y)): x == y
        case let (.number(x), .number(y)): x == y
        case let (.string(x), .string(y)): x == y
        case let (.array(x), .array(y)): x == y
        case let (.object(x), .object(y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// The member `key` of an object (the last one if repeated).
    public subscript(key: String) -> JSON? {
        if case .object(let pairs) = self { return pairs.last { $0.0 == key }?.1 }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var arrayValue: [JSON]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// A JSON number for an integer.
    public static func int<I: BinaryInteger>(_ i: I) -> JSON { .number(String(i)) }

    /// A JSON number for a finite double (callers write NaN/±∞ as strings themselves).
    public static func double(_ d: Double) -> JSON {
        if d == d.rounded(), abs(d) < 1e15 {
            return .number(d.sign == .minus && d == 0 ? "-0.0" : String(format: "%.1f", d))
        }
        return .number(d.description)
    }

    // MARK: Writing

    /// The compact serialisation.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        // A document's answer is most of a kilobyte: grown from 256 it was copied twice.
        out.reserveCapacity(1024)
        write(into: &out)
        return out
    }

    public func write(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.utf8)
        case .string(let s): Self.writeString(s, into: &out)
        case .array(let a):
            out.append(91)
            for (i, e) in a.enumerated() {
                if i > 0 { out.append(44) }
                e.write(into: &out)
            }
            out.append(93)
        case .object(let pairs):
            out.append(123)
            for (i, (k, v)) in pairs.enumerated() {
                if i > 0 { out.append(44) }
                Self.writeString(k, into: &out)
                out.append(58)
                v.write(into: &out)
            }
            out.append(125)
        }
    }

    /// The serialisation with two-space indentation and a final newline (files people read).
    public var prettyBytes: [UInt8] {
        var out: [UInt8] = []
        writePretty(into: &out, indent: 0)
        out.append(10)
        return out
    }

    /// The serialisation with two-space indentation, without a final newline (a snippet
    /// quoted in a message).
    public var prettyText: String {
        var out: [UInt8] = []
        writePretty(into: &out, indent: 0)
        return String(decoding: out, as: UTF8.self)
    }

    private func writePretty(into out: inout [UInt8], indent: Int) {
        func newline(_ level: Int) {
            out.append(10)
            out.append(contentsOf: repeatElement(32, count: 2 * level))
        }
        switch self {
        case .array(let a) where !a.isEmpty:
            out.append(91)
            for (i, e) in a.enumerated() {
                if i > 0 { out.append(44) }
                newline(indent + 1)
                e.writePretty(into: &out, indent: indent + 1)
            }
            newline(indent)
            out.append(93)
        case .object(let pairs) where !pairs.isEmpty:
            out.append(123)
            for (i, (k, v)) in pairs.enumerated() {
                if i > 0 { out.append(44) }
                newline(indent + 1)
                Self.writeString(k, into: &out)
                out.append(contentsOf: [58, 32])
                v.writePretty(into: &out, indent: indent + 1)
            }
            newline(indent)
            out.append(125)
        default:
            write(into: &out)
        }
    }

    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(34)
        // Most strings (names, ids, timestamps) need no escape: one look at the bytes and
        // one copy, where appending byte by byte cost ~50 instructions a byte (a REST answer
        // writes several hundred).
        var text = s
        let copied = text.withUTF8 { bytes -> Bool in
            guard !bytes.contains(where: { $0 < 32 || $0 == 34 || $0 == 92 }) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if copied {
            out.append(34)
            return
        }
        for b in s.utf8 {
            switch b {
            case 34: out.append(92); out.append(34)
            case 92: out.append(92); out.append(92)
            case 10: out.append(92); out.append(110)
            case 13: out.append(92); out.append(114)
            case 9: out.append(92); out.append(116)
            case 0..<32:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [92, 117, 48, 48, hex[Int(b >> 4)], hex[Int(b & 15)]])
            default: out.append(b)
            }
        }
        out.append(34)
    }

    // MARK: Reading

    /// Why a body is not valid JSON, with the byte offset.
    public struct SyntaxError: Error, Sendable, CustomStringConvertible {
        public let offset: Int
        public let message: String
        public var description: String { "\(message) at byte \(offset)" }
    }

    /// Parses one JSON value (surrounding whitespace allowed). Nesting deeper than
    /// `maxDepth` is an error, so hostile input cannot exhaust the stack.
    public static func parse(_ text: String, maxDepth: Int = 200) throws(SyntaxError) -> JSON {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }

    public static func parse(_ bytes: [UInt8], maxDepth: Int = 200) throws(SyntaxError) -> JSON {
        try bytes.withUnsafeBufferPointer { (buf) throws(SyntaxError) -> JSON in
            var reader = JSONReader(bytes: buf, maxDepth: maxDepth)
            reader.skipWhitespace()
            let value = try reader.value(depth: 0)
            reader.skipWhitespace()
            guard reader.at == buf.count else { throw SyntaxError(offset: reader.at, message: "Unexpected trailing data") }
            return value
        }
    }
}

private struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var at = 0

    mutating func skipWhitespace() {
        while at < bytes.count, bytes[at] == 32 || bytes[at] == 10 || bytes[at] == 13 || bytes[at] == 9 { at += 1 }
    }

    func fail(_ message: String) -> JSON.SyntaxError { JSON.SyntaxError(offset: at, message: message) }

    mutating func value(depth: Int) throws(JSON.SyntaxError) -> JSON {
        guard depth < maxDepth else { throw fail("JSON nested too deeply") }
        guard at < bytes.count else { throw fail("Unexpected end of JSON") }
        switch bytes[at] {
        case 123: // {
            at += 1
            var pairs: [(String, JSON)] = []
            skipWhitespace()
            if at < bytes.count, bytes[at] == 125 { at += 1; return .object(pairs) }
            while true {
                skipWhitespace()
                guard at < bytes.count, bytes[at] == 34 else { throw fail("Expected a string key") }
                let key = try string()
                skipWhitespace()
                guard at < bytes.count, bytes[at] == 58 else { throw fail("Expected ':'") }
                at += 1
                skipWhitespace()
                pairs.append((key, try value(depth: depth + 1)))
                skipWhitespace()
                guard at < bytes.count else { throw fail("Unexpected end of JSON") }
                if bytes[at] == 44 { at += 1; continue }
                if bytes[at] == 125 { at += 1; return .object(pairs) }
                throw fail("Expected ',' or '}'")
            }
        case 91: // [
            at += 1
            var items: [JSON] = []
            skipWhitespace()
            if at < bytes.count, bytes[at] == 93 { at += 1; return .array(items) }
            while true {
                skipWhitespace()
                items.append(try value(depth: depth + 1))
                skipWhitespace()
                guard at < bytes.count else { throw fail("Unexpected end of JSON") }
                if bytes[at] == 44 { at += 1; continue }
                if bytes[at] == 93 { at += 1; return .array(items) }
                throw fail("Expected ',' or ']'")
            }
        case 34:
            return .string(try string())
        case 116: try literal("true"); return .bool(true)
        case 102: try literal("false"); return .bool(false)
        case 110: try literal("null"); return .null
        case 45, 48...57:
            return .number(try number())
        default:
            throw fail("Unexpected character")
        }
    }

    mutating func literal(_ word: StaticString) throws(JSON.SyntaxError) {
        let n = word.utf8CodeUnitCount
        guard at + n <= bytes.count else { throw fail("Invalid literal") }
        let p = word.utf8Start
        for i in 0..<n where bytes[at + i] != p[i] { throw fail("Invalid literal") }
        at += n
    }

    mutating func number() throws(JSON.SyntaxError) -> String {
        let begin = at
        if bytes[at] == 45 { at += 1 }
        func digits(_ r: inout JSONReader) -> Int {
            let s = r.at
            while r.at < r.bytes.count, r.bytes[r.at] >= 48, r.bytes[r.at] <= 57 { r.at += 1 }
            return r.at - s
        }
        guard at < bytes.count else { throw fail("Invalid number") }
        if bytes[at] == 48 { at += 1 } else if digits(&self) == 0 { throw fail("Invalid number") }
        if at < bytes.count, bytes[at] == 46 {
            at += 1
            guard digits(&self) > 0 else { throw fail("Invalid number") }
        }
        if at < bytes.count, bytes[at] == 101 || bytes[at] == 69 {
            at += 1
            if at < bytes.count, bytes[at] == 43 || bytes[at] == 45 { at += 1 }
            guard digits(&self) > 0 else { throw fail("Invalid number") }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[begin..<at]), as: UTF8.self)
    }

    mutating func string() throws(JSON.SyntaxError) -> String {
        at += 1
        let begin = at
        // Fast path: no escapes.
        while at < bytes.count {
            let b = bytes[at]
            if b == 34 {
                let slice = UnsafeBufferPointer(rebasing: bytes[begin..<at])
                at += 1
                guard let s = String(validating: slice, as: UTF8.self) else { throw fail("Invalid UTF-8 in string") }
                return s
            }
            if b == 92 || b < 32 { break }
            at += 1
        }
        var out: [UInt8] = Array(UnsafeBufferPointer(rebasing: bytes[begin..<at]))
        while at < bytes.count {
            let b = bytes[at]
            if b == 34 {
                at += 1
                guard let s = String(validating: out, as: UTF8.self) else { throw fail("Invalid UTF-8 in string") }
                return s
            }
            if b < 32 { throw fail("Control character in string") }
            if b != 92 { out.append(b); at += 1; continue }
            at += 1
            guard at < bytes.count else { break }
            let e = bytes[at]
            at += 1
            switch e {
            case 34: out.append(34)
            case 92: out.append(92)
            case 47: out.append(47)
            case 98: out.append(8)
            case 102: out.append(12)
            case 110: out.append(10)
            case 114: out.append(13)
            case 116: out.append(9)
            case 117:
                var code = try hex4()
                if code >= 0xD800 && code < 0xDC00 {
                    guard at + 1 < bytes.count, bytes[at] == 92, bytes[at + 1] == 117 else { throw fail("Unpaired surrogate") }
                    at += 2
                    let low = try hex4()
                    guard low >= 0xDC00 && low < 0xE000 else { throw fail("Unpaired surrogate") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if code >= 0xDC00 && code < 0xE000 {
                    throw fail("Unpaired surrogate")
                }
                guard let scalar = Unicode.Scalar(code) else { throw fail("Invalid escape") }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            default:
                throw fail("Invalid escape")
            }
        }
        throw fail("Unterminated string")
    }

    mutating func hex4() throws(JSON.SyntaxError) -> UInt32 {
        guard at + 4 <= bytes.count else { throw fail("Invalid \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[at]
            let d: UInt32
            switch b {
            case 48...57: d = UInt32(b - 48)
            case 65...70: d = UInt32(b - 55)
            case 97...102: d = UInt32(b - 87)
            default: throw fail("Invalid \\u escape")
            }
            v = v * 16 + d
            at += 1
        }
        return v
    }
}
