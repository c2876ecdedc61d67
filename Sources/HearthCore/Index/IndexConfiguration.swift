import Foundation

/// The content of a `firestore.indexes.json` file (Firebase CLI format, docs/semantics.md#index-requirements): the
/// declared composite indexes and the single-field index overrides (exemptions).
///
/// Parsing accepts the current format (`order` / `arrayConfig` / `vectorConfig`), the legacy
/// v1beta1 one (`"mode"`, `collectionId`), backtick-quoted field paths, and an explicit
/// trailing `__name__` field. Writing (`json`) produces the canonical file, which parses back
/// to an equal value.
public struct IndexConfiguration: Sendable, Hashable {
    /// Declared composite (and vector) indexes, in file order.
    public var indexes: [IndexDefinition]
    /// Single-field index settings per field, in file order.
    public var fieldOverrides: [FieldOverride]

    /// The single-field indexes of one field of one collection group, replacing the automatic
    /// ones (an empty `indexes` disables them all). Children of the field inherit it.
    public struct FieldOverride: Sendable, Hashable {
        /// One single-field index: its scope and kind (`.ascending`, `.descending` or `.contains`).
        public struct Entry: Sendable, Hashable, CustomStringConvertible {
            public var kind: IndexDefinition.Kind
            public var scope: IndexDefinition.Scope

            public init(_ kind: IndexDefinition.Kind, scope: IndexDefinition.Scope = .collection) {
                self.kind = kind
                self.scope = scope
            }

            public var description: String { "\(kind) [\(scope.rawValue)]" }
        }

        /// What every field gets when no override applies: ascending, descending and
        /// array-contains, collection scope only.
        public static let automaticEntries: [Entry] = [Entry(.ascending), Entry(.descending), Entry(.contains)]

        public var collectionGroup: String
        /// The field; nil is the file's `"*"`: every field of the collection group.
        public var fieldPath: FieldPath?
        public var indexes: [Entry]
        /// Whether the field is the collection group's time-to-live field (kept for round trips).
        public var ttl: Bool

        public init(collectionGroup: String, fieldPath: FieldPath?, indexes: [Entry], ttl: Bool = false) {
            self.collectionGroup = collectionGroup
            self.fieldPath = fieldPath
            self.indexes = indexes
            self.ttl = ttl
        }
    }

    public init(indexes: [IndexDefinition] = [], fieldOverrides: [FieldOverride] = []) {
        self.indexes = indexes
        self.fieldOverrides = fieldOverrides
    }

    /// The indexes this file names outright, which a database builds as soon as it is
    /// configured (or started on documents) and then keeps in step with every commit, so
    /// no query pays for building one: the composite indexes, and the single-field indexes
    /// an override of one exact field lists. Automatic single-field indexes (every other
    /// field) stay built on a query's first use: building all of them for every field would
    /// cost an entry per field of every document. Vector indexes are left out (a nearest-
    /// neighbour search scans; nothing reads a materialised vector index).
    public var declaredDefinitions: [IndexDefinition] {
        var out: [IndexDefinition] = []
        for index in indexes where !index.fields.contains(where: { if case .vector = $0.kind { true } else { false } }) {
            if !out.contains(index) { out.append(index) }
        }
        for o in fieldOverrides {
            guard let path = o.fieldPath else { continue }
            for entry in o.indexes {
                if case .vector = entry.kind { continue }
                let d = IndexDefinition(collectionGroup: o.collectionGroup, scope: entry.scope, fields: [.init(path, entry.kind)])
                if !out.contains(d) { out.append(d) }
            }
        }
        return out
    }

    /// The single-field indexes that apply to `field` in `collectionGroup`: the override of
    /// that exact path, else of its nearest ancestor (children inherit), else the `"*"`
    /// override of the group. nil when no override applies (the automatic indexes).
    public func singleFieldIndexes(collectionGroup: String, field: FieldPath) -> [FieldOverride.Entry]? {
        var best: FieldOverride?
        for o in fieldOverrides where o.collectionGroup == collectionGroup {
            guard let path = o.fieldPath else {
                if best == nil { best = o }
                continue
            }
            guard path.isPrefix(of: field) else { continue }
            if best?.fieldPath.map({ $0.count < path.count }) ?? true { best = o }
        }
        return best?.indexes
    }

    /// Adds a needed index the way `IndexMode.learn` records it: a composite (or vector)
    /// index is appended unless already declared; a single-field one (one non-vector field)
    /// becomes an override of that field that keeps the indexes the field has now and adds
    /// the needed one (an override replaces the automatic indexes, so they are listed too).
    public mutating func insert(_ index: IndexDefinition) {
        if let override = fieldOverride(enabling: index) {
            let existing = fieldOverrides.firstIndex {
                $0.collectionGroup == override.collectionGroup && $0.fieldPath == override.fieldPath
            }
            if let existing { fieldOverrides[existing] = override } else { fieldOverrides.append(override) }
        } else if !indexes.contains(index) {
            indexes.append(index)
        }
    }

