import Foundation
import Testing
@testable import HearthCore

@Suite("ResourcePath (docs/semantics.md#paths-and-ids)")
struct ResourcePathTests {
    @Test("parse splits on / and ignores one leading and trailing slash", arguments: [
        ("a/b", ["a", "b"]), ("/a/b", ["a", "b"]), ("a/b/", ["a", "b"]), ("/a/b/c/", ["a", "b", "c"]),
        ("users", ["users"]), ("", []), ("/", []),
    ] as [(String, [String])])
    func parse(_ text: String, _ segments: [String]) throws {
        let path = try ResourcePath.parse(text)
        #expect(path.segments == segments)
    }

    @Test("parse rejects empty segments", arguments: ["a//b", "//a", "a//", "a/b//c/d"])
    func parseDoubleSlash(_ text: String) {
        expectFirestoreError(.invalidArgument, message: "Invalid path (\(text)). Paths must not contain // in them.") {
            try ResourcePath.parse(text)
        }
    }

    @Test("document and collection paths")
    func kinds() {
        #expect(testPath("a/b").isDocument && !testPath("a/b").isCollection)
        #expect(testPath("a").isCollection && !testPath("a").isDocument)
        #expect(testPath("a/b/c").isCollection)
        #expect(!ResourcePath.root.isDocument)
        #expect(testPath("a/b/c/d").parent == testPath("a/b/c"))
        #expect(testPath("a/b").lastSegment == "b")
        #expect(testPath("a/b").isPrefix(of: testPath("a/b/c/d")))
        #expect(!testPath("a/b").isPrefix(of: testPath("a/bc")))
        #expect(testPath("a/b/c/d").description == "a/b/c/d")
    }

    @Test("paths compare byte-wise per segment, not canonically")
    func byteEquality() {
        #expect(testPath("c/\u{E9}") != testPath("c/e\u{301}"))
        #expect(Set([testPath("c/\u{E9}"), testPath("c/e\u{301}")]).count == 2)
        #expect(testPath("a/b") < testPath("a/b/c/d"))  // prefix first
        #expect(testPath("a/b/c/d") < testPath("a/c"))
    }

    // docs/semantics.md#paths-and-ids: server constraints on collection and document IDs.
    @Test("validateID rejects", arguments: [
        ("", "Resource id must not be empty."),
        (String(repeating: "x", count: 1501), "The key path element name is longer than 1500 bytes."),
        (String(repeating: "\u{E9}", count: 751), "The key path element name is longer than 1500 bytes."),  // 1502 bytes
        ("a/b", "Resource id \"a/b\" is invalid because it contains \"/\"."),
        (".", "Resource id \".\" is invalid because it is reserved."),
        ("..", "Resource id \"..\" is invalid because it is reserved."),
        ("__x__", "Resource id \"__x__\" is invalid because it is reserved."),
        ("__id__", "Resource id \"__id__\" is invalid because it is reserved."),
        ("____", "Resource id \"____\" is invalid because it is reserved."),
        ("__id1.5__", "Resource id \"__id1.5__\" is invalid because it is reserved."),
        ("__id9223372036854775808__", "is invalid because it is reserved."),
    ] as [(String, String)])
    func invalidIDs(_ id: String, _ message: String) {
        expectFirestoreError(.invalidArgument, containing: [message]) { try ResourcePath.validateID(id) }
    }

    @Test("a collection id's errors name a collection id (as the official emulator's do)")
    func collectionIDs() {
        expectFirestoreError(.invalidArgument, message: "Collection id \"__x__\" is invalid because it is reserved.") {
            try testPath("__x__/a").validateSegments()
        }
        expectFirestoreError(.invalidArgument, message: "Resource id \"__x__\" is invalid because it is reserved.") {
            try testPath("c/__x__").validateSegments()
        }
        expectFirestoreError(.invalidArgument, message: "The key path element kind is longer than 1500 bytes.") {
            try ResourcePath.validateID(String(repeating: "x", count: 1501), collection: true)
        }
    }

    @Test("validateID accepts", arguments: [
        "a", "__id7__", "__id-2__", "__id-9223372036854775808__", "...", ".a", "a.", "_x_", "__x", "x__", "___", "a.b",
        String(repeating: "x", count: 1500), String(repeating: "\u{E9}", count: 750), "岩澤", "🐵",
    ])
    func validIDs(_ id: String) throws {
        try ResourcePath.validateID(id)
        try testPath("c/\(id)").validateSegments()
    }

