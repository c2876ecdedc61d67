import HearthCore
import Testing
@testable import HearthRules

/// Batched writes and transactions (docs/rules-language.md#batches-and-transactions) and access-call limits (docs/rules-language.md#limits).
@Suite struct BatchTests {
    let rules = """
        match /cities/{city} {
          allow update: if getAfter(/databases/$(database)/documents/countries/$(request.resource.data.country)).data.last_updated == request.time;
        }
        match /countries/{c} {
          allow update: if true;
        }
        match /rooms/{room} {
          allow create: if existsAfter(/databases/$(database)/documents/rooms/$(room)/members/$(request.auth.uid));
          match /members/{m} {
            allow create: if m == request.auth.uid && getAfter(/databases/$(database)/documents/rooms/$(room)).data.owner == m;
          }
        }
        match /counters/{c} {
          allow delete: if !existsAfter(/databases/$(database)/documents/counters/$(c)) && exists(/databases/$(database)/documents/counters/$(c));
        }
        """

    let docs = ["cities/sf": fields(("country", .string("us"))),
                "countries/us": fields(("last_updated", .timestamp(Timestamp(seconds: 0, nanos: 0)))),
                "counters/c1": fields(("n", .integer(1)))]

    @Test func getAfterSeesTheWholeBatch() throws {
        let p = try program(rules)
        let alice = RulesAuth.mockUser(uid: "alice")
        let city = RulesWrite(path: path("cities/sf"), newData: fields(("country", .string("us")), ("pop", .integer(1))))
        let country = RulesWrite(path: path("countries/us"), newData: fields(("last_updated", .timestamp(testTime))))
        // Alone, the city update is denied: the country's last_updated is old.
        #expect(!p.evaluateBatch([city], auth: alice, time: testTime, data: store(docs)).allowed)
        // In one batch with the country update, getAfter sees the new value.
        let both = p.evaluateBatch([city, country], auth: alice, time: testTime, data: store(docs))
        #expect(both.allowed)
        #expect(both.decisions.map(\.method) == [.update, .update])
    }

    @Test func createsThatReferToEachOther() throws {
        let p = try program(rules)
        let alice = RulesAuth.mockUser(uid: "alice")
        let room = RulesWrite(path: path("rooms/r1"), newData: fields(("owner", .string("alice"))))
        let member = RulesWrite(path: path("rooms/r1/members/alice"), newData: fields(("joined", .boolean(true))))
        #expect(p.evaluateBatch([room, member], auth: alice, time: testTime, data: store(docs)).allowed)
        let denied = p.evaluateBatch([room], auth: alice, time: testTime, data: store(docs))
        #expect(!denied.allowed)
        #expect(denied.firstDenial?.path == "/databases/(default)/documents/rooms/r1")
        let delete = p.evaluateBatch([RulesWrite(path: path("counters/c1"), newData: nil)], auth: alice, time: testTime, data: store(docs))
        #expect(delete.allowed && delete.decisions[0].method == .delete)
    }

    func existsChain(_ n: Int, prefix: String = "d") -> String {
        (0..<n).map { "exists(/databases/$(database)/documents/docs/\(prefix)\($0))" }.joined(separator: " && ")
    }

    @Test func tenDistinctDocumentsPerRequest() throws {
        var d: [String: MapValue] = [:]
        for i in 0..<30 { d["docs/d\(i)"] = fields(("n", .integer(Int64(i)))) }
        #expect(holds(existsChain(10), docs: d))
        #expect(errors(existsChain(11), docs: d))
        #expect(holds("(\(existsChain(11))) || true", docs: d))          // absorbed (docs/rules-language.md#limits)
        #expect(holds(Array(repeating: "exists(/databases/$(database)/documents/docs/d0)", count: 12).joined(separator: " && "), docs: d))
        #expect(try outcome("false && \(existsChain(11))", docs: d) == .notGranted)
    }

    @Test func twentyPerBatchWithTenPerWrite() throws {
        var d: [String: MapValue] = [:]
        for i in 0..<30 { d["docs/d\(i)"] = fields(("n", .integer(Int64(i)))) }
        let p = try program("""
            match /a/{id} { allow create: if \(existsChain(8, prefix: "d")); }
            match /b/{id} { allow create: if \((8..<16).map { "exists(/databases/$(database)/documents/docs/d\($0))" }.joined(separator: " && ")); }
            match /c/{id} { allow create: if \((16..<24).map { "exists(/databases/$(database)/documents/docs/d\($0))" }.joined(separator: " && ")); }
            """)
        let w = { (c: String) in RulesWrite(path: path("\(c)/x"), newData: fields(("v", .integer(1)))) }
        #expect(p.evaluateBatch([w("a"), w("b")], auth: nil, time: testTime, data: store(d)).allowed)       // 16 of 20
        let three = p.evaluateBatch([w("a"), w("b"), w("c")], auth: nil, time: testTime, data: store(d))  // 24 > 20
        #expect(!three.allowed)
        #expect(three.decisions.map(\.allowed) == [true, true, false])
    }

    /// Observed on the emulator: a document fetched by an earlier write of the batch is a
    /// cache hit for later writes and counts against neither limit.
    @Test func batchSharesItsDocumentCache() throws {
        var d: [String: MapValue] = [:]
        for i in 0..<30 { d["docs/d\(i)"] = fields(("n", .integer(Int64(i)))) }
        let p = try program("""
            match /a/{id} { allow create: if \(existsChain(8)); }
            match /d/{id} { allow create: if \(existsChain(11)); }
            """)
        let w = { (c: String) in RulesWrite(path: path("\(c)/x"), newData: fields(("v", .integer(1)))) }
        #expect(!p.evaluateBatch([w("d")], auth: nil, time: testTime, data: store(d)).allowed)          // 11 > 10
        #expect(p.evaluateBatch([w("a"), w("d")], auth: nil, time: testTime, data: store(d)).allowed)   // 8 cached + 3 new
        #expect(p.evaluateBatch([w("a"), w("a"), w("a")].enumerated().map { RulesWrite(path: path("a/x\($0.offset)"), newData: $0.element.newData) },
                                auth: nil, time: testTime, data: store(d)).allowed)
    }
}