    /// For a single-field need, the override of that field that serves it (current indexes of
    /// the field plus the needed one); nil for composite and vector indexes.
    func fieldOverride(enabling index: IndexDefinition) -> FieldOverride? {
        guard index.fields.count == 1, let field = index.fields.first else { return nil }
        if case .vector = field.kind { return nil }
        let exact = fieldOverrides.first { $0.collectionGroup == index.collectionGroup && $0.fieldPath == field.path }
        var entries = singleFieldIndexes(collectionGroup: index.collectionGroup, field: field.path)
            ?? FieldOverride.automaticEntries
        let needed = FieldOverride.Entry(field.kind, scope: index.scope)
        if !entries.contains(needed) { entries.append(needed) }
        return FieldOverride(collectionGroup: index.collectionGroup, fieldPath: field.path, indexes: entries,
                             ttl: exact?.ttl ?? false)
    }
}

// MARK: - Reading

extension IndexConfiguration {
    /// Parses a `firestore.indexes.json` file. Unknown keys are rejected (a misspelt key would
    /// otherwise silently change the meaning), except the Enterprise keys `apiScope`,
    /// `density`, `multiKey` and `unique`, which are ignored. `queryScope` defaults to
    /// `COLLECTION`. A trailing `__name__` field is dropped when its direction is the implied
    /// one (that of the last ordered field, ascending if none) and kept as the last field
    /// otherwise, so `IndexDefinition.nameDescending` always gives the tie-break direction.
    ///
    /// - Throws: INVALID_ARGUMENT naming the offending location, e.g.
    ///   `indexes[2].fields[0]: expected exactly one of "order", "arrayConfig" or "vectorConfig"`.
    public init(json: Data) throws(FirestoreError) {
        let root: JSON
        do {
            root = try JSON.parse(Array(json))
        } catch {
            throw .invalidArgument("firestore.indexes.json is not valid JSON: \(error.message) at byte \(error.offset).")
        }
        let file = try JSONObject(root, at: "")
        try file.checkKeys(["indexes", "fieldOverrides"])
        var indexes: [IndexDefinition] = []
        for (i, item) in try file.array("indexes").enumerated() {
            indexes.append(try Self.parseIndex(JSONObject(item, at: "indexes[\(i)]")))
        }
        var overrides: [FieldOverride] = []
        for (i, item) in try (file.array("fieldOverrides", required: false) ?? []).enumerated() {
            let location = "fieldOverrides[\(i)]"
            let o = try Self.parseOverride(JSONObject(item, at: location))
            if overrides.contains(where: { $0.collectionGroup == o.collectionGroup && $0.fieldPath == o.fieldPath }) {
                throw .invalidArgument("\(location): duplicate override of field \"\(o.fieldPath?.serverFormat ?? "*")\" in collection group \"\(o.collectionGroup)\"")
            }
            overrides.append(o)
        }
        self.init(indexes: indexes, fieldOverrides: overrides)
    }

    private static func parseIndex(_ obj: JSONObject) throws(FirestoreError) -> IndexDefinition {
        try obj.checkKeys(["collectionGroup", "collectionId", "queryScope", "fields"])
        let group = try parseCollectionGroup(obj)
        let scope = try parseScope(obj)
        let items = try obj.array("fields")
        if items.isEmpty { throw obj.error("fields", "expected at least one field") }
        var fields: [IndexDefinition.Field] = []
        for (j, item) in items.enumerated() {
            let f = try JSONObject(item, at: "\(obj.location).fields[\(j)]")
            try f.checkKeys(["fieldPath", "order", "arrayConfig", "vectorConfig", "mode"])
            let path = try parsePath(f, allowWildcard: false)!
            let kind = try parseKind(f, allowVector: true)
            if path.isDocumentName && !isOrdered(kind) {
                throw f.error("", "__name__ can only be indexed with an \"order\"")
            }
            if path.isDocumentName && j != items.count - 1 {
                throw f.error("", "__name__ must be the last field of an index")
            }
            fields.append(IndexDefinition.Field(path, kind))
        }
        return IndexDefinition(collectionGroup: group, scope: scope, fields: fileFields(fields))
    }