    @Test("document path validation")
    func documentPaths() throws {
        try DocumentLimits.validateDocumentPath(testPath("c/d/e/f"), database: testDatabaseID)
        expectFirestoreError(.invalidArgument, containing: ["even number of segments", "c/d/e", "has 3"]) {
            try DocumentLimits.validateDocumentPath(testPath("c/d/e"), database: testDatabaseID)
        }
        expectFirestoreError(.invalidArgument, containing: ["\"__d__\"", "reserved"]) {
            try DocumentLimits.validateDocumentPath(testPath("c/__d__"), database: testDatabaseID)
        }
        expectFirestoreError(.invalidArgument, containing: ["\"__c__\"", "reserved"]) {
            try DocumentLimits.validateDocumentPath(testPath("__c__/d"), database: testDatabaseID)
        }
        // Subcollection depth ≤ 100.
        let deep = ResourcePath(segments: (0..<202).map { "s\($0)" })
        expectFirestoreError(.invalidArgument, containing: ["more than 100 subcollections"]) {
            try DocumentLimits.validateDocumentPath(deep, database: testDatabaseID)
        }
        try DocumentLimits.validateDocumentPath(ResourcePath(segments: (0..<200).map { "s\($0)" }), database: testDatabaseID)
        // Document name ≤ 6 KiB.
        let long = ResourcePath(segments: (0..<6).map { _ in String(repeating: "x", count: 1100) })
        expectFirestoreError(.invalidArgument, containing: ["longer than 6144 bytes"]) {
            try DocumentLimits.validateDocumentPath(long, database: testDatabaseID)
        }
    }
}

@Suite("FieldPath (docs/semantics.md#field-paths)")
struct FieldPathTests {
    @Test("parseDotted splits on dots; backticks are ordinary", arguments: [
        ("a", ["a"]), ("a.b.c", ["a", "b", "c"]), ("`a.b`", ["`a", "b`"]), ("a`b", ["a`b"]),
        ("__name__", ["__name__"]), ("a.__name__", ["a", "__name__"]), ("岩.澤", ["岩", "澤"]), ("a b", ["a b"]),
    ] as [(String, [String])])
    func parseDotted(_ text: String, _ segments: [String]) throws {
        #expect(try FieldPath.parseDotted(text).segments == segments)
    }

    @Test("__name__ means the document ID")
    func documentName() throws {
        #expect(try FieldPath.parseDotted("__name__").isDocumentName)
        #expect(try FieldPath.parseDotted("__name__") == FieldPath.documentName)
        #expect(try !FieldPath.parseDotted("a.__name__").isDocumentName)
    }

    @Test("parseDotted rejects empty segments", arguments: ["", ".", ".a", "a.", "a..b", "a.b."])
    func parseDottedEmpty(_ text: String) {
        expectFirestoreError(.invalidArgument,
            message: "Invalid field path (\(text)). Paths must not be empty, begin with '.', end with '.', or contain '..'") {
            try FieldPath.parseDotted(text)
        }
    }

    @Test("parseDotted rejects ~ * / [ ]", arguments: ["a~b", "*", "a/b", "a[0]", "a]", "x.y*z"])
    func parseDottedForbidden(_ text: String) {
        expectFirestoreError(.invalidArgument,
            message: "Invalid field path (\(text)). Paths must not contain '~', '*', '/', '[', or ']'") {
            try FieldPath.parseDotted(text)
        }
    }

    @Test("parseServerFormat", arguments: [
        ("a", ["a"]), ("a.b", ["a", "b"]), ("_x1.y_2", ["_x1", "y_2"]), ("`a.b`.c", ["a.b", "c"]),
        ("`a\\`b`", ["a`b"]), ("`a\\\\b`", ["a\\b"]), ("`1a`", ["1a"]), ("`é`.`a b`", ["é", "a b"]),
        ("`x`", ["x"]), ("__name__", ["__name__"]),
    ] as [(String, [String])])
    func parseServerFormat(_ text: String, _ segments: [String]) throws {
        #expect(try FieldPath.parseServerFormat(text).segments == segments)
    }

    @Test("parseServerFormat rejects malformed paths", arguments: [
        ("", "Field paths must not be empty."),
        ("1a", "Non-simple field names must be quoted with backticks"),
        ("a b", "Non-simple field names must be quoted with backticks"),
        ("a-b", "Non-simple field names must be quoted with backticks"),
        ("`abc", "Unterminated ` in field path."),
        ("``", "Empty field names are not allowed."),
        ("a..b", "Empty field names are not allowed."),
        (".a", "Empty field names are not allowed."),
        ("a.", "Field paths must not end with '.'."),
        ("`a`b", "Unexpected character after quoted field name."),
        ("`a\\", "Trailing escape character is not allowed."),
    ] as [(String, String)])
    func parseServerFormatErrors(_ text: String, _ why: String) {
        // The official emulator's texts (`why` says what is wrong, for the reader of this test).
        let expected = text.isEmpty ? "Invalid empty property path string." : "Invalid property path \"\(text)\". Unquoted property paths must match regex"
        expectFirestoreError(.invalidArgument, containing: [expected]) {
            try FieldPath.parseServerFormat(text)
        }
    }

    @Test("serverFormat quotes non-simple names and round-trips", arguments: [
        (["a"], "a"), (["a", "b"], "a.b"), (["a.b", "c"], "`a.b`.c"), (["a`b"], "`a\\`b`"),
        (["a\\b"], "`a\\\\b`"), (["1"], "`1`"), (["_1"], "_1"), (["é"], "`é`"), (["a b", "x"], "`a b`.x"),
        (["__name__"], "__name__"), (["`"], "`\\``"), (["a1", "B_"], "a1.B_"),
    ] as [([String], String)])
    func serverFormatRoundTrip(_ segments: [String], _ formatted: String) throws {
        let path = FieldPath(segments)
        #expect(path.serverFormat == formatted)
        #expect(try FieldPath.parseServerFormat(formatted) == path)
        #expect(path.dotted == segments.joined(separator: "."))
    }

