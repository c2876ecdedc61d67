import Foundation

/// Bundle elements ⇄ their JSON. Writing follows the proto3 JSON mapping (`Value.protoJSON`,
/// RFC 3339 times); reading accepts what the mobile SDKs' bundle reader accepts, which is
/// looser than the REST API's request parsing: timestamps as RFC 3339 strings or
/// `{"seconds", "nanos"}` objects, integers as numbers or strings, `limit` as a number or
/// `{"value": n}`, unknown members ignored. What it refuses it reports as the SDK does,
/// DATA_LOSS with the SDK's message, naming the member.
enum BundleJSON {
    // MARK: Reading

    static func element(_ json: JSON, database: DatabaseID) throws(FirestoreError) -> BundleElement {
        guard case .object = json else { throw fail("Failed to parse string into json") }
        if let m = json["metadata"] { return .metadata(try metadata(m)) }
        if let q = json["namedQuery"] { return .namedQuery(try namedQuery(q, database: database)) }
        if let d = json["documentMetadata"] { return .documentMetadata(try documentMetadata(d, database: database)) }
        if let d = json["document"] { return .document(try document(d, database: database)) }
        throw fail("Unrecognized BundleElement")
    }

    static func fail(_ message: String) -> FirestoreError { FirestoreError(.dataLoss, message) }

    private static func metadata(_ j: JSON) throws(FirestoreError) -> BundleMetadata {
        // The SDK's message for a missing integer.
        guard let version = try int("version", j) else { throw fail("'version' is missing or is not a double") }
        return BundleMetadata(id: try requiredString("id", j), createTime: try timestamp(try required("createTime", j)),
                              version: UInt32(clamping: version),
                              totalDocuments: Int(try int("totalDocuments", j) ?? 0), totalBytes: Int(try int("totalBytes", j) ?? 0))
    }

    private static func namedQuery(_ j: JSON, database: DatabaseID) throws(FirestoreError) -> BundleNamedQuery {
        BundleNamedQuery(name: try requiredString("name", j), query: try bundledQuery(try required("bundledQuery", j), database: database),
                         readTime: try timestamp(try required("readTime", j)))
    }

    private static func documentMetadata(_ j: JSON, database: DatabaseID) throws(FirestoreError) -> BundledDocumentMetadata {
        let path = try documentPath(try required("name", j), database: database)
        var queries: [String] = []
        for q in try optionalArray("queries", j) {
            guard case .string(let s) = q else { throw fail("Query name should be encoded as string") }
            queries.append(s)
        }
        return BundledDocumentMetadata(path: path, readTime: try timestamp(try required("readTime", j)),
                                       exists: bool("exists", j), queries: queries)
    }

    private static func document(_ j: JSON, database: DatabaseID) throws(FirestoreError) -> Document {
        let path = try documentPath(try required("name", j), database: database)
        let update = try timestamp(try required("updateTime", j))
        let create = try j["createTime"].map { t throws(FirestoreError) in try timestamp(t) } ?? update
        return Document(path: path, fields: try fields(j["fields"], database: database), createTime: create, updateTime: update)
    }

    /// `projects/<p>/databases/<d>/documents/<path>` of this database, as a path.
    private static func name(_ j: JSON, database: DatabaseID) throws(FirestoreError) -> ResourcePath {
        guard case .string(let s) = j else { throw fail("Document name is not a string.") }
        let prefix = database.resourceName(.root)
        guard s == prefix || s.hasPrefix(prefix + "/") else {
            throw fail("Resource name is not valid for current instance: \(s)")
        }
        let rest = s.dropFirst(prefix.count).drop { $0 == "/" }
        if rest.isEmpty { return .root }
        do { return try ResourcePath.parse(String(rest)) } catch { throw fail("Resource name is not valid for current instance: \(s)") }
    }

    private static func documentPath(_ j: JSON, database: DatabaseID) throws(FirestoreError) -> ResourcePath {
        let path = try name(j, database: database)
        guard path.isDocument else { throw fail("Resource name is not a valid document key: \(path)") }
        return path
    }

    // MARK: Queries

