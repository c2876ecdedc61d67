import Foundation
import Testing
@testable import HearthCore

@Suite("RankedDocumentList")
struct RankedDocumentListTests {
    private func entry(_ score: Int, _ id: String) -> ViewEntry {
        let doc = Document(path: testPath("c/\(id)"), fields: testFields(["score": .integer(Int64(score))]),
                           createTime: testEpoch, updateTime: testEpoch)
        return order.entry(doc)
    }

    private let order = ViewOrder([Ordering(testFieldPath("score"), descending: true), Ordering(.documentName, descending: true)])

    @Test("random inserts and removals keep order, ranks and chunk sizes exact")
    func randomOperations() {
        var rng = SystemRandomNumberGenerator()
        var list = RankedDocumentList()
        var reference: [ViewEntry] = []
        var seq = 0
        for step in 0..<4000 {
            if reference.isEmpty || Int.random(in: 0..<3, using: &rng) > 0 {
                seq += 1
                let e = entry(Int.random(in: 0..<200, using: &rng), String(format: "d%05d", seq))
                let rank = list.insert(e, order)
                let expected = reference.firstIndex { order.compare($0, e) > 0 } ?? reference.count
                #expect(rank == expected)
                reference.insert(e, at: expected)
            } else {
                let i = Int.random(in: 0..<reference.count, using: &rng)
                #expect(list.remove(reference[i], order) == i)
                reference.remove(at: i)
            }
            if step % 500 == 0 {
                #expect(list.invariantViolation(order) == nil)
                #expect(list.map(\.path) == reference.map(\.path))
            }
        }
        #expect(list.invariantViolation(order) == nil)
        #expect(list.count == reference.count)
        #expect(Array(list.map(\.path)) == reference.map(\.path))
        #expect(list[list.count / 2].path == reference[reference.count / 2].path)
        #expect(list.remove(entry(999, "absent"), order) == nil)
    }

    @Test("a copy is unaffected by later changes (snapshots share chunks)")
    func copiesAreIndependent() {
        var list = RankedDocumentList(sorted: (0..<1000).map { entry(1000 - $0, String(format: "d%04d", $0)) })
        let copy = list
        list.insert(entry(5000, "top"), order)
        _ = list.removeLast()
        #expect(copy.count == 1000 && list.count == 1000)
        #expect(copy[0].id == "d0000" && list[0].id == "top")
        #expect(copy[999].id == "d0999" && list[999].id == "d0998")
    }
}
