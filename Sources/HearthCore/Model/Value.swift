import Foundation

/// A Firestore value of any of the twelve types (docs/semantics.md#values).
///
/// `==` is *identity*: same type and same bits (so `1 != 1.0`, `NaN == NaN`, `-0.0 != 0.0`);
/// that is what "did this write change the document" needs. Firestore's own equality
/// (`1 == 1.0`) and total order live in `Value.compare` and `Value.firestoreEquals`.
public enum Value: Sendable, Hashable, CustomStringConvertible {
    case null
    case boolean(Bool)
    case integer(Int64)
    case double(Double)
    case timestamp(Timestamp)
    case string(String)
    case bytes(Data)
    indirect case reference(DocumentName)
    case geoPoint(GeoPoint)
    case array([Value])
    case map(MapValue)
    case vector([Double])

    /// The position of the value's type in the cross-type order (docs/semantics.md#value-order).
    public var typeOrder: Int {
        switch self {
        case .null: 0
        case .boolean: 1
        case .integer, .double: 2
        case .timestamp: 3
        case .string: 4
        case .bytes: 5
        case .reference: 6
        case .geoPoint: 7
        case .array: 8
        case .vector: 9
        case .map: 10
        }
    }

    /// The type's name as used in messages and rules (`"int"`, `"map"`…).
    public var typeName: String {
        switch self {
        case .null: "null"
        case .boolean: "bool"
        case .integer: "int"
        case .double: "float"
        case .timestamp: "timestamp"
        case .string: "string"
        case .bytes: "bytes"
        case .reference: "path"
        case .geoPoint: "latlng"
        case .array: "list"
        case .vector: "vector"
        case .map: "map"
        }
    }

    public var isNumber: Bool {
        switch self {
        case .integer, .double: true
        default: false
        }
    }

    public var isNaN: Bool {
        if case .double(let d) = self { return d.isNaN }
        return false
    }

    public var mapValue: MapValue? {
        if case .map(let m) = self { return m }
        return nil
    }

    public var arrayValue: [Value]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public static func == (a: Value, b: Value) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.boolean(x), .boolean(y)): return x == y
        case let (.integer(x), .integer(y)): return x == y
        case let (.double(x), .double(y)): return x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)
        case let (.timestamp(x), .timestamp(y)): return x == y
        case let (.string(x), .string(y)): return utf8Equal(x, y)
        case let (.bytes(x), .bytes(y)): return x == y
        case let (.reference(x), .reference(y)): return x == y
        case let (.geoPoint(x), .geoPoint(y)):
            return x.latitude.bitPattern == y.latitude.bitPattern && x.longitude.bitPattern == y.longitude.bitPattern
        case let (.array(x), .array(y)): return x == y
        case let (.map(x), .map(y)): return x == y
        case let (.vector(x), .vector(y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.bitPattern == $1.bitPattern || ($0.isNaN && $1.isNaN) }
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(typeOrder)
        switch self {
        case .null: break
        case .boolean(let b): hasher.combine(b)
        case .integer(let i): hasher.combine(0 as UInt8); hasher.combine(i)
        case .double(let d): hasher.combine(1 as UInt8); hasher.combine(d.isNaN ? Double.nan.bitPattern : d.bitPattern)
        case .timestamp(let t): hasher.combine(t)
        case .string(let s): hashUTF8(s, into: &hasher)
        case .bytes(let d): hasher.combine(d)
        case .reference(let r): hasher.combine(r)
        case .geoPoint(let g): hasher.combine(g.latitude.bitPattern); hasher.combine(g.longitude.bitPattern)
        case .array(let a): hasher.combine(a)
        case .map(let m): hasher.combine(m)
        case .vector(let v): hasher.combine(v.count); for d in v { hasher.combine(d.isNaN ? Double.nan.bitPattern : d.bitPattern) }
        }
    }

    public var description: String {
        switch self {
        case .null: return "null"
        case .boolean(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .double(let d): return d.isNaN ? "NaN" : String(d)
        case .timestamp(let t): return t.rfc3339
        case .string(let s): return "\"\(s)\""
        case .bytes(let d): return "b\"\(d.base64EncodedString())\""
        case .reference(let r): return r.description
        case .geoPoint(let g): return g.description
        case .array(let a): return "[" + a.map(\.description).joined(separator: ", ") + "]"
        case .map(let m): return m.description
        case .vector(let v): return "vector(\(v))"
        }
    }
}

/// A database within a project: `projects/<project>/databases/<database>`.
public struct DatabaseID: Sendable, Hashable, CustomStringConvertible {
    public var project: String
    public var database: String

    public static let defaultDatabase = "(default)"

    public init(project: String, database: String = DatabaseID.defaultDatabase) {
        self.project = project
        self.database = database
    }

    /// `projects/p/databases/d`
    public var name: String { "projects/\(project)/databases/\(database)" }
    public var description: String { name }

    /// `projects/p/databases/d/documents/<path>` (or `…/documents` for the root).
    public func resourceName(_ path: ResourcePath) -> String {
        // Copied piece by piece into one String made at its final size: two nested
        // interpolations and a joined path were ~13,000 instructions a REST answer (which
        // names its document), and appending to a String ~300 a piece.
        var count = 30 + project.utf8.count + database.utf8.count  // "projects/", "/databases/", "/documents"
        for segment in path.segments { count += 1 + segment.utf8.count }
        return String(unsafeUninitializedCapacity: count) { buffer in
            var at = 0
            func put(_ text: String) {
                var text = text
                text.withUTF8 { bytes in
                    _ = UnsafeMutableBufferPointer(rebasing: buffer[at..<(at + bytes.count)]).initialize(fromContentsOf: bytes)
                    at += bytes.count
                }
            }
            func putLiteral(_ text: StaticString) {
                let bytes = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
                _ = UnsafeMutableBufferPointer(rebasing: buffer[at..<(at + bytes.count)]).initialize(fromContentsOf: bytes)
                at += bytes.count
            }
            putLiteral("projects/")
            put(project)
            putLiteral("/databases/")
            put(database)
            putLiteral("/documents")
            for segment in path.segments {
                putLiteral("/")
                put(segment)
            }
            return at
        }
    }
}

/// The full name of a document, as stored in reference values.
public struct DocumentName: Sendable, Hashable, CustomStringConvertible {
    public var database: DatabaseID
    public var path: ResourcePath

    public init(database: DatabaseID, path: ResourcePath) {
        self.database = database
        self.path = path
    }

    public var description: String { database.resourceName(path) }

    /// Parses `projects/p/databases/d/documents/c/id…` (a request's document name: its ids
    /// are checked where the document is read or written).
    public static func parse(_ name: String) throws(FirestoreError) -> DocumentName {
        let (database, path) = try ResourceName.parse(name, as: .document)
        return DocumentName(database: database, path: path)
    }

    /// Parses a reference value: a document name whose ids are checked here.
    public static func parseReference(_ name: String) throws(FirestoreError) -> DocumentName {
        let (database, path) = try ResourceName.parse(name, as: .reference)
        return DocumentName(database: database, path: path)
    }
}