    private static func bundledQuery(_ j: JSON, database: DatabaseID) throws(FirestoreError) -> BundledQuery {
        let q = try required("structuredQuery", j)
        guard case .object = q else { throw fail("'structuredQuery' is not an object as expected.") }
        if q["select"] != nil { throw fail("Queries with 'select' statements are not supported in bundles") }
        guard let from = q["from"] else { throw fail("Query does not have a 'from' collection") }
        if q["offset"] != nil { throw fail("Queries with 'offset' are not supported in bundles") }
        let parent = try name(try required("parent", j), database: database)
        guard case .array(let sources) = from else { throw fail("'from' clause is not an array") }
        guard sources.count == 1 else { throw fail("Only queries with a single 'from' clause are supported by the SDK") }
        var query = StructuredQuery(parent: parent, collectionID: try requiredString("collectionId", sources[0]),
                                    allDescendants: bool("allDescendants", sources[0]))
        if let w = q["where"] { query.filter = try filter(w, database: database) }
        for o in try optionalArray("orderBy", q) {
            let field = try fieldReference(try required("field", o))
            let direction = o["direction"]?.stringValue ?? "ASCENDING"
            guard direction == "ASCENDING" || direction == "DESCENDING" else { throw fail("'direction' value is invalid: \(direction)") }
            query.orderBy.append(Ordering(field, descending: direction == "DESCENDING"))
        }
        if let s = q["startAt"] { query.startAt = try cursor(s, database: database) }
        if let e = q["endAt"] { query.endAt = try cursor(e, database: database) }
        if let l = q["limit"] {
            let value = l["value"] ?? l
            guard case .number(let n) = value, let limit = Int32(n) else { throw fail("'limit' is not encoded as a valid integer") }
            query.limit = Int(limit)
        }
        let limitType = j["limitType"]?.stringValue ?? "FIRST"
        guard limitType == "FIRST" || limitType == "LAST" else { throw fail("'limitType' is not encoded as a recognizable value") }
        return BundledQuery(query: query, limitType: limitType == "LAST" ? .last : .first)
    }

    /// A field filter, a unary filter or an AND of those (the only composite the SDKs load).
    private static func filter(_ j: JSON, database: DatabaseID) throws(FirestoreError) -> QueryFilter {
        guard case .object = j else { throw fail("Query's 'where' clause is not a json object.") }
        if let c = j["compositeFilter"] {
            guard try requiredString("op", c) == "AND" else { throw fail("The SDK only supports composite filters of type 'AND'") }
            var children: [QueryFilter] = []
            for f in try optionalArray("filters", c) {
                if let field = f["fieldFilter"] { children.append(try fieldFilter(field, database: database)) } else {
                    children.append(try unaryFilter(f["unaryFilter"] ?? .object([])))
                }
            }
            return .composite(.and, children)
        }
        if let f = j["fieldFilter"] { return try fieldFilter(f, database: database) }
        if let u = j["unaryFilter"] { return try unaryFilter(u) }
        throw fail("'where' does not have valid filter")
    }

    private static func fieldFilter(_ j: JSON, database: DatabaseID) throws(FirestoreError) -> QueryFilter {
        let field = try fieldReference(try required("field", j))
        let opName = try requiredString("op", j)
        guard let op = FieldOperator(rawValue: opName) else { throw fail("Operator in filter is not valid: \(opName)") }
        return .field(field, op, try value(try required("value", j), database: database))
    }

    private static func unaryFilter(_ j: JSON) throws(FirestoreError) -> QueryFilter {
        let field = try fieldReference(try required("field", j))
        let opName = try requiredString("op", j)
        guard let op = UnaryOperator(rawValue: opName) else { throw fail("Unexpected unary filter operator: \(opName)") }
        return .unary(field, op)
    }

    private static func fieldReference(_ j: JSON) throws(FirestoreError) -> FieldPath {
        guard case .object = j else { throw fail("'field' should be an json object, but it is not") }
        let path = try requiredString("fieldPath", j)
        do { return try FieldPath.parseServerFormat(path) } catch { throw fail(error.message) }
    }

    private static func cursor(_ j: JSON, database: DatabaseID) throws(FirestoreError) -> Cursor {
        var values: [Value] = []
        for v in try optionalArray("values", j) { values.append(try value(v, database: database)) }
        return Cursor(values: values, before: bool("before", j))
    }

    // MARK: Values