    private static func parseOverride(_ obj: JSONObject) throws(FirestoreError) -> FieldOverride {
        try obj.checkKeys(["collectionGroup", "fieldPath", "ttl", "indexes"])
        let group = try parseCollectionGroup(obj)
        let path = try parsePath(obj, allowWildcard: true)
        var ttl = false
        if let value = obj.fields["ttl"] {
            guard case .bool(let b) = value else { throw obj.error("ttl", "expected true or false, got \(describe(value))") }
            ttl = b
        }
        var entries: [FieldOverride.Entry] = []
        for (j, item) in try obj.array("indexes").enumerated() {
            let e = try JSONObject(item, at: "\(obj.location).indexes[\(j)]")
            try e.checkKeys(["queryScope", "order", "arrayConfig", "mode"])
            entries.append(FieldOverride.Entry(try parseKind(e, allowVector: false), scope: try parseScope(e)))
        }
        return FieldOverride(collectionGroup: group, fieldPath: path, indexes: entries, ttl: ttl)
    }

    private static func parseCollectionGroup(_ obj: JSONObject) throws(FirestoreError) -> String {
        // `collectionId` is the legacy (v1beta1) name of the key.
        let key = obj.fields["collectionGroup"] == nil && obj.fields["collectionId"] != nil ? "collectionId" : "collectionGroup"
        let group = try obj.string(key)
        if group.isEmpty || group.utf8.contains(UInt8(ascii: "/")) {
            throw obj.error(key, "expected a collection ID (non-empty, without '/'), got \"\(group)\"")
        }
        return group
    }

    private static func parseScope(_ obj: JSONObject) throws(FirestoreError) -> IndexDefinition.Scope {
        guard obj.fields["queryScope"] != nil else { return .collection }
        let raw = try obj.string("queryScope")
        guard let scope = IndexDefinition.Scope(rawValue: raw) else {
            throw obj.error("queryScope", "expected \"COLLECTION\" or \"COLLECTION_GROUP\", got \"\(raw)\"")
        }
        return scope
    }

    /// A field path in server format; `"*"` (nil) only where `allowWildcard`.
    private static func parsePath(_ obj: JSONObject, allowWildcard: Bool) throws(FirestoreError) -> FieldPath? {
        let raw = try obj.string("fieldPath")
        if allowWildcard && raw == "*" { return nil }
        do {
            return try FieldPath.parseServerFormat(raw)
        } catch {
            throw obj.error("fieldPath", error.message)
        }
    }

    private static func parseKind(_ obj: JSONObject, allowVector: Bool) throws(FirestoreError) -> IndexDefinition.Kind {
        let keys = allowVector ? ["order", "arrayConfig", "vectorConfig", "mode"] : ["order", "arrayConfig", "mode"]
        let present = keys.filter { obj.fields[$0] != nil }
        guard present.count == 1 else {
            throw obj.error("", allowVector
                ? "expected exactly one of \"order\", \"arrayConfig\" or \"vectorConfig\""
                : "expected exactly one of \"order\" or \"arrayConfig\"")
        }
        switch present[0] {
        case "order":
            switch try obj.string("order") {
            case "ASCENDING": return .ascending
            case "DESCENDING": return .descending
            case let raw: throw obj.error("order", "expected \"ASCENDING\" or \"DESCENDING\", got \"\(raw)\"")
            }
        case "arrayConfig":
            let raw = try obj.string("arrayConfig")
            guard raw == "CONTAINS" else { throw obj.error("arrayConfig", "expected \"CONTAINS\", got \"\(raw)\"") }
            return .contains
        case "mode":
            switch try obj.string("mode") {
            case "ASCENDING": return .ascending
            case "DESCENDING": return .descending
            case "ARRAY_CONTAINS": return .contains
            case let raw: throw obj.error("mode", "expected \"ASCENDING\", \"DESCENDING\" or \"ARRAY_CONTAINS\", got \"\(raw)\"")
            }
        default:
            let config = try JSONObject(obj.fields["vectorConfig"], at: "\(obj.location).vectorConfig")
            try config.checkKeys(["dimension", "flat"])
            guard let value = config.fields["dimension"] else { throw config.error("dimension", "missing") }
            guard case .number(let text) = value, let n = Int(text), n > 0 else {
                throw config.error("dimension", "expected a positive integer, got \(describe(value))")
            }
            if let flat = config.fields["flat"] {
                guard case .object = flat else { throw config.error("flat", "expected an object, got \(describe(flat))") }
            }
            return .vector(dimension: n)
        }
    }

    static func isOrdered(_ kind: IndexDefinition.Kind) -> Bool { kind == .ascending || kind == .descending }

    /// Drops a trailing `__name__` whose direction is the implied one (every index ends with
    /// `__name__` in the direction of its last ordered field).
    static func withoutImpliedName(_ fields: [IndexDefinition.Field]) -> [IndexDefinition.Field] {
        guard let last = fields.last, last.path.isDocumentName else { return fields }
        let rest = fields.dropLast()
        return (last.kind == .descending) == IndexDefinition.nameDescending(after: rest) ? Array(rest) : fields
    }

