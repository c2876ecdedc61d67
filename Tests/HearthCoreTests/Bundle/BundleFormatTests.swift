import Foundation
import Testing
@testable import HearthCore

/// The bundle format: length-prefixed JSON elements, read as the mobile SDKs' bundle reader
/// reads them (firebase-ios-sdk Firestore/core/src/bundle/bundle_reader.cc,
/// bundle_serializer.cc, bundle_loader.cc) and written as the Admin SDKs write them.
@Suite("Bundle format")
struct BundleFormatTests {
    static let prefix = "projects/p/databases/(default)/documents"

    /// The SDK-style test bundle: two named queries over coll-1 (limit 1 by bar descending,
    /// first and last), two documents; timestamps as `{seconds, nanos}` objects, an integer
    /// as a JSON number, the limit as `{"value": n}` — all forms the SDKs' reader accepts.
    static func elements(project: String = "p") -> [String] {
        let root = "projects/\(project)/databases/(default)/documents"
        func query(_ name: String, _ type: String) -> String {
            #"{"namedQuery":{"name":"\#(name)","readTime":{"seconds":1000,"nanos":9999},"bundledQuery":{"parent":"\#(root)","structuredQuery":{"from":[{"collectionId":"coll-1"}],"orderBy":[{"field":{"fieldPath":"bar"},"direction":"DESCENDING"},{"field":{"fieldPath":"__name__"},"direction":"DESCENDING"}],"limit":{"value":1}},"limitType":"\#(type)"}}}"#
        }
        func doc(_ id: String, _ bar: Int) -> [String] {
            [#"{"documentMetadata":{"name":"\#(root)/coll-1/\#(id)","readTime":{"seconds":1000,"nanos":9999},"exists":true,"queries":["limit"]}}"#,
             #"{"document":{"name":"\#(root)/coll-1/\#(id)","createTime":{"seconds":1,"nanos":9},"updateTime":{"seconds":1,"nanos":9},"fields":{"k":{"stringValue":"\#(id)"},"bar":{"integerValue":\#(bar)}}}}"#]
        }
        return [query("limit", "FIRST"), query("limit-to-last", "LAST")] + doc("a", 1) + doc("b", 2)
    }

    /// Prefixes each element with its byte count and puts the metadata (with the right
    /// total) in front.
    static func bundle(_ elements: [String], id: String = "test-bundle", documents: Int = 2) -> [UInt8] {
        let body = elements.flatMap { e in Array("\(e.utf8.count)\(e)".utf8) }
        let metadata = #"{"metadata":{"id":"\#(id)","createTime":{"seconds":1001,"nanos":9999},"version":1,"totalDocuments":\#(documents),"totalBytes":\#(body.count)}}"#
        return Array("\(metadata.utf8.count)\(metadata)".utf8) + body
    }

    @Test("reads every element; progress counts the bytes after the metadata")
    func readsTheSDKsTestBundle() throws {
        let bytes = Self.bundle(Self.elements())
        let elements = try BundleReader.elements(bytes, database: testDatabaseID)
        #expect(elements.count == 7)
        guard case .metadata(let m) = elements[0], case .namedQuery(let q) = elements[2], case .document(let d) = elements[6] else {
            Issue.record("unexpected elements \(elements)")
            return
        }
        #expect(m.id == "test-bundle" && m.createTime == Timestamp(seconds: 1001, nanos: 9999) && m.totalDocuments == 2)
        #expect(q.name == "limit-to-last" && q.query.limitType == .last && q.query.query.limit == 1)
        #expect(q.query.query.orderBy == [Ordering(testFieldPath("bar"), descending: true), Ordering(.documentName, descending: true)])
        #expect(d.path == testPath("coll-1/b") && d.fields == testFields(["k": .string("b"), "bar": .integer(2)]))
        #expect(d.updateTime == Timestamp(seconds: 1, nanos: 9))

        var loader = BundleLoader(metadata: m)
        var progress: [Int] = []
        var reader = BundleReader(database: testDatabaseID)
        reader.append(bytes)
        _ = try reader.next(atEnd: true)
        while let (element, count) = try reader.next(atEnd: true) {
            if let p = try loader.add(element, byteCount: count) { progress.append(p.documentsLoaded) }
        }
        try loader.finish()
        #expect(progress == [1, 2])
        #expect(reader.bytesRead == m.totalBytes)
        #expect(loader.documents.map(\.path) == [testPath("coll-1/a"), testPath("coll-1/b")])
    }

    @Test("bytes arriving one at a time give the same elements")
    func incremental() throws {
        let bytes = Self.bundle(Self.elements())
        var reader = BundleReader(database: testDatabaseID)
        var got: [BundleElement] = []
        for b in bytes {
            reader.append([b])
            while let (element, _) = try reader.next(atEnd: false) { got.append(element) }
        }
        #expect(try reader.next(atEnd: true) == nil)
        #expect(got == (try BundleReader.elements(bytes, database: testDatabaseID)))
    }

    @Test("malformed bundles fail DATA_LOSS with the SDK's messages")
    func malformed() throws {
        func fails(_ bytes: [UInt8], _ fragment: String) {
            #expect(throws: FirestoreError.self) { try BundleReader.elements(bytes, database: testDatabaseID) }
            do { _ = try BundleReader.elements(bytes, database: testDatabaseID) } catch {
                #expect(error.code == .dataLoss && error.message.contains(fragment), "\(error)")
            }
        }
        fails(Self.bundle(Self.elements(project: "other")), "Resource name is not valid for current instance: projects/other/")
        fails(Array("x1{}".utf8), "Prefix string is not a valid number")
        fails(Array(Self.bundle(Self.elements()).dropLast(3)), "Available input string is smaller than what length prefix indicates")
        fails(Array("2{}".utf8), "Unrecognized BundleElement")
        fails(Array("3{x}".utf8), "Failed to parse string into json")
        fails(Self.bundle([#"{"namedQuery":{"name":"q","readTime":"2020-01-01T00:00:00Z","bundledQuery":{"parent":"\#(Self.prefix)","structuredQuery":{"from":[{"collectionId":"c"}],"offset":3}}}}"#]),
              "Queries with 'offset' are not supported in bundles")
        fails(Self.bundle([#"{"namedQuery":{"name":"q","readTime":"2020-01-01T00:00:00Z","bundledQuery":{"parent":"\#(Self.prefix)","structuredQuery":{"from":[{"collectionId":"c"}],"where":{"compositeFilter":{"op":"OR","filters":[]}}}}}}"#]),
              "The SDK only supports composite filters of type 'AND'")
        // A document element before the metadata.
        let doc = Self.elements()[3]
        fails(Array("\(doc.utf8.count)\(doc)".utf8), "Failed to get bundle metadata")
    }

    @Test("the loader refuses a document without its metadata and a wrong count (INVALID_ARGUMENT)")
    func loaderChecks() throws {
        let metadata = BundleMetadata(id: "b", createTime: testTime(0), totalDocuments: 1, totalBytes: 0)
        var loader = BundleLoader(metadata: metadata)
        let doc = Document(path: testPath("c/a"), fields: MapValue(), createTime: testTime(0), updateTime: testTime(0))
        expectFirestoreError(.invalidArgument, message: "The document being added does not match the stored metadata.") {
            _ = try loader.add(.document(doc), byteCount: 10)
        }
        _ = try loader.add(.documentMetadata(BundledDocumentMetadata(path: testPath("c/a"), readTime: testTime(0), exists: true)), byteCount: 10)
        expectFirestoreError(.invalidArgument, message: "Bundled documents end with a document metadata element instead of a document.") {
            try loader.finish()
        }
        // Two missing documents where the metadata promised one.
        for id in ["b", "c"] {
            _ = try loader.add(.documentMetadata(BundledDocumentMetadata(path: testPath("c/\(id)"), readTime: testTime(0), exists: false)), byteCount: 10)
        }
        expectFirestoreError(.invalidArgument, message: "Loaded documents count is not the same as in metadata.") { try loader.finish() }
    }

    @Test("the builder writes what the reader reads back, every value type exactly")
    func builderRoundTrip() throws {
        var builder = BundleBuilder(id: "round", database: testDatabaseID)
        let fields = testFields([
            "i": .integer(Int64.max), "d": .double(1.0), "nan": .double(.nan), "s": .string("é\n\"q\""), "b": .boolean(true),
            "n": .null, "t": .timestamp(Timestamp(seconds: 1_700_000_000, nanos: 123_456_000)), "bytes": .bytes(Data([0, 255])),
            "ref": testReference("c/x"), "geo": .geoPoint(GeoPoint(latitude: 1.5, longitude: -2)), "arr": .array([.integer(1), .string("x")]),
            "map": testMap(["deep": .integer(2)]), "vec": .vector([1, 2.5]),
        ])
        let a = Document(path: testPath("c/a"), fields: fields, createTime: testTime(1), updateTime: testTime(2))
        let query = BundledQuery(query: testQuery("c", where: and(field("i", .greaterThan, .integer(0)), unary("n", .isNull)),
                                                  orderBy: [Ordering(testFieldPath("i"))], startAt: Cursor(values: [.integer(0)], before: true), limit: 5),
                                 limitType: .last)
        try builder.add(namedQuery: "q", query: query, results: [a], readTime: testTime(3))
        builder.add(document: nil, path: testPath("c/gone"), readTime: testTime(4))
        expectFirestoreError(.invalidArgument, message: "Query name conflict: q has already been added.") {
            try builder.add(namedQuery: "q", query: query, results: [], readTime: testTime(3))
        }
        let elements = try BundleReader.elements(builder.build(), database: testDatabaseID)
        #expect(elements.count == 5)
        guard case .metadata(let m) = elements[0], case .namedQuery(let q) = elements[1], case .documentMetadata(let meta) = elements[2],
              case .document(let d) = elements[3], case .documentMetadata(let gone) = elements[4] else {
            Issue.record("unexpected elements \(elements)")
            return
        }
        #expect(m.id == "round" && m.createTime == testTime(4) && m.totalDocuments == 2)
        #expect(q.query == query && q.readTime == testTime(3))
        #expect(meta.queries == ["q"] && meta.exists && meta.readTime == testTime(3))
        #expect(d.path == a.path && d.createTime == a.createTime && d.updateTime == a.updateTime)
        for entry in fields.entries where entry.key != "nan" { #expect(d.fields[entry.key] == entry.value, "\(entry.key)") }
        #expect(d.fields["nan"]?.isNaN == true)
        #expect(!gone.exists && gone.path == testPath("c/gone"))
    }
}
