import Foundation
import HearthCore
import HearthRules

/// One rules evaluation as the Emulator UI's Requests feed sends it — the shape recorded from
/// the official emulator (Tests/Differential/recorded/request_feed.json) and read by
/// firebase-tools-ui (src/components/Firestore/Requests/rules_evaluation_result_model.ts):
/// `{rulesReleaseKey, requestId, rules, time, rulesContext: {path, request, method, resource,
/// time}, granularAllowOutcomes: [{line, outcome}], outcome}` with `request` and `resource`
/// as rules expression values (`{"mapValue": {"fields": …}}`, `{"intValue": "1"}`,
/// `{"pathValue": {"segments": [{"simple": …}]}}`, …).
enum RequestFeedJSON {
    /// The evaluation of `decision`, the `index`-th of its request: `granular` holds the
    /// allow outcomes of the request's evaluations up to this one (the official emulator
    /// lists them cumulatively within a request).
    ///
    /// `listing`: the request was a ListDocuments (REST `GET` of a collection): the official
    /// emulator proves it as a query with the listing's default page of 30.
    static func evaluation(_ decision: RulesDecision, granular: [AllowOutcome], project: String, rules: ProjectRules?,
                           atMicroseconds time: Int64, listing: Bool = false) -> JSON {
        let source = rules?.files.first?.content ?? ""
        let outcome: String
        if decision.allowed {
            outcome = "allow"
        } else if decision.outcomes.contains(where: { if case .error = $0.result { true } else { false } }) {
            outcome = "error"
        } else {
            outcome = "deny"
        }
        let request = decision.request
        let requestTime = request.map { millisecondTime($0.time) } ?? microsecondTime(time)
        return .object([
            ("rulesReleaseKey", .string("projects/\(project)/releases/cloud.firestore\(javaHash(source))")),
            ("requestId", .string(UUID().uuidString.lowercased())),
            ("rules", .string(source)),
            ("time", .string(microsecondTime(time))),
            ("rulesContext", .object([
                ("path", .string(contextPath(decision))),
                ("request", request.map { requestValue($0, decision, listing: listing) } ?? .object([("nullValue", .null)])),
                ("method", .string(decision.method.rawValue)),
                ("resource", decision.method == .list
                    ? mapValue([("data", equalities(request?.query?.filter, database: decision.database))])
                    : .object([("undefined", .object([]))])),
                ("time", .string(requestTime)),
            ])),
            ("granularAllowOutcomes", .array(granular.map {
                .object([("line", .int($0.location.line)), ("outcome", .bool($0.result == .granted))])
            })),
            ("outcome", .string(outcome)),
        ])
    }

    /// `/databases/(default)/documents/c/a`; a list names its documents `c/*` (`**/c/*` for
    /// a collection group).
    static func contextPath(_ d: RulesDecision) -> String {
        let base = "/databases/\(d.database)/documents"
        guard d.method == .list else { return base + "/" + d.resourcePath.description }
        if d.isCollectionGroup { return base + "/**/\(d.resourcePath.lastSegment)/*" }
        return base + "/" + d.resourcePath.description + "/*"
    }

    /// `request` as the rules saw it.
    static func requestValue(_ r: RulesRequest, _ d: RulesDecision, listing: Bool = false) -> JSON {
        let auth: JSON = r.auth.map { a in
            mapValue([("uid", .object([("stringValue", .string(a.uid))])), ("token", value(.map(a.token), database: r.database))])
        } ?? .object([("nullValue", .null)])
        let null: JSON = .object([("nullValue", .null)])
        let segments = ["databases", r.database, "documents"] + r.path.segments
        var fields: [(String, JSON)] = []
        switch r.method {
        case .get:
            fields = [("headers", .object([("mapValue", .object([]))])), ("path", pathValue(segments)),
                      ("inTransaction", .object([("boolValue", .bool(false))])), ("method", .object([("stringValue", .string("get"))])),
                      ("auth", auth), ("time", .object([("timestampValue", .string(millisecondTime(r.time)))])), ("fields", null)]
        case .list:
            let q = r.query
            let collection = ["databases", r.database, "documents"] + (q?.parent.segments ?? []) + [q?.collectionID ?? r.path.lastSegment]
            var query: [(String, JSON)] = []
            if q?.allDescendants == true { query.append(("ancestor", null)) } else { query.append(("parent", null)) }
            query += [("allDescendants", .object([("boolValue", .bool(q?.allDescendants ?? false))])),
                      ("offset", .object([("intValue", .string(String(q?.offset ?? 0)))])),
                      ("selectOnlyKeys", .object([("boolValue", .bool(false))])),
                      ("kind", .object([("stringValue", .string(q?.collectionID ?? r.path.lastSegment))])),
                      ("limit", (q?.limit ?? (listing ? 30 : nil)).map { .object([("intValue", .string(String($0)))]) } ?? null),
                      ("distinct", .object([("boolValue", .bool(false))])),
                      ("orderBy", .object([("mapValue", .object([]))])), ("groupBy", .object([("mapValue", .object([]))]))]
            fields = [("headers", .object([("mapValue", .object([]))])),
                      ("path", pathValue(d.isCollectionGroup ? ["databases", r.database, "documents"] : collection)),
                      ("inTransaction", .object([("boolValue", .bool(false))])), ("method", .object([("stringValue", .string("list"))])),
                      ("auth", auth), ("query", mapValue(query)),
                      ("time", .object([("timestampValue", .string(millisecondTime(r.time)))])), ("fields", null)]
        case .create, .update, .delete:
            let resource: JSON = r.newData.map { data in
                mapValue([("data", value(.map(data), database: r.database)), ("__name__", pathValue(segments)),
                          ("id", .object([("stringValue", .string(r.path.lastSegment))]))])
            } ?? null
            fields = [("readFields", null), ("headers", .object([("mapValue", .object([]))])), ("path", pathValue(segments)),
                      ("inTransaction", .object([("boolValue", .bool(true))])),
                      ("method", .object([("stringValue", .string(r.method.rawValue))])), ("auth", auth), ("writeFields", null),
                      ("resource", r.method == .delete ? null : resource)]
            // A create says whether the id was the server's choice (never, for the writes seen here).
            if r.method == .create { fields.append(("autoId", .object([("boolValue", .bool(false))]))) }
            fields += [("transforms", null),
                      ("time", .object([("timestampValue", .string(millisecondTime(r.time)))]))]
        }
        return mapValue(fields)
    }

