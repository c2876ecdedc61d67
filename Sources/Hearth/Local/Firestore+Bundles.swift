import Foundation
import HearthCore
import HearthLock

/// Bundles: loading them into the instance's cache and looking up their named queries, as
/// the SDK does; and building them from the database, as the Admin SDKs do.
extension Firestore {
    /// Loads a bundle into this instance's cache: its documents become readable with
    /// `source: .cache` and its named queries with `getQuery(named:)`. Progress goes to the
    /// task's observers (see `LoadBundleTask`).
    @discardableResult
    public func loadBundle(_ bundleData: Data) -> LoadBundleTask {
        loadBundle(bundleData, completion: nil)
    }

    /// `completion` gets the final progress, and the error when loading failed (DATA_LOSS
    /// for a malformed bundle or one of another database, INVALID_ARGUMENT for documents
    /// that do not match their metadata or count).
    @discardableResult
    public func loadBundle(_ bundleData: Data, completion: ((LoadBundleTaskProgress?, Error?) -> Void)?) -> LoadBundleTask {
        let bytes = UncheckedBox(bundleData)
        return startLoading(completion: completion) { reader in
            reader.append(bytes.value)
            return true
        }
    }

    @discardableResult
    public func loadBundle(_ bundleStream: InputStream) -> LoadBundleTask {
        loadBundle(bundleStream, completion: nil)
    }

    /// Reads the stream 64 KiB at a time; the bundle is never held whole.
    @discardableResult
    public func loadBundle(_ bundleStream: InputStream, completion: ((LoadBundleTaskProgress?, Error?) -> Void)?) -> LoadBundleTask {
        let stream = UncheckedBox(bundleStream)
        let chunk = 64 * 1024
        return startLoading(completion: completion) { (reader: inout BundleReader) throws(FirestoreError) -> Bool in
            let input = stream.value
            guard Self.hasSource(input) else {
                throw FirestoreError(.unknown, "Failed to read the bundle stream: it has nothing to read from (InputStream(url:) of a URL Foundation cannot open).")
            }
            if input.streamStatus == .notOpen { input.open() }
            var buffer = [UInt8](repeating: 0, count: chunk)
            let n = input.read(&buffer, maxLength: chunk)
            if n < 0 {
                throw FirestoreError(.unknown, "Failed to read the bundle stream: \(input.streamError.map { "\($0)" } ?? "unknown error")")
            }
            reader.append(buffer[0..<n])
            if n == 0 { input.close() }
            return n == 0
        }
    }

    /// Whether `stream` reads from something. On Linux, `InputStream(url:)` of a URL that is
    /// not a file still returns a stream, one with no underlying stream, whose every method
    /// crashes; Darwin's fails to open it instead, which the load reports as an error.
    static func hasSource(_ stream: InputStream) -> Bool {
        #if canImport(ObjectiveC)
        return true
        #else
        for child in Mirror(reflecting: stream).children where child.label == "_streamStorage" {
            if let optional = child.value as? any OptionalBox, optional.wrapped == nil { return false }
        }
        return true
        #endif
    }

    /// The async form: the final progress, or the error.
    public func loadBundle(_ bundleData: Data) async throws -> LoadBundleTaskProgress {
        try await withThrowingHandOffContinuation { continuation in
            loadBundle(bundleData) { progress, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: progress!) }
            }
        }
    }

    public func loadBundle(_ bundleStream: InputStream) async throws -> LoadBundleTaskProgress {
        let stream = UncheckedBox(bundleStream)
        return try await withThrowingHandOffContinuation { continuation in
            loadBundle(stream.value) { progress, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: progress!) }
            }
        }
    }

    /// The query a loaded bundle saved under `name`, or nil.
    public func getQuery(named name: String, completion: @escaping (Query?) -> Void) {
        let completion = sendable(completion)
        let query = namedQuery(name)
        deliver { completion(query) }
    }

    public func getQuery(named name: String) async -> Query? {
        namedQuery(name)
    }

    private func namedQuery(_ name: String) -> Query? {
        ensureActive()
        return local.cache.namedQuery(name).map { Query(firestore: self, definition: QueryDefinition(bundled: $0.query)) }
    }

    /// Runs a load on a background queue: `read` adds the next bytes to the reader and says
    /// whether they were the last.
    private func startLoading(completion: ((LoadBundleTaskProgress?, Error?) -> Void)?,
                              read: @escaping @Sendable (inout BundleReader) throws(FirestoreError) -> Bool) -> LoadBundleTask {
        ensureActive()
        let task = LoadBundleTask(queue: callbackQueue)
        if let completion = completion.map(sendable) {
            task.setCompletion { progress in
                if progress.state == .success {
                    completion(progress, nil)
                } else {
                    completion(progress, task.failure ?? FirestoreErrorCode(.unknown, message: "Loading bundle failed with unknown error"))
                }
            }
        }
        let cache = local.cache
        let database = database.id
        DispatchQueue.global().async {
            BundleLoad(task: task, cache: cache, database: database, read: read).run()
        }
        return task
    }
}