    /// The fields as the file holds them: an index of `__name__` alone keeps it.
    private static func fileFields(_ fields: [IndexDefinition.Field]) -> [IndexDefinition.Field] {
        fields.count > 1 ? withoutImpliedName(fields) : fields
    }

    fileprivate static func describe(_ value: JSON) -> String {
        switch value {
        case .string(let s): "\"\(s)\""
        case .array: "an array"
        case .object: "an object"
        case .null: "null"
        case .bool(let b): "\(b)"
        case .number(let n): n
        }
    }
}

/// A JSON object being read, with its location (`indexes[2].fields[0]`) for messages.
private struct JSONObject {
    /// The members by name (a repeated name: the last one).
    let fields: [String: JSON]
    let location: String

    init(_ value: JSON?, at location: String) throws(FirestoreError) {
        self.location = location
        guard case .object(let members)? = value else {
            let what = value.map(IndexConfiguration.describe) ?? "nothing"
            throw .invalidArgument("\(location.isEmpty ? "firestore.indexes.json" : location): expected an object, got \(what)")
        }
        fields = Dictionary(members, uniquingKeysWith: { _, last in last })
    }

    func error(_ key: String, _ message: String) -> FirestoreError {
        let at = key.isEmpty ? (location.isEmpty ? "firestore.indexes.json" : location)
            : location.isEmpty ? key : "\(location).\(key)"
        return .invalidArgument("\(at): \(message)")
    }

    func checkKeys(_ allowed: Set<String>) throws(FirestoreError) {
        for key in fields.keys.sorted() where !allowed.contains(key) && !Self.ignored.contains(key) {
            throw error("", "unexpected key \"\(key)\"")
        }
    }

    /// Keys that Enterprise / MongoDB-compatible exports add and that mean nothing here.
    private static let ignored: Set<String> = ["apiScope", "density", "multiKey", "unique"]

    func string(_ key: String) throws(FirestoreError) -> String {
        guard let value = fields[key] else { throw error(key, "missing") }
        guard case .string(let s) = value else { throw error(key, "expected a string, got \(IndexConfiguration.describe(value))") }
        return s
    }

    func array(_ key: String) throws(FirestoreError) -> [JSON] { try array(key, required: true)! }

    func array(_ key: String, required: Bool) throws(FirestoreError) -> [JSON]? {
        guard let value = fields[key] else {
            if required { throw error(key, "missing") }
            return nil
        }
        guard case .array(let a) = value else { throw error(key, "expected an array, got \(IndexConfiguration.describe(value))") }
        return a
    }
}

// MARK: - Writing

extension IndexConfiguration {
    /// The canonical `firestore.indexes.json`: two-space indentation, keys in the Firebase
    /// CLI's order (`indexes` then `fieldOverrides`; `collectionGroup`, `queryScope`,
    /// `fields`; `fieldPath` then the mode), entries in their stored order, `__name__` only
    /// where it differs from the implied direction, `ttl` only when true.
    public var json: Data {
        let root = JSON.object([
            ("indexes", .array(indexes.map(Self.node(for:)))),
            ("fieldOverrides", .array(fieldOverrides.map(Self.node(for:)))),
        ])
        return Data(root.prettyBytes)
    }

    /// One `indexes` entry of the file, pretty-printed (used in missing-index messages).
    static func jsonText(of index: IndexDefinition) -> String { node(for: index).prettyText }

    /// One `fieldOverrides` entry of the file, pretty-printed.
    static func jsonText(of override: FieldOverride) -> String { node(for: override).prettyText }

    private static func node(for index: IndexDefinition) -> JSON {
        .object([
            ("collectionGroup", .string(index.collectionGroup)),
            ("queryScope", .string(index.scope.rawValue)),
            ("fields", .array(fileFields(index.fields).map { f in
                .object([("fieldPath", .string(f.path.serverFormat)), mode(f.kind)])
            })),
        ])
    }

    private static func node(for o: FieldOverride) -> JSON {
        var members: [(String, JSON)] = [
            ("collectionGroup", .string(o.collectionGroup)),
            ("fieldPath", .string(o.fieldPath?.serverFormat ?? "*")),
        ]
        if o.ttl { members.append(("ttl", .bool(true))) }
        members.append(("indexes", .array(o.indexes.map { e in
            .object([mode(e.kind), ("queryScope", .string(e.scope.rawValue))])
        })))
        return .object(members)
    }

    private static func mode(_ kind: IndexDefinition.Kind) -> (String, JSON) {
        switch kind {
        case .ascending: ("order", .string("ASCENDING"))
        case .descending: ("order", .string("DESCENDING"))
        case .contains: ("arrayConfig", .string("CONTAINS"))
        case .vector(let d): ("vectorConfig", .object([("dimension", .int(d)), ("flat", .object([]))]))
        }
    }
}
