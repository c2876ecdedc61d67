import Foundation
import SeededRandom
import Testing
@testable import HearthCore

/// Random documents and random queries: the answer served from index scans must equal the
/// answer of a full scan, which in turn must equal a brute-force reference written here
/// from the specification (filter, order-by presence, sort, cursors, offset, limit).
@Suite struct QueryDifferentialTests {
    static let pool: [Value] = [
        .null, .boolean(true), .integer(1), .integer(2), .double(2.0), .double(2.5), .integer(3), .double(.nan),
        .string("a"), .string("b"), .array([.integer(1)]), .array([.integer(1), .integer(2)]), .array([.string("a"), .integer(3)]),
        testMap(["k": .integer(1)]),
    ]

    func randomValue(_ r: inout SplitMix64) -> Value { Self.pool.randomElement(using: &r)! }

    func randomFilter(_ r: inout SplitMix64, depth: Int = 0) -> QueryFilter {
        let fields = ["a", "b", "m.k"]
        let f = fields.randomElement(using: &r)!
        if depth < 2, Int.random(in: 0..<5, using: &r) == 0 {
            let children = (0..<Int.random(in: 2...3, using: &r)).map { _ in randomFilter(&r, depth: depth + 1) }
            return .composite(Bool.random(using: &r) ? .and : .or, children)
        }
        switch Int.random(in: 0..<9, using: &r) {
        case 0: return field(f, .equal, randomValue(&r))
        case 1: return field(f, .notEqual, randomValue(&r))
        case 2: return field(f, [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual].randomElement(using: &r)!, randomValue(&r))
        case 3: return field(f, .arrayContains, randomValue(&r))
        case 4: return field(f, .in, .array([randomValue(&r), randomValue(&r)]))
        case 5: return field(f, .arrayContainsAny, .array([randomValue(&r), randomValue(&r)]))
        case 6: return field(f, .notIn, .array([randomValue(&r)]))
        case 7: return unary(f, [.isNull, .isNaN, .isNotNull, .isNotNaN].randomElement(using: &r)!)
        default: return field(f, .greaterThanOrEqual, randomValue(&r))
        }
    }

    /// Brute force straight from the spec.
    func reference(_ docs: [Document], _ q: NormalizedQuery) -> [String] {
        var matching = docs.filter { d in
            d.path.parent == q.query.collectionPath
                && q.orderedFields.allSatisfy { d.fields.value(at: $0) != nil }
                && (q.filter?.matches(d) ?? true)
        }
        func cmp(_ a: Document, _ b: Document, upTo n: Int) -> Int {
            for o in q.orderBy.prefix(n) {
                var c = o.field.isDocumentName ? ResourcePath.compare(a.path, b.path)
                    : Value.compare(a.fields.value(at: o.field)!, b.fields.value(at: o.field)!)
                if o.descending { c = -c }
                if c != 0 { return c }
            }
            return 0
        }
        matching.sort { cmp($0, $1, upTo: q.orderBy.count) < 0 }
        func cursorCmp(_ d: Document, _ c: Cursor) -> Int {
            for (i, v) in c.values.enumerated() {
                let o = q.orderBy[i]
                var r: Int
                if o.field.isDocumentName, case .reference(let n) = v { r = ResourcePath.compare(d.path, n.path) }
                else { r = Value.compare(d.fields.value(at: o.field)!, v) }
                if o.descending { r = -r }
                if r != 0 { return r }
            }
            return 0
        }
        if let s = q.startAt { matching = matching.filter { let c = cursorCmp($0, s); return c > 0 || (c == 0 && s.before) } }
        if let e = q.endAt { matching = matching.filter { let c = cursorCmp($0, e); return c < 0 || (c == 0 && !e.before) } }
        var ids = matching.dropFirst(q.query.offset).map(\.id)
        if let l = q.query.limit { ids = Array(ids.prefix(l)) }
        return ids
    }