    static func fields(_ j: JSON?, database: DatabaseID) throws(FirestoreError) -> MapValue {
        guard let j else { return MapValue() }
        guard case .object(let pairs) = j else { throw fail("mapValue's 'field' is not a valid map") }
        var entries: [MapValue.Entry] = []
        entries.reserveCapacity(pairs.count)
        for (k, v) in pairs { entries.append((k, try value(v, database: database))) }
        return MapValue(unsortedEntries: entries)
    }

    static func value(_ j: JSON, database: DatabaseID) throws(FirestoreError) -> Value {
        guard case .object = j else { throw fail("'value' is not encoded as JSON object") }
        if j["nullValue"] != nil { return .null }
        if let b = j["booleanValue"] {
            guard case .bool(let v) = b else { throw fail("'booleanValue' is not encoded as a valid boolean") }
            return .boolean(v)
        }
        if j["integerValue"] != nil { return .integer(try int("integerValue", j)!) }
        if let d = j["doubleValue"] { return .double(try double(d, name: "doubleValue")) }
        if let t = j["timestampValue"] { return .timestamp(try timestamp(t)) }
        if j["stringValue"] != nil { return .string(try requiredString("stringValue", j)) }
        if j["bytesValue"] != nil {
            guard let data = Data(base64Encoded: try requiredString("bytesValue", j)) else {
                throw fail("Failed to decode bytesValue string into binary form")
            }
            return .bytes(data)
        }
        if j["referenceValue"] != nil {
            let s = try requiredString("referenceValue", j)
            guard let name = try? DocumentName.parse(s), name.database == database, name.path.isDocument else {
                throw fail("Tried to deserialize an invalid key: \(s)")
            }
            return .reference(name)
        }
        if let g = j["geoPointValue"] {
            let lat = try g["latitude"].map { v throws(FirestoreError) in try double(v, name: "latitude") } ?? 0
            let lng = try g["longitude"].map { v throws(FirestoreError) in try double(v, name: "longitude") } ?? 0
            do { return .geoPoint(try GeoPoint.validated(latitude: lat, longitude: lng)) } catch { throw fail(error.message) }
        }
        if let a = j["arrayValue"] {
            var values: [Value] = []
            for v in try optionalArray("values", a) { values.append(try value(v, database: database)) }
            return .array(values)
        }
        if let m = j["mapValue"] {
            guard case .object = m else { throw fail("mapValue is not a valid object") }
            return try Value.vectorOrMap(try fields(m["fields"], database: database))
        }
        throw fail("Failed to decode value, no type is recognized")
    }

    /// An RFC 3339 string or a `{"seconds", "nanos"}` object.
    static func timestamp(_ j: JSON) throws(FirestoreError) -> Timestamp {
        let t: Timestamp
        if case .string(let s) = j {
            guard let parsed = Timestamp(rfc3339: s) else { throw fail("Parsing timestamp failed with error: \(s)") }
            t = parsed
        } else {
            let seconds = try int("seconds", j) ?? 0
            let nanos = try int("nanos", j) ?? 0
            guard nanos >= 0, nanos < 1_000_000_000 else {
                throw fail("Failed to decode json into valid protobuf Timestamp with error 'Invalid nanos value: \(nanos)'")
            }
            t = Timestamp(seconds: seconds, nanos: Int32(nanos))
        }
        guard t.seconds >= Timestamp.minSeconds, t.seconds <= Timestamp.maxSeconds else {
            throw fail("Failed to decode json into valid protobuf Timestamp with error 'Timestamp seconds out of range: \(t.seconds)'")
        }
        return t
    }

    // MARK: Members

    private static func required(_ name: String, _ j: JSON) throws(FirestoreError) -> JSON {
        guard case .object = j else { throw fail("Parent is not a JSON object") }
        guard let v = j[name] else { throw fail("Missing child '\(name)'") }
        return v
    }

    private static func requiredString(_ name: String, _ j: JSON) throws(FirestoreError) -> String {
        guard case .string(let s)? = j[name] else { throw fail("'\(name)' is missing or is not a string") }
        return s
    }

    private static func optionalArray(_ name: String, _ j: JSON) throws(FirestoreError) -> [JSON] {
        guard let v = j[name] else { return [] }
        guard case .array(let a) = v else { throw fail("'\(name)' is not an array") }
        return a
    }

    private static func bool(_ name: String, _ j: JSON) -> Bool {
        if case .bool(let b)? = j[name] { return b }
        return false
    }

