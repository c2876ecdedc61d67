import HearthCore
import Testing
@testable import HearthServer

/// A commit's change is encoded once per codec, database and target ids and shared: the
/// shared bytes are exactly what each stream's codec writes, a stream asking with other
/// target ids, another codec, another database or a newer version of the document gets
/// its own.
@Suite struct SharedListenEncodingsTests {
    static let db = DatabaseID(project: "shared-encodings", database: "(default)")
    static let other = DatabaseID(project: "shared-encodings", database: "second")

    static func doc(_ value: Int64, at seconds: Int64) -> Document {
        Document(path: ResourcePath(segments: ["rooms", "r1"]), fields: MapValue([("n", Value.integer(value))]),
                 createTime: Timestamp(seconds: 1, nanos: 0), updateTime: Timestamp(seconds: seconds, nanos: 0))
    }

    @Test func sharedBytesAreEachCodecsOwn() {
        let d = Self.doc(1, at: 5)
        let codecs: [any ListenCodec] = [ListenProtobufCodec(), ListenJSONCodec()]
        for codec in codecs {
            for ids in [[1], [2], [1, 2]] as [[Int32]] {
                for database in [Self.db, Self.other] {
                    let first = SharedListenEncodings.documentChange(d, database: database, targetIDs: ids, codec: codec)
                    let second = SharedListenEncodings.documentChange(d, database: database, targetIDs: ids, codec: codec)
                    let own = codec.documentChange(d, database: database, targetIDs: ids)
                    #expect(first == own)
                    #expect(second == own)
                }
            }
        }
        // A copy of the document shares its encodings; a changed document has none of them.
        var changed = d
        changed.fields = MapValue([("n", Value.integer(2))])
        #expect(SharedListenEncodings.documentChange(changed, database: Self.db, targetIDs: [1], codec: ListenProtobufCodec())
                == ListenProtobufCodec().documentChange(changed, database: Self.db, targetIDs: [1]))
        #expect(SharedListenEncodings.documentChange(d, database: Self.db, targetIDs: [1], codec: ListenProtobufCodec())
                != SharedListenEncodings.documentChange(changed, database: Self.db, targetIDs: [1], codec: ListenProtobufCodec()))
    }

    @Test func manyVariantsStayCorrect() {
        // More variants than are kept: the oldest are encoded again, never mixed up.
        let d = Self.doc(3, at: 7)
        let codec = ListenProtobufCodec()
        for round in 0..<2 {
            for id in Int32(1)...Int32(SharedListenEncodings.maxVariants + 4) {
                #expect(SharedListenEncodings.documentChange(d, database: Self.db, targetIDs: [id], codec: codec)
                        == codec.documentChange(d, database: Self.db, targetIDs: [id]), "round \(round), target \(id)")
            }
        }
    }

    @Test func noChangeIsTheCodecsAtEachReadTime() {
        for codec in [ListenProtobufCodec(), ListenJSONCodec()] as [any ListenCodec] {
            for seconds in [10, 10, 11, 10] as [Int64] {
                let t = Timestamp(seconds: seconds, nanos: 0)
                let own = codec.targetChange(.noChange, targetIDs: [], resumeToken: ListenResumeToken.encode(t), readTime: t)
                #expect(SharedListenEncodings.noChange(t, codec: codec) == own)
            }
        }
    }
}