/// One bundle load, as the SDK's sync engine runs it: the metadata first (a bundle already
/// loaded with the same id and a create time as late ends at once, successfully), then the
/// elements, reporting each completed document, then the documents and named queries go
/// into the cache together and success is reported. The first error ends the load.
private struct BundleLoad {
    let task: LoadBundleTask
    let cache: LocalCache
    let database: DatabaseID
    let read: @Sendable (inout BundleReader) throws(FirestoreError) -> Bool

    func run() {
        var reader = BundleReader(database: database)
        var last = BundleLoadProgress(documentsLoaded: 0, totalDocuments: 0, bytesLoaded: 0, totalBytes: 0)
        do throws(FirestoreError) {
            var atEnd = false
            func nextElement() throws(FirestoreError) -> (element: BundleElement, byteCount: Int)? {
                while true {
                    if let next = try reader.next(atEnd: atEnd) { return next }
                    if atEnd { return nil }
                    atEnd = try read(&reader)
                }
            }
            guard case .metadata(let metadata)? = try nextElement()?.element else {
                throw FirestoreError(.dataLoss, "Failed to get bundle metadata")
            }
            var loader = BundleLoader(metadata: metadata)
            if cache.hasBundle(metadata) {
                task.report(LoadBundleTaskProgress(loader.finalProgress, state: .success))
                return
            }
            last = loader.initialProgress
            task.report(LoadBundleTaskProgress(last, state: .inProgress))
            while let (element, byteCount) = try nextElement() {
                if let progress = try loader.add(element, byteCount: byteCount) {
                    last = progress
                    task.report(LoadBundleTaskProgress(progress, state: .inProgress))
                }
            }
            try loader.finish()
            cache.loadBundle(metadata, documents: loader.documents, namedQueries: loader.namedQueries)
            task.report(LoadBundleTaskProgress(loader.finalProgress, state: .success))
        } catch {
            task.fail(FirestoreErrorCode(error), progress: LoadBundleTaskProgress(last, state: .error))
        }
    }
}

// MARK: Named queries as queries

extension QueryDefinition {
    /// A bundled query as the SDK reads it back: the top-level AND's clauses as the filters,
    /// and `limit(toLast:)` when its limit type is LAST (the order stored is the user's).
    init(bundled: BundledQuery) {
        let q = bundled.query
        parent = q.parent
        collectionID = q.collectionID
        allDescendants = q.allDescendants
        switch q.filter {
        case nil: filters = []
        case .composite(.and, let children)?: filters = children
        case let f?: filters = [f]
        }
        orderBy = q.orderBy
        startAt = q.startAt
        endAt = q.endAt
        limit = q.limit
        limitType = bundled.limitType == .last ? .last : .first
    }

    /// The query as a bundle stores it: as the user wrote it, a `limit(toLast:)` query in
    /// its own order with limit type LAST (not reversed, as it runs).
    var bundled: BundledQuery {
        let filter: QueryFilter? = switch filters.count {
        case 0: nil
        case 1: filters[0]
        default: .composite(.and, filters)
        }
        return BundledQuery(query: StructuredQuery(parent: parent, collectionID: collectionID, allDescendants: allDescendants,
                                                   filter: filter, orderBy: orderBy, startAt: startAt, endAt: endAt, limit: limit),
                            limitType: limitType == .last ? .last : .first)
    }
}
