#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The resource names requests carry — a database (`projects/p/databases/d`), a document
/// parent (`…/documents` or a document), a document, or a reference value — read the one way
/// every front end shares, with the official emulator's errors: each says what was expected
/// and at which index (UTF-16, as Java counts) the name went wrong (`Document name "c/a" lacks
/// "projects" at index 0.`, `… contains a resource id "." at index 60.`, `… has invalid
/// trailing "/".`). docs/semantics.md#resource-names lists the forms.
///
/// The scan walks the UTF-8 bytes once (every request names at least one resource); only an
/// error converts a byte offset into the UTF-16 index the message shows.
public enum ResourceName {
    /// What is being read: its label opens every message, and each kind ends differently.
    public enum Kind: Sendable {
        /// `projects/{p}/databases/{d}` ("Database name").
        case database
        /// `…/documents` or `…/documents/{c}/{id}…` ("Document parent name").
        case documentParent
        /// `…/documents/{c}/{id}…` ("Document name").
        case document
        /// A reference value: a document name ("Resource name"), whose collection and document
        /// ids are checked here as no later write checks them.
        case reference

        var label: String {
            switch self {
            case .database: "Database name"
            case .documentParent: "Document parent name"
            case .document: "Document name"
            case .reference: "Resource name"
            }
        }
    }

    /// Production's check of a project id (what Google Cloud lets a project be called): an
    /// optional `domain:` prefix, then lowercase letters, digits and hyphens, not starting
    /// with a hyphen, at most 100 characters. Anything else is INVALID_ARGUMENT with
    /// production's text (the official emulator fails with 500 UNKNOWN instead).
    public static func validateProjectID(_ id: String) throws(FirestoreError) {
        var bytes = id
        guard bytes.withUTF8(isValidProjectID) else { throw projectIDMalformed(id) }
    }

    /// The check itself, on the id's UTF-8 bytes.
    static func isValidProjectID(_ id: UnsafeBufferPointer<UInt8>) -> Bool {
        let colon = id.lastIndex(of: UInt8(ascii: ":"))
        let local = UnsafeBufferPointer(rebasing: id[(colon.map { $0 + 1 } ?? 0)...])
        let hyphen = UInt8(ascii: "-")
        return !local.isEmpty && id.count <= 100 && local[0] != hyphen
            && local.allSatisfy { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == hyphen }
    }

    static func projectIDMalformed(_ id: String) -> FirestoreError {
        .invalidArgument("Project id \(id) is malformed: it either contains invalid characters or is too long. Look at https://cloud.google.com/resource-manager/docs/creating-managing-projects#identifying_projects for instructions in how to get a project's id.")
    }

    /// The database a `database` field names.
    public static func database(_ name: String) throws(FirestoreError) -> DatabaseID {
        try parse(name, as: .database).database
    }

    /// The database and the path a name of `kind` names (the root for a parent `…/documents`).
    public static func parse(_ name: String, as kind: Kind) throws(FirestoreError) -> (database: DatabaseID, path: ResourcePath) {
        // Scanned in the String's own UTF-8 storage (a copy of it into an array was an
        // allocation a name; a batch of 20 names paid it 20 times).
        var storage = name
        let scanned = storage.withUTF8 { bytes -> Result<(database: DatabaseID, path: ResourcePath), FirestoreError> in
            var scanner = Scanner(name: name, kind: kind, bytes: bytes)
            do throws(FirestoreError) { return .success(try scanner.run()) } catch { return .failure(error) }
        }
        let result = try scanned.get()
        if kind == .reference { try result.path.validateSegments() }
        return result
    }

    private struct Scanner {
        let name: String
        let kind: Kind
        let bytes: UnsafeBufferPointer<UInt8>
        var pos = 0

        init(name: String, kind: Kind, bytes: UnsafeBufferPointer<UInt8>) {
            self.name = name
            self.kind = kind
            self.bytes = bytes
        }

        var atEnd: Bool { pos == bytes.count }

