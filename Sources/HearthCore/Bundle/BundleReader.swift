/// Reads a bundle's elements from bytes that may arrive in pieces (a file, a stream): each
/// element is its JSON's byte count in decimal digits, then that JSON. Bytes are kept only
/// until their element is decoded, so a large bundle never sits in memory whole; an
/// element's declared length is trusted only once that many bytes have arrived.
public struct BundleReader: Sendable {
    /// Where the elements' names must point (a bundle of another database is refused).
    public let database: DatabaseID
    private var buffer: [UInt8] = []
    private var start = 0
    /// Bytes of the elements read after the metadata (what progress counts).
    public private(set) var bytesRead = 0
    private var sawMetadata = false

    /// A length prefix longer than this is taken for garbage (16 digits is about a
    /// petabyte, as the SDKs reason).
    static let maxPrefixDigits = 16

    public init(database: DatabaseID) { self.database = database }

    /// Adds bytes that followed those given so far.
    public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if start > 0 && start * 2 >= buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next element and the bytes it took (prefix included), nil when the bytes given so
    /// far end before it does. With `atEnd` (no more bytes will come), nil means the bundle
    /// ended cleanly, and an element cut short is an error. Errors are DATA_LOSS, as the
    /// SDKs report a malformed bundle.
    public mutating func next(atEnd: Bool) throws(FirestoreError) -> (element: BundleElement, byteCount: Int)? {
        let available = buffer.count - start
        if available == 0 {
            return nil
        }
        // The length prefix runs up to the element's opening brace.
        var brace = start
        while brace < buffer.count, buffer[brace] != UInt8(ascii: "{") {
            if brace - start >= Self.maxPrefixDigits { throw BundleJSON.fail("Prefix string is not a valid number") }
            brace += 1
        }
        guard brace < buffer.count else {
            if atEnd { throw BundleJSON.fail("Reached the end of bundle when a length string is expected.") }
            return nil
        }
        let digits = buffer[start..<brace]
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }),
              let length = Int(String(decoding: digits, as: UTF8.self)) else {
            throw BundleJSON.fail("Prefix string is not a valid number")
        }
        guard buffer.count - brace >= length else {
            if atEnd { throw BundleJSON.fail("Available input string is smaller than what length prefix indicates") }
            return nil
        }
        let text = Array(buffer[brace..<(brace + length)])
        start = brace + length
        let json: JSON
        do { json = try JSON.parse(text) } catch { throw BundleJSON.fail("Failed to parse string into json") }
        let element = try BundleJSON.element(json, database: database)
        if case .metadata = element {
            guard !sawMetadata else { throw BundleJSON.fail("Unexpected bundle metadata element.") }
            sawMetadata = true
        } else {
            guard sawMetadata else { throw BundleJSON.fail("Failed to get bundle metadata") }
            bytesRead += digits.count + length
        }
        return (element, digits.count + length)
    }

    /// Every element of a whole bundle.
    public static func elements(_ bytes: [UInt8], database: DatabaseID) throws(FirestoreError) -> [BundleElement] {
        var reader = BundleReader(database: database)
        reader.append(bytes)
        var out: [BundleElement] = []
        while let (element, _) = try reader.next(atEnd: true) { out.append(element) }
        return out
    }
}

/// How far loading a bundle has come (`LoadBundleTaskProgress`'s numbers).
public struct BundleLoadProgress: Sendable, Equatable {
    public var documentsLoaded: Int
    public var totalDocuments: Int
    public var bytesLoaded: Int
    public var totalBytes: Int

    public init(documentsLoaded: Int, totalDocuments: Int, bytesLoaded: Int, totalBytes: Int) {
        self.documentsLoaded = documentsLoaded
        self.totalDocuments = totalDocuments
        self.bytesLoaded = bytesLoaded
        self.totalBytes = totalBytes
    }
}

/// Gathers a bundle's elements as the mobile SDKs' bundle loader does: a document must
/// follow its own metadata, a document that did not exist is its metadata alone, and the
/// document count must match the metadata's. Progress is reported each time a document
/// is complete.
public struct BundleLoader: Sendable {
    /// A loaded document: its contents (nil: it did not exist when the bundle was built) and
    /// its version (update time, or the read time of a missing one).
    public struct LoadedDocument: Sendable {
        public let path: ResourcePath
        public let document: Document?
        public let version: Timestamp
        public let queries: [String]
    }

    public let metadata: BundleMetadata
    public private(set) var namedQueries: [BundleNamedQuery] = []
    public private(set) var documents: [LoadedDocument] = []
    private var pending: BundledDocumentMetadata?
    private var bytesLoaded = 0

    public init(metadata: BundleMetadata) { self.metadata = metadata }

    /// The progress before any element.
    public var initialProgress: BundleLoadProgress {
        BundleLoadProgress(documentsLoaded: 0, totalDocuments: metadata.totalDocuments, bytesLoaded: 0, totalBytes: metadata.totalBytes)
    }

    /// The progress of a bundle loaded whole (or skipped because it was loaded before).
    public var finalProgress: BundleLoadProgress {
        BundleLoadProgress(documentsLoaded: metadata.totalDocuments, totalDocuments: metadata.totalDocuments,
                           bytesLoaded: metadata.totalBytes, totalBytes: metadata.totalBytes)
    }

    /// Takes the next element (never the metadata); returns the new progress when it
    /// completed a document.
    public mutating func add(_ element: BundleElement, byteCount: Int) throws(FirestoreError) -> BundleLoadProgress? {
        let before = documents.count
        switch element {
        case .metadata:
            throw BundleJSON.fail("Unexpected bundle metadata element.")
        case .namedQuery(let q):
            namedQueries.append(q)
        case .documentMetadata(let m):
            pending = m
            if !m.exists {
                documents.append(LoadedDocument(path: m.path, document: nil, version: m.readTime, queries: m.queries))
                pending = nil
            }
        case .document(let d):
            guard let m = pending, m.path == d.path else {
                throw FirestoreError(.invalidArgument, "The document being added does not match the stored metadata.")
            }
            documents.append(LoadedDocument(path: d.path, document: d, version: d.updateTime, queries: m.queries))
            pending = nil
        }
        bytesLoaded += byteCount
        guard documents.count != before else { return nil }
        return BundleLoadProgress(documentsLoaded: documents.count, totalDocuments: metadata.totalDocuments,
                                  bytesLoaded: bytesLoaded, totalBytes: metadata.totalBytes)
    }

    /// Checks the bundle ended whole.
    public func finish() throws(FirestoreError) {
        if pending != nil {
            throw FirestoreError(.invalidArgument, "Bundled documents end with a document metadata element instead of a document.")
        }
        if documents.count != metadata.totalDocuments {
            throw FirestoreError(.invalidArgument, "Loaded documents count is not the same as in metadata.")
        }
    }
}
