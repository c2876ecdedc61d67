import Foundation
import Testing
@testable import HearthCore

/// The export fixtures: exports made by the official emulator 1.19.9 and what it read back
/// through REST (Fixtures/README.md says what each holds).
enum ExportFixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path

    static func path(_ relative: String) -> String { relative.hasPrefix("/") ? relative : (root as NSString).appendingPathComponent(relative) }

    /// Every document an export holds, by full resource name.
    static func read(_ relative: String) throws -> [String: MapValue] {
        let reader = try #require(try ExportReader.open(path(relative)))
        var out: [String: MapValue] = [:]
        try reader.forEach { (d: ExportedDocument) throws(FirestoreError) in out[d.database.resourceName(d.path)] = d.fields }
        return out
    }

    /// A REST documents list (`[{name, fields}]`, Value JSON) by resource name.
    static func restDocuments(_ relative: String) throws -> [String: MapValue] {
        let json = try JSON.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path(relative)))))
        return try restDocuments(json)
    }

    static func restDocuments(_ json: JSON) throws -> [String: MapValue] {
        var out: [String: MapValue] = [:]
        for doc in json.arrayValue ?? [] {
            let name = try #require(doc["name"]?.stringValue)
            out[name] = try restFields(doc["fields"] ?? .object([]))
        }
        return out
    }

    static func restFields(_ json: JSON) throws -> MapValue {
        guard case .object(let pairs) = json else { return MapValue() }
        return MapValue(try pairs.map { ($0.0, try restValue($0.1)) })
    }

    /// REST's Value JSON → Value (a `__vector__` map becomes a vector, as the engine stores it).
    static func restValue(_ json: JSON) throws -> Value {
        struct Malformed: Error { let json: JSON }
        func need<T>(_ v: T?) throws -> T { guard let v else { throw Malformed(json: json) }; return v }
        guard case .object(let pairs) = json, let (type, v) = pairs.first else { return .null }
        switch type {
        case "nullValue": return .null
        case "booleanValue": if case .bool(let b) = v { return .boolean(b) }
        case "integerValue": return .integer(try need(Int64(try need(v.stringValue))))
        case "doubleValue":
            switch v {
            case .number(let n): return .double(try need(Double(n)))
            case .string(let s): return .double(s == "NaN" ? .nan : s == "Infinity" ? .infinity : -.infinity)
            default: break
            }
        case "timestampValue": return .timestamp(try need(Timestamp(rfc3339: try need(v.stringValue))))
        case "stringValue": return .string(try need(v.stringValue))
        case "bytesValue": return .bytes(try need(Data(base64Encoded: try need(v.stringValue))))
        case "referenceValue": return .reference(try DocumentName.parse(try need(v.stringValue)))
        case "geoPointValue":
            func number(_ key: String) -> Double { if case .number(let n)? = v[key] { return Double(n) ?? 0 }; return 0 }
            return .geoPoint(GeoPoint(latitude: number("latitude"), longitude: number("longitude")))
        case "arrayValue": return .array(try (v["values"]?.arrayValue ?? []).map(restValue))
        case "mapValue":
            let fields = try restFields(v["fields"] ?? .object([]))
            if fields.count == 2, fields["__type__"] == .string("__vector__"), case .array(let items)? = fields["value"] {
                return .vector(items.map { if case .double(let d) = $0 { d } else if case .integer(let i) = $0 { Double(i) } else { .nan } })
            }
            return .map(fields)
        default: break
        }
        Issue.record("unexpected REST value \(json)")
        return .null
    }

    /// A scratch directory, removed by the caller.
    static func temporaryDirectory(_ label: String = "export") throws -> String {
        let dir = (NSTemporaryDirectory() as NSString).appendingPathComponent("hearth-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// The records of a log file.
    static func records(_ path: String) throws -> [[UInt8]] {
        let log = try LogReader(path: path)
        var out: [[UInt8]] = []
        while let r = try log.next() { out.append(r) }
        return out
    }

    /// Files of an export (relative paths), recursively.
    static func files(under dir: String) -> [String] {
        (FileManager.default.enumerator(atPath: dir)?.allObjects as? [String] ?? []).filter {
            var isDir: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: (dir as NSString).appendingPathComponent($0), isDirectory: &isDir)
            return exists && !isDir.boolValue
        }.sorted()
    }
}