    /// A query's `resource.data` as the official emulator shows it: the fields its top-level
    /// equality filters fix (`where n == 1` gives `{n: 1}`), nested along dotted paths.
    static func equalities(_ filter: QueryFilter?, database: String) -> JSON {
        var leaves: [QueryFilter] = []
        switch filter {
        case .field?: leaves = [filter!]
        case .composite(.and, let children)?: leaves = children
        default: break
        }
        var data = MapValue()
        for case .field(let path, .equal, let v) in leaves where !path.segments.isEmpty {
            data = setting(path.segments[...], to: v, in: data)
        }
        return value(.map(data), database: database)
    }

    private static func setting(_ path: ArraySlice<String>, to v: Value, in map: MapValue) -> MapValue {
        var map = map
        guard let head = path.first else { return map }
        if path.count == 1 {
            map[head] = v
        } else {
            var inner = MapValue()
            if case .map(let m)? = map[head] { inner = m }
            map[head] = .map(setting(path.dropFirst(), to: v, in: inner))
        }
        return map
    }

    static func mapValue(_ fields: [(String, JSON)]) -> JSON {
        .object([("mapValue", fields.isEmpty ? .object([]) : .object([("fields", .object(fields))]))])
    }

    static func pathValue(_ segments: [String]) -> JSON {
        .object([("pathValue", .object([("segments", .array(segments.map { .object([("simple", .string($0))]) }))]))])
    }

    /// A document value as a rules expression value.
    static func value(_ v: Value, database: String) -> JSON {
        switch v {
        case .null: return .object([("nullValue", .null)])
        case .boolean(let b): return .object([("boolValue", .bool(b))])
        case .integer(let i): return .object([("intValue", .string(String(i)))])
        case .double(let d): return .object([("floatValue", d.isFinite ? .double(d) : .string(d.isNaN ? "NaN" : (d > 0 ? "Infinity" : "-Infinity")))])
        case .timestamp(let t): return .object([("timestampValue", .string(t.rfc3339))])
        case .string(let s): return .object([("stringValue", .string(s))])
        case .bytes(let b): return .object([("bytesValue", .string(b.base64EncodedString()))])
        case .reference(let name):
            return pathValue(["databases", name.database.database, "documents"] + name.path.segments)
        case .geoPoint(let g):
            return .object([("latlngValue", .object([("latitude", .double(g.latitude)), ("longitude", .double(g.longitude))]))])
        case .array(let items):
            return .object([("listValue", items.isEmpty ? .object([]) : .object([("values", .array(items.map { value($0, database: database) }))]))])
        case .map(let m):
            return mapValue(m.map { ($0.key, value($0.value, database: database)) })
        case .vector(let values):
            return .object([("listValue", .object([("values", .array(values.map { .object([("floatValue", .double($0))]) }))]))])
        }
    }

    /// `2026-11-28T20:11:33.691Z`: the request's time as the official emulator writes it.
    static func millisecondTime(_ t: Timestamp) -> String {
        let date = Date(timeIntervalSince1970: Double(t.seconds))
        return iso(date) + "." + pad(Int(t.nanos) / 1_000_000, 3) + "Z"
    }

    /// `2026-11-28T20:11:33.695558Z`: when the evaluation was made (microseconds since 1970).
    static func microsecondTime(_ micros: Int64) -> String {
        let seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
        return iso(Date(timeIntervalSince1970: Double(seconds))) + "." + pad(Int(micros - seconds * 1_000_000), 6) + "Z"
    }

    private static func iso(_ date: Date) -> String {
        var t = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&t, &parts)
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))T"
            + "\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2))"
    }

    private static func pad(_ n: Int, _ width: Int) -> String {
        let s = String(n)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// A release number derived from the rules source (Java's String.hashCode), so a changed
    /// source gets a new key; the official emulator's numbers are its own (the corpus
    /// compares the key up to `releases/`).
    static func javaHash(_ s: String) -> Int32 {
        var h: Int32 = 0
        for unit in s.utf16 { h = h &* 31 &+ Int32(unit) }
        return h
    }
}
