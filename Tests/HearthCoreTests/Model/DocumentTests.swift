import Testing
@testable import HearthCore

/// `Document` shares one object between copies: these check it still behaves as a value.
@Suite("Document value semantics and memo")
struct DocumentTests {
    private func sample() -> Document {
        Document(path: testPath("c/d"), fields: testFields(["a": .integer(1), "m": .map(testFields(["x": .string("s")]))]),
                 createTime: Timestamp(seconds: 10, nanos: 0), updateTime: Timestamp(seconds: 20, nanos: 0))
    }

    @Test("changing any part of a copy leaves the original as it was")
    func copiesAreIndependent() {
        let original = sample()
        var copy = original
        copy.fields.setValue(.integer(2), at: FieldPath(["a"]))
        copy.path = testPath("c/e")
        copy.createTime = Timestamp(seconds: 11, nanos: 0)
        copy.updateTime = Timestamp(seconds: 21, nanos: 0)
        #expect(original.value(at: FieldPath(["a"])) == .integer(1))
        #expect(original.path == testPath("c/d"))
        #expect(original.createTime == Timestamp(seconds: 10, nanos: 0))
        #expect(original.updateTime == Timestamp(seconds: 20, nanos: 0))
        #expect(copy.value(at: FieldPath(["a"])) == .integer(2))
        #expect(copy.path == testPath("c/e"))
        #expect(copy != original)
        #expect(sample() == original)
    }

    @Test("the front-end cache is kept per owner, shared by copies, and dropped when the fields change")
    func frontEndCache() {
        final class Owner {}
        final class Made: Sendable {
            let n: Int
            init(_ n: Int) { self.n = n }
        }
        final class Other: Sendable {}
        let (first, second) = (Owner(), Owner())
        var made = 0
        func read(_ doc: Document, _ owner: Owner) -> Int {
            if let hit = doc.frontEndCache(for: owner) as? Made { return hit.n }
            made += 1
            doc.setFrontEndCache(Made(made), for: owner)
            return made
        }
        let doc = sample()
        #expect(read(doc, first) == 1)
        let copy = doc
        #expect(read(copy, first) == 1)  // a copy shares the cache
        #expect(read(doc, second) == 2)  // another owner replaces it
        #expect(read(doc, first) == 3)

        var changed = doc
        changed.fields.setValue(.integer(5), at: FieldPath(["a"]))
        #expect(read(changed, first) == 4)  // new fields: not the original's cache
        #expect(read(doc, first) == 3)      // and the original keeps its own

        var retimed = doc
        retimed.updateTime = Timestamp(seconds: 30, nanos: 0)
        #expect(read(retimed, first) == 5)  // a changed copy starts without a cache
        doc.markReplaced()  // a replaced document drops its cache
        #expect(doc.isReplaced)
        #expect(read(doc, first) == 6)

        var solo = sample()  // changed in place: no other copy
        #expect(read(solo, first) == 7)
        solo.fields.setValue(.integer(9), at: FieldPath(["a"]))
        #expect(read(solo, first) == 8)
        solo.setFrontEndCache(Other(), for: first)  // another type replaces it
        #expect(read(solo, first) == 9)
    }
}
