import Foundation
import Testing
@testable import HearthCore

@Suite("DocumentKey storage order")
struct DocumentKeyTests {
    /// Tricky document paths: numeric IDs, prefixes, NUL and high bytes, nested collections.
    static let paths: [ResourcePath] = [
        "c/a", "c/b", "c/B", "c/__id7__", "c/__id12__", "c/__id-9223372036854775808__", "c/__id9223372036854775807__",
        "c/12", "c/7", "c/a\u{0}", "c/a\u{0}b", "c/a\u{1}", "c/ab", "c/\u{E9}", "c/e\u{301}", "c/🐵", "c/Ｐ",
        "c/a/sub/x", "c/a/sub/__id1__", "c/b/sub/a", "c/__id7__/sub/a", "cc/a", "c\u{0}/a", "b/z", "__id3__/a",
        "c/a/s/x/t/y",
        // Keys longer than the 32 bytes kept inline, equal through them and differing after.
        "longcollectionname/abcdefghijklmnopqrstuvwxyz", "longcollectionname/abcdefghijklmnopqrstuvwxyz0",
        "longcollectionname/abcdefghijklmnopqrstuvwxyz1", "longcollectionname/abcdefghijklmnopqrstuvwxyz\u{0}",
        "longcollectionname/abcdefghijk", "longcollectionname/abcdefghijl", "longcollectionname/abcdefghij\u{0}",
        "longcollectionname/abcdefghijklmnopqrstuvwxyz/sub/a", "longcollectionnamf/a",
    ].map { ResourcePath(segments: $0.split(separator: "/").map(String.init)) }

    /// The documented order: parent collection path, then document ID (the ID order of docs/semantics.md#value-order).
    static func reference(_ a: ResourcePath, _ b: ResourcePath) -> Int {
        let c = ResourcePath.compare(a.parent, b.parent)
        return c != 0 ? c : ResourcePath.compareSegments(a.lastSegment, b.lastSegment)
    }

    @Test("keys order by collection, then document ID, for every pair")
    func pairwiseOrder() {
        for a in Self.paths {
            for b in Self.paths {
                let expected = Self.reference(a, b)
                let ka = DocumentKey(a), kb = DocumentKey(b)
                #expect((ka < kb) == (expected < 0), "\(a) vs \(b)")
                #expect((ka == kb) == (expected == 0), "\(a) vs \(b)")
                if expected == 0 { #expect(ka.hashValue == kb.hashValue) }
            }
        }
    }

    @Test("random keys around the 32-byte inline head order like their paths")
    func randomOrder() {
        // Short alphabets with NUL make long shared prefixes and zero bytes at every offset.
        var rng = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["a", "b", "\u{0}", "_", "1"]
        func segment(_ length: Int) -> String { String((0..<length).map { _ in alphabet.randomElement(using: &rng)! }) }
        func path() -> ResourcePath {
            var segments = [String(repeating: "c", count: Int.random(in: 1...14, using: &rng)), segment(Int.random(in: 1...30, using: &rng))]
            if Bool.random(using: &rng) { segments += ["s", segment(Int.random(in: 1...8, using: &rng))] }
            return ResourcePath(segments: segments)
        }
        let sample = (0..<400).map { _ in path() }
        for (a, b) in Array(zip(sample, sample.shuffled(using: &rng))) + Array(zip(sample, sample)) {
            let expected = Self.reference(a, b)
            let ka = DocumentKey(a), kb = DocumentKey(b)
            #expect((ka < kb) == (expected < 0), "\(a) vs \(b)")
            #expect((kb < ka) == (expected > 0), "\(b) vs \(a)")
            #expect((ka == kb) == (expected == 0), "\(a) vs \(b)")
            if expected == 0 { #expect(ka.hashValue == kb.hashValue) }
        }
    }

    @Test("the bytes a key hands out order as the keys do; collection start keys prefix exactly their documents")
    func bytesAndPrefixes() {
        func bytes(_ key: DocumentKey) -> [UInt8] {
            var out: [UInt8] = []
            key.appendBytes(0..<key.encodedLength, to: &out)
            return out
        }
        for a in Self.paths {
            let ka = DocumentKey(a)
            #expect(bytes(ka).count == ka.encodedLength)
            for b in Self.paths {
                let kb = DocumentKey(b)
                let c = OrderedBytes.compare(bytes(ka), bytes(kb))
                #expect((c < 0) == (ka < kb) && (c == 0) == (ka == kb), "\(a) vs \(b)")
                let start = DocumentKey.start(of: b.parent)
                #expect(ka.hasPrefix(start) == (a.parent == b.parent), "\(a) in \(b.parent)")
                var prefix: [UInt8] = []
                ka.appendBytes(0..<ka.collectionPrefixLength, to: &prefix)
                #expect((prefix == bytes(start)) == (a.parent == b.parent), "\(a) prefix vs \(b.parent)")
                // Within one collection, the ID's bytes alone order as the keys do.
                if a.parent == b.parent {
                    var ida: [UInt8] = [], idb: [UInt8] = []
                    ka.appendBytes(ka.collectionPrefixLength..<ka.encodedLength, to: &ida)
                    kb.appendBytes(kb.collectionPrefixLength..<kb.encodedLength, to: &idb)
                    #expect(prefix + ida == bytes(ka))
                    let c = OrderedBytes.compare(ida, idb)
                    #expect((c < 0) == (ka < kb) && (c == 0) == (ka == kb), "\(a) vs \(b) by ID")
                }
            }
        }
    }

    @Test("keys round-trip their path")
    func roundTrip() {
        for p in Self.paths {
            let k = DocumentKey(p)
            #expect(k.path == p && k.collection == p.parent && k.id == p.lastSegment)
        }
    }

    @Test("collection listings hold exactly the collection's documents, in ID order")
    func listings() throws {
        let (db, _) = makeTestDatabase()
        try db.commit(Self.paths.map { .set($0, MapValue()) })
        let state = db.state()
        var collections = Set(Self.paths.map(\.parent))
        collections.insert(testPath("c/a/s"))  // never written: empty
        for collection in collections {
            let expected = Self.paths.filter { $0.parent == collection }
                .sorted { ResourcePath.compareSegments($0.lastSegment, $1.lastSegment) < 0 }
            #expect(state.documents(in: collection).map(\.path) == expected, "\(collection)")
        }
        #expect(state.allDocuments().map(\.path) == Self.paths.sorted { Self.reference($0, $1) < 0 })
    }
}
