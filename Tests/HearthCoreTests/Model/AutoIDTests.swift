import Testing
@testable import HearthCore

@Suite("Auto IDs (docs/semantics.md#paths-and-ids)")
struct AutoIDTests {
    @Test("20 characters from [A-Za-z0-9], different every time, and valid document IDs")
    func shape() throws {
        let ids = (0..<1000).map { _ in AutoID.generate() }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            #expect(id.utf8.count == 20)
            #expect(id.utf8.allSatisfy { (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) })
            #expect(try ResourcePath.parse("c/\(id)").isDocument)
        }
        // Every character of the alphabet turns up (20,000 draws from 62 letters).
        #expect(Set(ids.joined()).count == 62)
    }
}