        mutating func run() throws(FirestoreError) -> (database: DatabaseID, path: ResourcePath) {
            try literal("projects")
            try slash()
            let projectStart = pos
            let project = try segment("project")
            guard ResourceName.isValidProjectID(UnsafeBufferPointer(rebasing: bytes[projectStart..<pos])) else {
                throw ResourceName.projectIDMalformed(project)
            }
            try slash()
            try literal("databases")
            try slash()
            let database = DatabaseID(project: project, database: try segment("database"))
            if kind == .database {
                if atEnd { return (database, .root) }
                if pos == bytes.count - 1 && bytes[pos] == slashByte { throw fail("has invalid trailing \"/\".") }
                throw fail("has extra characters at index \(index(pos)).")
            }
            if kind == .reference {
                // A reference names a document: the emulator's own words for the other
                // resources a name may spell.
                if atEnd { throw .invalidArgument("Non-document resource reference value not supported.") }
                let rest = bytes[pos...]
                let documents: StaticString = "/documents"
                let documentsBytes = UnsafeBufferPointer(start: documents.utf8Start, count: documents.utf8CodeUnitCount)
                guard rest.starts(with: documentsBytes), rest.count == documentsBytes.count || rest[pos + documentsBytes.count] == slashByte else {
                    throw .invalidArgument("Resource \"\(name)\" is not recognized.")
                }
            }
            try slash()
            try literal("documents")
            if atEnd {
                if kind == .documentParent { return (database, .root) }
                throw fail("is invalid: Omit \"/documents\" when referencing a database (except as the parent of a document).")
            }
            try slash(afterDocuments: true)
            var segments: [String] = []
            // Sized once (one segment more than the slashes left): growing by appends
            // reallocated a path of two segments twice.
            segments.reserveCapacity(1 + bytes[pos...].reduce(0) { $1 == slashByte ? $0 + 1 : $0 })
            while true {
                segments.append(try id("collection"))
                try slash()
                segments.append(try id("resource"))
                if atEnd { return (database, ResourcePath(segments: segments)) }
                try slash()
            }
        }

        private let slashByte = UInt8(ascii: "/")

        func index(_ byteOffset: Int) -> Int {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[..<byteOffset]), as: UTF8.self).utf16.count
        }

        func fail(_ what: String) -> FirestoreError {
            .invalidArgument("\(kind.label) \"\(name)\" \(what)")
        }

        /// Compared byte by byte in place, from the literal's static bytes: an array of the
        /// literal and a generic slice comparison cost ~2,000 instructions a literal, and
        /// walking a String's UTF-8 view ~450.
        mutating func literal(_ text: StaticString) throws(FirestoreError) {
            let count = text.utf8CodeUnitCount
            guard bytes.count - pos >= count, memcmp(bytes.baseAddress! + pos, text.utf8Start, count) == 0 else {
                throw fail("lacks \"\(text)\" at index \(index(pos)).")
            }
            pos += count
        }

        /// A `/` between parts; one that ends the name is the trailing-slash error.
        mutating func slash(afterDocuments: Bool = false) throws(FirestoreError) {
            guard !atEnd, bytes[pos] == slashByte else { throw fail("lacks \"/\" at index \(index(pos)).") }
            pos += 1
            if atEnd { throw fail(afterDocuments ? "is invalid: Omit trailing \"/\"." : "has invalid trailing \"/\".") }
        }

        /// The text up to the next `/`; empty is "lacks a … id".
        mutating func segment(_ what: String) throws(FirestoreError) -> String {
            let start = pos
            while !atEnd && bytes[pos] != slashByte { pos += 1 }
            if pos == start { throw fail("lacks a \(what) id at index \(index(start)).") }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<pos]), as: UTF8.self)
        }

        /// A collection or document id: also never `.` or `..` (checked on the bytes).
        mutating func id(_ what: String) throws(FirestoreError) -> String {
            let start = pos
            let text = try segment(what)
            let n = pos - start, dot = UInt8(ascii: ".")
            if bytes[start] == dot && (n == 1 || (n == 2 && bytes[start + 1] == dot)) {
                throw fail("contains a \(what) id \"\(text)\" at index \(index(start)).")
            }
            return text
        }
    }
}
