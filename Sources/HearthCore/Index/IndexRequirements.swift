import Foundation

/// Decides whether production Firestore could serve a query with the indexes it would have
/// (automatic single-field indexes as changed by field overrides, plus declared composite
/// indexes), and if not, which index it would ask for (docs/semantics.md#index-requirements, a conservative model of
/// a planner that is not public: docs/semantics.md#open-points, A16).
///
/// Each disjunct of the query's DNF is analysed on its own with the query's normalised order:
/// - no ordered field other than `__name__` (rules 1, 3): the single-field index of every
///   equality field (in the direction of the `__name__` order) and the CONTAINS index of the
///   array-contains field are needed;
/// - no equality constraints and one ordered field (rule 2): that field's single-field index
///   in its direction;
/// - otherwise (rule 4) a composite index: the equality fields (sorted by path, ASCENDING),
///   the array-contains field (CONTAINS), then the normalised order with its directions;
///   `__name__` is implicit unless its direction differs from the last ordered field's.
///   A declared index serves when it has the same equality fields in any order and any
///   direction, then exactly the same ordered fields: no reversed scans, no extra fields,
///   no merging of composite indexes (rule 6 is not modelled).
///
/// Single-field needs are checked against the overrides at the query's scope: a collection-
/// group query finds no automatic index (rule 5), a disabled field none at all (rule 8).
/// Such a need is reported as an `IndexDefinition` with that one field. Aggregations follow
/// rule 7 (see `missingIndexes`), `findNearest` needs a vector index (the equality fields,
/// the array-contains field, then the vector field with the query vector's dimension).
public enum IndexRequirements {
    /// The first index `query` lacks, in disjunct order (for a single-field need of a
    /// multi-field equality query, the first field in path order); nil when it is served.
    public static func missingIndex(for query: NormalizedQuery, aggregations: [Aggregation] = [],
                                    configuration: IndexConfiguration) -> IndexDefinition? {
        let aggregated = aggregatedFields(aggregations)
        for conjuncts in query.disjuncts {
            if let first = needs(conjuncts, of: query, aggregated: aggregated, configuration: configuration).first {
                return first
            }
        }
        return nil
    }

    /// Every index `query` lacks, over all its disjuncts, without duplicates, in the order
    /// they are found (what `IndexMode.learn` records).
    ///
    /// Aggregations (rule 7): each sum/average field that the needed composite index does not
    /// contain is appended to it, ascending. A query that needs no composite index keeps
    /// using single-field indexes only when there is one aggregated field and the query
    /// constrains no other field; otherwise its composite form gets the aggregated fields.
    public static func missingIndexes(for query: NormalizedQuery, aggregations: [Aggregation] = [],
                                      configuration: IndexConfiguration) -> [IndexDefinition] {
        let aggregated = aggregatedFields(aggregations)
        var result: [IndexDefinition] = []
        for conjuncts in query.disjuncts {
            for need in needs(conjuncts, of: query, aggregated: aggregated, configuration: configuration)
            where !result.contains(need) {
                result.append(need)
            }
        }
        return result
    }

    private typealias Field = IndexDefinition.Field

    private static func aggregatedFields(_ aggregations: [Aggregation]) -> [FieldPath] {
        var fields: [FieldPath] = []
        for a in aggregations {
            if let f = a.field, !f.isDocumentName, !fields.contains(f) { fields.append(f) }
        }
        return fields
    }