    // docs/semantics.md#field-paths: written names non-empty, not `__x__`, ≤ 1,500 bytes (name and path).
    @Test("validateForWrite")
    func validateForWrite() throws {
        try FieldPath(["a", "b"]).validateForWrite()
        try FieldPath(["__x", "x__", "_x_"]).validateForWrite()
        try FieldPath([String(repeating: "x", count: 1500)]).validateForWrite()
        expectFirestoreError(.invalidArgument, message: "Invalid data. Document fields must not be empty") {
            try FieldPath(["a", ""]).validateForWrite()
        }
        expectFirestoreError(.invalidArgument, containing: ["Invalid data. Document fields cannot begin and end with \"__\"", "a.__x__"]) {
            try FieldPath(["a", "__x__"]).validateForWrite()
        }
        expectFirestoreError(.invalidArgument, containing: ["cannot begin and end with \"__\""]) {
            try FieldPath.documentName.validateForWrite()
        }
        expectFirestoreError(.invalidArgument, containing: ["Field name is longer than 1500 bytes"]) {
            try FieldPath([String(repeating: "x", count: 1501)]).validateForWrite()
        }
        expectFirestoreError(.invalidArgument, containing: ["Field path is longer than 1500 bytes"]) {
            try FieldPath([String(repeating: "x", count: 800), String(repeating: "y", count: 800)]).validateForWrite()
        }
    }

    @Test("order, equality and prefixes by UTF-8 bytes")
    func orderAndPrefix() {
        #expect(FieldPath(["a"]) < FieldPath(["a", "b"]))
        #expect(FieldPath(["a", "z"]) < FieldPath(["b"]))
        #expect(FieldPath(["B"]) < FieldPath(["a"]))
        #expect(FieldPath(["\u{E9}"]) != FieldPath(["e\u{301}"]))
        #expect(FieldPath(["a"]).isPrefix(of: FieldPath(["a", "b"])))
        #expect(FieldPath(["a"]).isPrefix(of: FieldPath(["a"])))
        #expect(!FieldPath(["a", "b"]).isPrefix(of: FieldPath(["a"])))
        #expect(!FieldPath(["a"]).isPrefix(of: FieldPath(["ab"])))
        // Overlap is a prefix either way.
        #expect(FieldPath(["a"]).overlaps(FieldPath(["a", "b"])))
        #expect(FieldPath(["a", "b"]).overlaps(FieldPath(["a"])))
        #expect(FieldPath(["a", "b"]).overlaps(FieldPath(["a", "b"])))
        #expect(!FieldPath(["a", "b"]).overlaps(FieldPath(["a", "c"])))
        #expect(!FieldPath(["a"]).overlaps(FieldPath(["ab"])))
        #expect(!FieldPath(["\u{E9}"]).overlaps(FieldPath(["e\u{301}"])))
    }
}

@Suite("Cutting resource names at slashes")
struct SlashSeparatedTests {
    @Test("every slash cuts, empty parts kept", arguments: [
        ("", [""]), ("/", ["", ""]), ("a", ["a"]), ("a/b", ["a", "b"]), ("a//b", ["a", "", "b"]), ("/a/", ["", "a", ""]),
        ("projects/p/databases/(default)/documents/c/d", ["projects", "p", "databases", "(default)", "documents", "c", "d"]),
        ("caf\u{E9}/\u{1F600}x/\u{4E2D}", ["caf\u{E9}", "\u{1F600}x", "\u{4E2D}"]),
        // A combining mark after a slash is a character of its own here (a cut, as bytes
        // are), where Character-wise splitting would keep "/\u{301}" whole.
        ("a/\u{301}b", ["a", "\u{301}b"]),
    ])
    func cuts(_ text: String, _ parts: [String]) {
        #expect(ResourcePath.slashSeparated(text) == parts)
    }
}

@Suite("DocumentName")
struct DocumentNameTests {
    @Test("parses full document names")
    func parse() throws {
        let name = try DocumentName.parse("projects/p/databases/(default)/documents/c/d/e/f")
        #expect(name.database == DatabaseID(project: "p"))
        #expect(name.path == testPath("c/d/e/f"))
        #expect(name.description == "projects/p/databases/(default)/documents/c/d/e/f")
        #expect(testDatabaseID.resourceName(.root) == "projects/p/databases/(default)/documents")
    }

    @Test("rejects names that are not documents", arguments: [
        "", "projects/p", "projects/p/databases/(default)/documents", "projects/p/databases/(default)/documents/c",
        "projects/p/databases/(default)/documents/c//d", "projects//databases/d/documents/c/d", "project/p/databases/d/documents/c/d",
        "projects/p/databases/(default)/docs/c/d",
    ])
    func rejects(_ text: String) {
        expectFirestoreError(.invalidArgument, containing: ["Document name \"\(text)\" "]) { try DocumentName.parse(text) }
    }
}