    @Test(arguments: [1, 2, 3, 4])
    func indexScanFullScanAndReferenceAgree(seed: UInt64) throws {
        var r = SplitMix64(seed: seed)
        var docs: [(String, MapValue)] = []
        for i in 0..<60 {
            var fields = MapValue()
            if Int.random(in: 0..<4, using: &r) > 0 { fields.setValue(randomValue(&r), at: testFieldPath("a")) }
            if Int.random(in: 0..<4, using: &r) > 0 { fields.setValue(randomValue(&r), at: testFieldPath("b")) }
            if Bool.random(using: &r) { fields.setValue(randomValue(&r), at: testFieldPath("m.k")) }
            docs.append(("c/\(String(format: "d%02d", (i * 37) % 60))", fields))
        }
        docs.append(("other/x", testFields(["a": .integer(1)])))
        docs.append(("c/d00/c/nested", testFields(["a": .integer(1)])))
        let db = try makeQueryDatabase(docs)
        var all = db.state().allDocuments()
        var checked = 0
        for round in 0..<250 {
            if round % 50 == 49 {
                // Commits between queries: the indexes the queries so far built are kept in
                // step by each commit (new documents, replacements, deletions).
                var writes: [Write] = []
                for _ in 0..<8 {
                    var fields = MapValue()
                    if Bool.random(using: &r) { fields.setValue(randomValue(&r), at: testFieldPath("a")) }
                    if Bool.random(using: &r) {
                        // Elements may repeat: one index entry per distinct element.
                        let elements: [Value] = [.integer(1), .integer(2), .double(2.0), .string("a"), .null]
                        fields.setValue(.array((0..<3).map { _ in elements.randomElement(using: &r)! }), at: testFieldPath("b"))
                    }
                    if Bool.random(using: &r) { fields.setValue(randomValue(&r), at: testFieldPath("m.k")) }
                    let id = Int.random(in: 0..<90, using: &r)
                    writes.append(.set(testPath("c/\(String(format: "d%02d", id))"), fields))
                }
                writes.append(.delete(testPath("c/\(String(format: "d%02d", Int.random(in: 0..<90, using: &r)))")))
                try db.commit(writes)
                all = db.state().allDocuments()
            }
            var q = testQuery("c")
            if Bool.random(using: &r) { q.filter = randomFilter(&r) }
            for _ in 0..<Int.random(in: 0...2, using: &r) {
                let f = ["a", "b", "m.k", "__name__"].randomElement(using: &r)!
                if !q.orderBy.contains(where: { $0.field == (f == "__name__" ? .documentName : testFieldPath(f)) }) {
                    q.orderBy.append(Bool.random(using: &r) ? asc(f) : desc(f))
                }
            }
            if Int.random(in: 0..<3, using: &r) == 0 { q.limit = Int.random(in: 1...5, using: &r) }
            if Int.random(in: 0..<4, using: &r) == 0 { q.offset = Int.random(in: 1...3, using: &r) }
            guard let normalized = try? NormalizedQuery(q, database: testDatabaseID) else { continue }
            if Int.random(in: 0..<3, using: &r) == 0 {
                let n = Int.random(in: 1...normalized.orderBy.count, using: &r)
                let values = normalized.orderBy.prefix(n).map { o -> Value in
                    o.field.isDocumentName ? testReference("c/d\(String(format: "%02d", Int.random(in: 0..<60, using: &r)))") : randomValue(&r)
                }
                let cursor = Cursor(values: values, before: Bool.random(using: &r))
                if Bool.random(using: &r) { q.startAt = cursor } else { q.endAt = cursor }
            }
            guard let normalized = try? NormalizedQuery(q, database: testDatabaseID) else { continue }
            let got = try db.runQuery(q).documents.map(\.id)
            #expect(got == reference(all, normalized), "query \(q)")
            checked += 1
        }
        #expect(checked > 150)
    }
}