    /// An integer member given as a number or a decimal string; nil when absent.
    private static func int(_ name: String, _ j: JSON) throws(FirestoreError) -> Int64? {
        guard let v = j[name] else { return nil }
        switch v {
        case .number(let n):
            guard let i = Int64(n) else { throw fail("Only integer and string can be parsed into int type") }
            return i
        case .string(let s):
            guard let i = Int64(s) else { throw fail("Failed to parse into integer: \(s)") }
            return i
        default:
            throw fail("Only integer and string can be parsed into int type")
        }
    }

    private static func double(_ j: JSON, name: String) throws(FirestoreError) -> Double {
        switch j {
        case .number(let n): if let d = Double(n) { return d }
        case .string(let s):
            switch s {
            case "NaN": return .nan
            case "Infinity": return .infinity
            case "-Infinity": return -.infinity
            default: if let d = Double(s) { return d }
            }
        default: break
        }
        throw fail("'\(name)' is missing or is not a double")
    }

    // MARK: Writing

    static func json(_ element: BundleElement, database: DatabaseID) -> JSON {
        switch element {
        case .metadata(let m):
            return .object([("metadata", .object([
                ("id", .string(m.id)), ("createTime", .string(m.createTime.rfc3339)), ("version", .int(m.version)),
                ("totalDocuments", .int(m.totalDocuments)), ("totalBytes", .string(String(m.totalBytes))),
            ]))])
        case .namedQuery(let q):
            return .object([("namedQuery", .object([
                ("name", .string(q.name)), ("bundledQuery", bundledQueryJSON(q.query, database: database)),
                ("readTime", .string(q.readTime.rfc3339)),
            ]))])
        case .documentMetadata(let d):
            var members: [(String, JSON)] = [("name", .string(database.resourceName(d.path))), ("readTime", .string(d.readTime.rfc3339)),
                                             ("exists", .bool(d.exists))]
            if !d.queries.isEmpty { members.append(("queries", .array(d.queries.map(JSON.string)))) }
            return .object([("documentMetadata", .object(members))])
        case .document(let doc):
            return .object([("document", .object([
                ("name", .string(database.resourceName(doc.path))), ("fields", doc.fields.protoJSON),
                ("createTime", .string(doc.createTime.rfc3339)), ("updateTime", .string(doc.updateTime.rfc3339)),
            ]))])
        }
    }

    private static func bundledQueryJSON(_ b: BundledQuery, database: DatabaseID) -> JSON {
        let q = b.query
        var members: [(String, JSON)] = [("from", .array([.object([("collectionId", .string(q.collectionID)),
                                                                   ("allDescendants", .bool(q.allDescendants))])]))]
        if let f = q.filter { members.append(("where", filterJSON(f))) }
        if !q.orderBy.isEmpty {
            members.append(("orderBy", .array(q.orderBy.map { o in
                .object([("field", .object([("fieldPath", .string(o.field.serverFormat))])),
                         ("direction", .string(o.descending ? "DESCENDING" : "ASCENDING"))])
            })))
        }
        func cursorJSON(_ c: Cursor) -> JSON { .object([("values", .array(c.values.map(\.protoJSON))), ("before", .bool(c.before))]) }
        if let s = q.startAt { members.append(("startAt", cursorJSON(s))) }
        if let e = q.endAt { members.append(("endAt", cursorJSON(e))) }
        if let l = q.limit { members.append(("limit", .object([("value", .int(l))]))) }
        return .object([("parent", .string(database.resourceName(q.parent))), ("structuredQuery", .object(members)),
                        ("limitType", .string(b.limitType == .last ? "LAST" : "FIRST"))])
    }

    private static func filterJSON(_ f: QueryFilter) -> JSON {
        switch f {
        case .field(let path, let op, let v):
            return .object([("fieldFilter", .object([("field", .object([("fieldPath", .string(path.serverFormat))])),
                                                     ("op", .string(op.rawValue)), ("value", v.protoJSON)]))])
        case .unary(let path, let op):
            return .object([("unaryFilter", .object([("field", .object([("fieldPath", .string(path.serverFormat))])),
                                                     ("op", .string(op.rawValue))]))])
        case .composite(let op, let children):
            return .object([("compositeFilter", .object([("op", .string(op.rawValue)), ("filters", .array(children.map(filterJSON)))]))])
        }
    }
}
