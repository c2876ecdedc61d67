import Foundation
import HearthCore

/// The parts of a `firebase.json` the Firestore emulator uses:
///
/// ```json
/// {"firestore": {"rules": "firestore.rules", "indexes": "firestore.indexes.json"},
///  "emulators": {"firestore": {"host": "127.0.0.1", "port": 8080}}}
/// ```
///
/// or the list form, one entry per database, each with its own rules and indexes:
/// `"firestore": [{"database": "(default)", "rules": "…", "indexes": "…"}, {"database": "x", …}]`.
/// Paths are relative to the file's folder. Everything else in the file is ignored.
public struct FirebaseConfig: Sendable, Equatable {
    public struct DatabaseEntry: Sendable, Equatable {
        /// `(default)` unless named.
        public var database: String
        public var rules: String?
        public var indexes: String?
    }

    public var databases: [DatabaseEntry] = []
    /// The list form (one entry per database) rather than one object for the project.
    public var isListForm = false
    public var host: String?
    public var port: Int?

    /// Reads `path`; errors name the file and the offending member.
    public static func load(_ path: String) throws(FirestoreError) -> FirebaseConfig {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .invalidArgument("cannot read \(path)")
        }
        let json: JSON
        do { json = try JSON.parse(Array(data)) } catch {
            throw .invalidArgument("\(path) is not JSON: \(error.message) at byte \(error.offset)")
        }
        return try parse(json, file: path)
    }

    static func parse(_ json: JSON, file: String) throws(FirestoreError) -> FirebaseConfig {
        guard case .object = json else { throw .invalidArgument("\(file): the top level must be an object") }
        let base = (file as NSString).deletingLastPathComponent
        func resolve(_ p: String) -> String { p.hasPrefix("/") ? p : (base as NSString).appendingPathComponent(p) }
        func string(_ j: JSON?, _ at: String) throws(FirestoreError) -> String? {
            guard let j else { return nil }
            guard case .string(let s) = j else { throw .invalidArgument("\(file): \(at) must be a string") }
            return s
        }
        func entry(_ j: JSON, at: String, listForm: Bool) throws(FirestoreError) -> DatabaseEntry {
            guard case .object = j else { throw .invalidArgument("\(file): \(at) must be an object") }
            let database = try string(j["database"], "\(at).database")
            if listForm && database == nil { throw .invalidArgument("\(file): \(at) needs \"database\" (the list form names each database)") }
            return DatabaseEntry(database: database ?? DatabaseID.defaultDatabase,
                                 rules: try string(j["rules"], "\(at).rules").map(resolve),
                                 indexes: try string(j["indexes"], "\(at).indexes").map(resolve))
        }
        var config = FirebaseConfig()
        switch json["firestore"] {
        case nil: break
        case .array(let items)?:
            config.isListForm = true
            for (i, item) in items.enumerated() {
                let e = try entry(item, at: "firestore[\(i)]", listForm: true)
                if config.databases.contains(where: { $0.database == e.database }) {
                    throw .invalidArgument("\(file): firestore[\(i)] repeats database \(e.database)")
                }
                config.databases.append(e)
            }
        case let single?:
            config.databases.append(try entry(single, at: "firestore", listForm: false))
        }
        if let emulator = json["emulators"]?["firestore"] {
            config.host = try string(emulator["host"], "emulators.firestore.host")
            switch emulator["port"] {
            case nil: break
            case .number(let n)?:
                guard let p = Int(n), (0...65535).contains(p) else { throw .invalidArgument("\(file): emulators.firestore.port must be 0…65535, got \(n)") }
                config.port = p
            case .string(let s)?:
                guard let p = Int(s), (0...65535).contains(p) else { throw .invalidArgument("\(file): emulators.firestore.port must be 0…65535, got \"\(s)\"") }
                config.port = p
            default: throw .invalidArgument("\(file): emulators.firestore.port must be a number")
            }
        }
        return config
    }
}
