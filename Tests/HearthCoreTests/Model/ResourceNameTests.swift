import Testing
@testable import HearthCore

/// The resource-name parser's answers, each as the official emulator gave it for the same
/// name (docs/semantics.md#resource-names).
@Suite("ResourceName")
struct ResourceNameTests {
    static let db = "projects/p/databases/(default)"

    @Test("document names: what is missing, and where", arguments: [
        ("", "lacks \"projects\" at index 0."),
        ("c/a", "lacks \"projects\" at index 0."),
        ("/\(db)/documents/c/a", "lacks \"projects\" at index 0."),
        ("projects", "lacks \"/\" at index 8."),
        ("projects/", "has invalid trailing \"/\"."),
        ("projects//databases/(default)/documents/c/a", "lacks a project id at index 9."),
        ("projects/p/database/x", "lacks \"databases\" at index 11."),
        ("projects/p/databases/", "has invalid trailing \"/\"."),
        ("projects/p/databases//documents/c/a", "lacks a database id at index 21."),
        (db, "lacks \"/\" at index 30."),
        ("\(db)/docs/c/a", "lacks \"documents\" at index 31."),
        ("\(db)/documentsX/c/a", "lacks \"/\" at index 40."),
        ("\(db)/documents", "is invalid: Omit \"/documents\" when referencing a database (except as the parent of a document)."),
        ("\(db)/documents/", "is invalid: Omit trailing \"/\"."),
        ("\(db)/documents/c", "lacks \"/\" at index 42."),
        ("\(db)/documents/c/", "has invalid trailing \"/\"."),
        ("\(db)/documents/c/a/", "has invalid trailing \"/\"."),
        ("\(db)/documents/c/a/b", "lacks \"/\" at index 46."),
        ("\(db)/documents//c/a", "lacks a collection id at index 41."),
        ("\(db)/documents/c//a", "lacks a resource id at index 43."),
        ("\(db)/documents/../a", "contains a collection id \"..\" at index 41."),
        ("\(db)/documents/c/./d/e", "contains a resource id \".\" at index 43."),
        ("\(db)/documents/c/a/d/..", "contains a resource id \"..\" at index 47."),
    ] as [(String, String)])
    func documentErrors(_ name: String, _ problem: String) {
        expectFirestoreError(.invalidArgument, message: "Document name \"\(name)\" \(problem)") {
            try ResourceName.parse(name, as: .document)
        }
    }

    @Test("indexes count UTF-16 units, as the emulator's Java does")
    func utf16Index() {
        expectFirestoreError(.invalidArgument, message: "Document name \"\(Self.db)/documents/é🐵/./x\" contains a resource id \".\" at index 45.") {
            try ResourceName.parse("\(Self.db)/documents/é🐵/./x", as: .document)
        }
    }

    @Test("project ids as production checks them", arguments: [
        ("demo-x", true), ("a", true), ("1abc", true), ("abc-", true), ("google.com:proj", true), (String(repeating: "x", count: 100), true),
        ("DEMO-X", false), ("demo.x", false), ("demo_x", false), ("-abc", false), ("p q", false), (String(repeating: "x", count: 101), false),
    ] as [(String, Bool)])
    func projectIDs(_ id: String, _ valid: Bool) throws {
        if valid {
            try ResourceName.validateProjectID(id)
            _ = try ResourceName.database("projects/\(id)/databases/(default)")
        } else {
            let error = expectFirestoreError(.invalidArgument, containing: ["Project id \(id) is malformed: it either contains invalid characters or is too long."]) {
                try ResourceName.database("projects/\(id)/databases/(default)")
            }
            #expect(error?.message.hasSuffix("for instructions in how to get a project's id.") == true)
        }
    }