    /// The indexes one disjunct lacks: none, the missing single-field indexes, or one
    /// composite index.
    private static func needs(_ conjuncts: [QueryFilter], of query: NormalizedQuery, aggregated: [FieldPath],
                              configuration: IndexConfiguration) -> [IndexDefinition] {
        let group = query.query.collectionID
        // `all_descendants` queries (collection groups, and the same under a parent) use
        // collection-group indexes.
        let scope: IndexDefinition.Scope = query.query.allDescendants ? .collectionGroup : .collection
        let order = query.orderBy.map { Field($0.field, $0.descending ? .descending : .ascending) }

        // Equality-type constraints. Inequalities are already in the normalised order; an
        // equality on an ordered field (an expanded `in` on it) only needs the order.
        var equalities: [FieldPath] = []
        var contains: FieldPath?
        for c in conjuncts {
            switch c {
            case .field(let p, .equal, _), .unary(let p, .isNull), .unary(let p, .isNaN):
                if !p.isDocumentName, !order.contains(where: { $0.path == p }), !equalities.contains(p) {
                    equalities.append(p)
                }
            case .field(let p, .arrayContains, _):
                contains = p
            default:
                break
            }
        }
        equalities.sort()
        let prefix = equalities.map { Field($0, .ascending) } + (contains.map { [Field($0, .contains)] } ?? [])

        func composite(_ fields: [Field]) -> [IndexDefinition] {
            let needed = IndexDefinition(collectionGroup: group, scope: scope, fields: fields)
            let declared = configuration.indexes.contains { serves($0, needed, equalityCount: prefix.count) }
            return declared ? [] : [needed]
        }

        if let nearest = query.query.findNearest {
            return composite(prefix + [Field(nearest.vectorField, .vector(dimension: nearest.queryVector.count))])
        }

        let ordered = IndexConfiguration.withoutImpliedName(order)
        // The single-field indexes that serve the disjunct when it needs no composite one.
        var single: [Field]?
        if ordered.allSatisfy(\.path.isDocumentName) {
            let nameKind = order.first(where: \.path.isDocumentName)?.kind ?? .ascending
            single = equalities.map { Field($0, nameKind) } + (contains.map { [Field($0, .contains)] } ?? [])
        } else if prefix.isEmpty, ordered.count == 1 {
            single = ordered
        }

        // Rule 7: single-field indexes still do when one field is aggregated and nothing else
        // is constrained; otherwise the aggregated fields join a composite index.
        // (The prefix never holds `__name__`.)
        func constrains(_ f: FieldPath) -> Bool { prefix.contains { $0.path == f } || order.contains { $0.path == f } }
        func constrainsNothingBut(_ a: FieldPath) -> Bool {
            !prefix.contains { $0.path != a } && !order.contains { !$0.path.isDocumentName && $0.path != a }
        }
        if var single, aggregated.isEmpty || (aggregated.count == 1 && constrainsNothingBut(aggregated[0])) {
            if let a = aggregated.first, !single.contains(where: { $0.path == a }) { single.append(Field(a, .ascending)) }
            return single.compactMap { field in
                served(field, group: group, scope: scope, configuration: configuration)
                    ? nil : IndexDefinition(collectionGroup: group, scope: scope, fields: [field])
            }
        }
        let extra = aggregated.filter { !constrains($0) }.map { Field($0, .ascending) }
        return composite(IndexConfiguration.withoutImpliedName(prefix + order) + extra)
    }

    /// Whether the single-field index `field` exists at `scope`.
    private static func served(_ field: Field, group: String, scope: IndexDefinition.Scope,
                               configuration: IndexConfiguration) -> Bool {
        let entries = configuration.singleFieldIndexes(collectionGroup: group, field: field.path)
            ?? IndexConfiguration.FieldOverride.automaticEntries
        return entries.contains(IndexConfiguration.FieldOverride.Entry(field.kind, scope: scope))
    }

    /// Whether `declared` serves a query needing `needed`, whose first `equalityCount` fields
    /// are equality constraints (any order, direction irrelevant for ordered ones).
    private static func serves(_ declared: IndexDefinition, _ needed: IndexDefinition, equalityCount k: Int) -> Bool {
        let fields = IndexConfiguration.withoutImpliedName(declared.fields)
        guard declared.collectionGroup == needed.collectionGroup, declared.scope == needed.scope,
              fields.count == needed.fields.count, declared.nameDescending == needed.nameDescending else { return false }
        // The equality prefixes must hold the same fields in any order and direction: the same
        // sets (a handful of fields, so compared by containment both ways, no allocation).
        func equalityKey(_ f: Field) -> Field { f.kind == .descending ? Field(f.path, .ascending) : f }
        func sameField(_ a: Field, _ b: Field) -> Bool { equalityKey(a) == equalityKey(b) }
        let declaredPrefix = fields.prefix(k), neededPrefix = needed.fields.prefix(k)
        return declaredPrefix.allSatisfy { d in neededPrefix.contains { sameField(d, $0) } }
            && neededPrefix.allSatisfy { n in declaredPrefix.contains { sameField(n, $0) } }
            && fields.dropFirst(k).elementsEqual(needed.fields.dropFirst(k))
    }
}

// MARK: - The error production returns

