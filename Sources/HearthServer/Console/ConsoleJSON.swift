import Foundation
import HearthCore
import HearthRules

/// The JSON shapes of the console API. Documents and values use the Firestore REST
/// encoding (`{"integerValue": "1"}`, `mapValue`, …) so every type survives the trip to
/// the browser and back — JavaScript numbers cannot tell `1` from `1.0`, nor hold an int64.
enum ConsoleJSON {
    /// A document as REST encodes it, plus its path relative to the database.
    static func document(_ doc: Document, database: DatabaseID) -> JSON {
        guard case .object(var pairs) = ProtoWrite.encode(doc, database: database) else { return .null }
        pairs.insert(("path", .string(doc.path.description)), at: 1)
        return .object(pairs)
    }

    /// A request log entry.
    static func entry(_ e: RequestLogEntry) -> JSON {
        var pairs: [(String, JSON)] = [
            ("id", .int(e.id)),
            ("time", .string(timeText(e.time))),
            ("transport", .string(e.transport.rawValue)),
            ("method", .string(e.method)),
            ("path", .string(e.path)),
            ("caller", caller(e.caller)),
        ]
        if let db = e.database {
            pairs.append(("database", .string(db.name)))
            pairs.append(("resources", .array(e.resources.map { .string($0.description) })))
        }
        let seconds = Double(e.duration.components.seconds) + Double(e.duration.components.attoseconds) / 1e18
        pairs.append(("durationMs", .double((seconds * 1e6).rounded() / 1e3)))
        pairs.append(("status", .string(e.code.name)))
        if let s = e.httpStatus { pairs.append(("httpStatus", .int(s))) }
        if let m = e.message { pairs.append(("message", .string(m))) }
        if let allowed = e.allowed { pairs.append(("verdict", .string(allowed ? "allow" : "deny"))) }
        pairs.append(("rules", .array(e.rules.map(decision))))
        return .object(pairs)
    }

    static func caller(_ c: RequestLogEntry.Caller) -> JSON {
        switch c {
        case .owner: .object([("kind", .string("owner"))])
        case .unauthenticated: .object([("kind", .string("unauthenticated"))])
        case .invalid: .object([("kind", .string("invalid"))])
        case .user(let uid): .object([("kind", .string("user")), ("uid", .string(uid))])
        }
    }

    /// One rules verdict: the method, the target, each evaluated `allow` (line, result) and
    /// the `debug()` output, plus the emulator-style explanation.
    static func decision(_ d: RulesDecision) -> JSON {
        .object([
            ("allowed", .bool(d.allowed)),
            ("method", .string(d.method.rawValue)),
            ("path", .string(d.path)),
            ("resource", .string(d.resourcePath.description)),
            ("collectionGroup", .bool(d.isCollectionGroup)),
            ("allows", .array(d.outcomes.map { o in
                var pairs: [(String, JSON)] = [
                    ("line", .int(o.location.line)), ("column", .int(o.location.column)),
                    ("methods", .array(o.methods.map(JSON.string))),
                ]
                switch o.result {
                case .granted: pairs.append(("result", .string("true")))
                case .notGranted: pairs.append(("result", .string("false")))
                case .error(let m): pairs += [("result", .string("error")), ("error", .string(m))]
                }
                pairs.append(("deciding", .bool(d.decidingAllow.map { $0.location == o.location } ?? false)))
                return .object(pairs)
            })),
            ("debug", .array(d.debugOutput.map(JSON.string))),
            ("explanation", .string(d.explanation)),
        ])
    }

    /// An open stream with its targets.
    static func stream(_ s: OpenStreams.Stream) -> JSON {
        var pairs: [(String, JSON)] = [
            ("id", .int(s.id)),
            ("kind", .string(s.kind.rawValue)),
            ("transport", .string(s.transport.rawValue)),
            ("opened", .string(timeText(s.opened))),
            ("caller", caller(s.caller)),
            ("requests", .int(s.requests)),
        ]
        if let db = s.database { pairs.append(("database", .string(db.name))) }
        pairs.append(("targets", .array(s.targets.sorted { $0.key < $1.key }.map { id, target in
            switch target {
            case .documents(let paths):
                return .object([("id", .int(id)), ("kind", .string("documents")),
                                ("documents", .array(paths.map { .string($0.description) })),
                                ("description", .string(paths.map(\.description).joined(separator: ", ")))])
            case .query(let q):
                return .object([("id", .int(id)), ("kind", .string("query")), ("collection", .string(q.collectionPath.description)),
                                ("description", .string(QuerySummary.text(q)))])
            }
        })))
        return .object(pairs)
    }

    /// A missing index: its JSON entry and production's error text.
    static func missingIndex(_ index: IndexDefinition, database: DatabaseID, configuration: IndexConfiguration) -> JSON {
        var file = IndexConfiguration()
        file.insert(index)
        return .object([
            ("description", .string(index.description)),
            ("collectionGroup", .string(index.collectionGroup)),
            ("scope", .string(index.scope.rawValue)),
            ("indexesJSON", .string(String(decoding: file.json, as: UTF8.self))),
            ("productionError", .string(IndexRequirements.missingIndexError(index, database: database, configuration: configuration).message)),
        ])
    }

    /// The `--index-mode` word for a mode.
    static func modeName(_ mode: IndexMode) -> String {
        switch mode {
        case .enforce: "enforce"
        case .warn: "warn"
        case .off: "off"
        case .learn: "learn"
        }
    }

    static func error(_ e: FirestoreError) -> JSON {
        .object([("code", .int(e.code.httpStatus)), ("status", .string(e.code.name)), ("message", .string(e.message))])
    }

    /// RFC 3339 with milliseconds, UTC.
    static func timeText(_ date: Date) -> String {
        let t = Timestamp(date: date)
        return Timestamp(seconds: t.seconds, nanos: t.nanos - t.nanos % 1_000_000).rfc3339
    }
}

/// A one-line human description of a query: `users where age > 5, order by age desc, limit 3`.
enum QuerySummary {
    static func text(_ q: StructuredQuery) -> String {
        var parts = [q.allDescendants ? "collection group \(q.collectionID)" : q.collectionPath.description]
        if let f = q.filter { parts.append("where " + filter(f)) }
        if !q.orderBy.isEmpty { parts.append("order by " + q.orderBy.map(\.description).joined(separator: ", ")) }
        if let l = q.limit { parts.append("limit \(l)") }
        if q.offset > 0 { parts.append("offset \(q.offset)") }
        return parts.joined(separator: ", ")
    }

    private static func filter(_ f: QueryFilter) -> String {
        switch f {
        case .composite(let op, let filters):
            return filters.map { sub in
                if case .composite = sub { return "(\(filter(sub)))" }
                return filter(sub)
            }.joined(separator: op == .and ? " and " : " or ")
        case .field(let path, let op, let value):
            return "\(path) \(symbol(op)) \(value)"
        case .unary(let path, let op):
            return "\(path) \(op.rawValue)"
        }
    }

    /// The operator as the web SDK's `where()` spells it.
    private static func symbol(_ op: FieldOperator) -> String {
        switch op {
        case .lessThan: "<"
        case .lessThanOrEqual: "<="
        case .greaterThan: ">"
        case .greaterThanOrEqual: ">="
        case .equal: "=="
        case .notEqual: "!="
        case .arrayContains: "array-contains"
        case .in: "in"
        case .arrayContainsAny: "array-contains-any"
        case .notIn: "not-in"
        }
    }
}