    @Test("parses documents, parents and databases")
    func parses() throws {
        let (database, path) = try ResourceName.parse("projects/p/databases/d/documents/c/a/s/b", as: .document)
        #expect(database == DatabaseID(project: "p", database: "d"))
        #expect(path == testPath("c/a/s/b"))
        #expect(try ResourceName.parse("\(Self.db)/documents", as: .documentParent).path == .root)
        #expect(try ResourceName.parse("\(Self.db)/documents/c/a", as: .documentParent).path == testPath("c/a"))
        #expect(try ResourceName.database(Self.db) == DatabaseID(project: "p"))
        // Ids are checked where the document is read or written, not by the name's parse.
        #expect(try ResourceName.parse("\(Self.db)/documents/c/__x__", as: .document).path == testPath("c/__x__"))
        // Names are scanned in the String's own bytes: non-ASCII ids, and a name that is a
        // slice's copy, read the same.
        let unicode = "projects/p/databases/(default)/documents/café/𝄞/sub/\u{301}x"
        let (db2, path2) = try ResourceName.parse(String(unicode.dropFirst(0)), as: .document)
        #expect(db2 == DatabaseID(project: "p"))
        #expect(path2.segments == ["café", "𝄞", "sub", "\u{301}x"])
    }

    @Test("a database names its documents as the parser reads them")
    func resourceNamesRoundTrip() throws {
        let db = DatabaseID(project: "example.com:p-1", database: "d")
        #expect(db.resourceName(.root) == "projects/example.com:p-1/databases/d/documents")
        for segments in [["c", "a"], ["c", "a", "s", "b"], ["é", "𝄞"], ["c", String(repeating: "x", count: 300)]] {
            let name = db.resourceName(ResourcePath(segments: segments))
            #expect(name == "projects/example.com:p-1/databases/d/documents/" + segments.joined(separator: "/"))
            let (parsed, path) = try ResourceName.parse(name, as: .document)
            #expect(parsed == db && path.segments == segments)
        }
    }

    @Test("parents and databases end where their forms do", arguments: [
        (ResourceName.Kind.documentParent, db, "Document parent name \"\(db)\" lacks \"/\" at index 30."),
        (.documentParent, "\(db)/documents/c", "Document parent name \"\(db)/documents/c\" lacks \"/\" at index 42."),
        (.documentParent, "\(db)/documents/", "Document parent name \"\(db)/documents/\" is invalid: Omit trailing \"/\"."),
        (.database, "", "Database name \"\" lacks \"projects\" at index 0."),
        (.database, "\(db)/documents", "Database name \"\(db)/documents\" has extra characters at index 30."),
        (.database, "\(db)/", "Database name \"\(db)/\" has invalid trailing \"/\"."),
        (.database, "projects/p/databases//", "Database name \"projects/p/databases//\" lacks a database id at index 21."),
    ] as [(ResourceName.Kind, String, String)])
    func otherKinds(_ kind: ResourceName.Kind, _ name: String, _ message: String) {
        expectFirestoreError(.invalidArgument, message: message) { try ResourceName.parse(name, as: kind) }
    }

    @Test("reference values name documents, and their ids are checked", arguments: [
        (db, "Non-document resource reference value not supported."),
        ("\(db)/docs/c/a", "Resource \"\(db)/docs/c/a\" is not recognized."),
        ("\(db)/documents", "Resource name \"\(db)/documents\" is invalid: Omit \"/documents\" when referencing a database (except as the parent of a document)."),
        ("users/alice", "Resource name \"users/alice\" lacks \"projects\" at index 0."),
        ("\(db)/documents/c/__x__", "Resource id \"__x__\" is invalid because it is reserved."),
        ("\(db)/documents/__x__/a", "Collection id \"__x__\" is invalid because it is reserved."),
        ("\(db)/documents/c/" + String(repeating: "x", count: 1501), "The key path element name is longer than 1500 bytes."),
    ] as [(String, String)])
    func references(_ name: String, _ message: String) {
        expectFirestoreError(.invalidArgument, message: message) { try DocumentName.parseReference(name) }
    }
}