extension IndexRequirements {
    /// FAILED_PRECONDITION with production's text and console link for a missing index,
    /// followed by what to add to `firestore.indexes.json`.
    ///
    /// - Composite index: `…/firestore/indexes?create_composite=<token>`, the token being the
    ///   standard base64 of the `google.firestore.admin.v1.Index` message (name
    ///   `projects/p/databases/d/collectionGroups/<cg>/indexes/_`, scope, fields with the
    ///   implicit `__name__` appended), then the index's JSON entry.
    /// - Single-field index (one non-vector field: a disabled field or a collection-group
    ///   scope override): `create_exemption=` with a `google.firestore.admin.v1.Field`
    ///   (`…/collectionGroups/<cg>/fields/<path>` and that one index; docs/semantics.md#open-points, A15), then the field
    ///   override to declare (the field's current indexes from `configuration` plus the
    ///   needed one, since an override replaces the automatic indexes).
    /// - Vector index: production's "Missing vector index configuration" text with the gcloud
    ///   command, then the index's JSON entry.
    ///
    /// For a named database the console path gains `databases/<id>/`.
    public static func missingIndexError(_ index: IndexDefinition, database: DatabaseID,
                                         configuration: IndexConfiguration = IndexConfiguration()) -> FirestoreError {
        if index.fields.contains(where: { if case .vector = $0.kind { true } else { false } }) {
            return vectorIndexError(index, database: database)
        }
        var console = "https://console.firebase.google.com/v1/r/project/\(database.project)/firestore/"
        if database.database != DatabaseID.defaultDatabase { console += "databases/\(database.database)/" }
        let collectionGroupName = "\(database.name)/collectionGroups/\(index.collectionGroup)"
        var w = ProtobufWriter()
        let link: String
        let appendix: String
        if let override = configuration.fieldOverride(enabling: index) {
            w.string(1, "\(collectionGroupName)/fields/\(index.fields[0].path.serverFormat)")
            w.message(2) { config in config.message(1) { encode(index, into: &$0) } }
            link = "indexes?create_exemption="
            appendix = "Add this field override to \"fieldOverrides\" in firestore.indexes.json (it replaces any override of the same field):\n"
                + IndexConfiguration.jsonText(of: override)
        } else {
            var withName = index
            if withName.fields.last?.path.isDocumentName != true {
                withName.fields.append(Field(.documentName, index.nameDescending ? .descending : .ascending))
            }
            w.string(1, "\(collectionGroupName)/indexes/_")
            encode(withName, into: &w)
            link = "indexes?create_composite="
            appendix = "Add this index to firestore.indexes.json:\n" + IndexConfiguration.jsonText(of: index)
        }
        let token = Data(w.bytes).base64EncodedString()
        return FirestoreError(.failedPrecondition,
                              "The query requires an index. You can create it here: \(console)\(link)\(token)\n\n\(appendix)")
    }

    private static func vectorIndexError(_ index: IndexDefinition, database: DatabaseID) -> FirestoreError {
        var command = "gcloud firestore indexes composite create --project=\(database.project)"
        if database.database != DatabaseID.defaultDatabase { command += " --database=\(database.database)" }
        command += " --collection-group=\(index.collectionGroup) --query-scope=\(index.scope.rawValue)"
        for f in index.fields {
            let config = switch f.kind {
            case .ascending: "order=ASCENDING"
            case .descending: "order=DESCENDING"
            case .contains: "array-config=CONTAINS"
            case .vector(let d): "vector-config='{\"dimension\":\"\(d)\",\"flat\": \"{}\"}'"
            }
            command += " --field-config=\(config),field-path=\(f.path.serverFormat)"
        }
        return FirestoreError(.failedPrecondition,
                              "Missing vector index configuration. Please create the required index with the following gcloud command: \(command)\n\nAdd this index to firestore.indexes.json:\n"
                                + IndexConfiguration.jsonText(of: index))
    }

    /// `google.firestore.admin.v1.Index` fields 2 (query_scope) and 3 (fields).
    private static func encode(_ index: IndexDefinition, into w: inout ProtobufWriter) {
        w.varint(2, index.scope == .collection ? 1 : 2)
        for f in index.fields {
            w.message(3) { field in
                field.string(1, f.path.serverFormat)
                switch f.kind {
                case .ascending: field.varint(2, 1)
                case .descending: field.varint(2, 2)
                case .contains: field.varint(3, 1)
                case .vector(let d):
                    field.message(4) { config in
                        config.varint(1, UInt64(d))
                        config.message(2) { _ in }  // flat: FlatIndex {}
                    }
                }
            }
        }
    }
}

/// Just enough protobuf encoding for the console-link tokens: varints and length-delimited
/// fields.
private struct ProtobufWriter {
    var bytes: [UInt8] = []

    private mutating func raw(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func varint(_ field: Int, _ value: UInt64) {
        raw(UInt64(field) << 3)
        raw(value)
    }

    mutating func bytesField(_ field: Int, _ payload: [UInt8]) {
        raw(UInt64(field) << 3 | 2)
        raw(UInt64(payload.count))
        bytes += payload
    }

    mutating func string(_ field: Int, _ value: String) { bytesField(field, Array(value.utf8)) }

    mutating func message(_ field: Int, _ body: (inout ProtobufWriter) -> Void) {
        var inner = ProtobufWriter()
        body(&inner)
        bytesField(field, inner.bytes)
    }
}
