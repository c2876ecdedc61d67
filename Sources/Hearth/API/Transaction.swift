import Foundation
import HearthCore

/// The reads and writes of one transaction attempt, with the mobile SDK's optimistic model
/// (docs/semantics.md#transactions): reads record the version they saw; the commit carries preconditions
/// asserting those versions, so any concurrent change fails it and the attempt is retried.
public final class Transaction {
    let firestore: Firestore
    /// Each document read, with its update time (nil: it was missing).
    private var readVersions: [DocumentKey: HearthCore.Timestamp?] = [:]
    private var readOrder: [DocumentKey] = []
    private var writes: [Write] = []
    private var writtenDocs: Set<DocumentKey> = []
    /// The first error of this attempt (a read after a write, a version change between two
    /// reads, an update of a document read as missing); it fails the attempt.
    private(set) var failure: FirestoreError?

    init(firestore: Firestore) { self.firestore = firestore }

    /// Reads a document; all reads must come before all writes.
    public func getDocument(_ document: DocumentReference) throws -> DocumentSnapshot {
        checkInstance(document)
        if !writes.isEmpty {
            throw fail(.invalidArgument("Firestore transactions require all reads to be executed before all writes."))
        }
        do { try firestore.access.checkGet(document.key, in: firestore.database) } catch { throw fail(error) }
        let key = document.storageKey
        let doc = firestore.database.document(key)
        let version = doc?.updateTime
        if let seen = readVersions[key] {
            if seen != version { throw fail(FirestoreError(.aborted, "Document version changed between two reads.")) }
        } else {
            readVersions[key] = .some(version)
            readOrder.append(key)
        }
        return DocumentSnapshot(reference: document, document: doc, metadata: .server)
    }

    @discardableResult
    public func setData(_ data: [String: Any], forDocument document: DocumentReference) -> Transaction {
        write(document, requireValid { () throws(FirestoreError) in try document.reader.setWrite(data, document: document.storageKey) })
    }

    @discardableResult
    public func setData(_ data: [String: Any], forDocument document: DocumentReference, merge: Bool) -> Transaction {
        write(document, requireValid { () throws(FirestoreError) in
            merge ? try document.reader.mergeWrite(data, document: document.storageKey) : try document.reader.setWrite(data, document: document.storageKey)
        })
    }

    @discardableResult
    public func setData(_ data: [String: Any], forDocument document: DocumentReference, mergeFields: [Any]) -> Transaction {
        write(document, requireValid { () throws(FirestoreError) in
            try document.reader.mergeFieldsWrite(data, mergeFields: mergeFields, document: document.storageKey)
        })
    }

    @discardableResult
    public func updateData(_ fields: [AnyHashable: Any], forDocument document: DocumentReference) -> Transaction {
        write(document, requireValid { () throws(FirestoreError) in try document.reader.updateWrite(fields, document: document.storageKey) })
    }

    @discardableResult
    public func deleteDocument(_ document: DocumentReference) -> Transaction {
        write(document, .delete(document.storageKey))
    }

    private func checkInstance(_ document: DocumentReference) {
        if document.firestore !== firestore {
            programmerError("Provided document reference is from a different Cloud Firestore instance.")
        }
    }

    /// Adds the read-based precondition: the first write to a document read earlier
    /// asserts the version read; later writes to it only need what their kind needs.
    private func write(_ document: DocumentReference, _ write: Write) -> Transaction {
        checkInstance(document)
        var write = write
        let isUpdate = write.precondition == .exists(true)
        if !writtenDocs.contains(write.key), let read = readVersions[write.key] {
            if let version = read {
                write.precondition = .updateTime(version)
            } else if isUpdate {
                _ = fail(.invalidArgument("Can't update a document that doesn't exist."))
            } else {
                write.precondition = .exists(false)
            }
        }
        writtenDocs.insert(write.key)
        writes.append(write)
        return self
    }

    @discardableResult
    private func fail(_ error: FirestoreError) -> FirestoreErrorCode {
        if failure == nil { failure = error }
        return FirestoreErrorCode(error)
    }

    /// The writes to commit: the buffered ones plus a verify for every document read but
    /// not written.
    var commitWrites: [Write] {
        var all = writes
        for key in readOrder where !writtenDocs.contains(key) {
            let version = readVersions[key]!
            all.append(Write(key: key, operation: .verify, precondition: version.map { .updateTime($0) } ?? .exists(false)))
        }
        return all
    }
}

/// Options for `runTransaction(with:block:completion:)`.
public final class TransactionOptions: NSObject, NSCopying, @unchecked Sendable {
    /// Total attempts, counting the first (default 5).
    public var maxAttempts: Int = 5 {
        didSet {
            if maxAttempts <= 0 || maxAttempts > Int(Int32.max) { programmerError("Invalid maxAttempts: \(maxAttempts)") }
        }
    }

    public override init() {}

    public func copy(with zone: NSZone? = nil) -> Any {
        let c = TransactionOptions()
        c.maxAttempts = maxAttempts
        return c
    }
}

extension Firestore {
    /// Runs `updateBlock` in a transaction, retrying on contention; `completion` gets the
    /// block's return value from the successful attempt, or the error.
    public func runTransaction(_ updateBlock: @escaping (Transaction, NSErrorPointer) -> Any?,
                               completion: @escaping (Any?, Error?) -> Void) {
        runTransaction(with: nil, block: updateBlock, completion: completion)
    }

    public func runTransaction(with options: TransactionOptions?,
                               block updateBlock: @escaping (Transaction, NSErrorPointer) -> Any?,
                               completion: @escaping (Any?, Error?) -> Void) {
        ensureActive()
        let work = UncheckedBox((updateBlock, options?.maxAttempts ?? 5))
        let completion = sendable(completion)
        // The block may block its thread (synchronous reads), so it runs off the caller's.
        DispatchQueue.global().async {
            let (block, attempts) = work.value
            let outcome = UncheckedBox(self.local.isOffline ? .failure(Self.offlineTransactionError())
                                       : self.transactionAttempts(maxAttempts: attempts, block: block))
            self.deliver {
                switch outcome.value {
                case .success(let v): completion(v, nil)
                case .failure(let e): completion(nil, e)
                }
            }
        }
    }

    /// The async form: returns the block's value from the successful attempt.
    nonisolated(nonsending)
    public func runTransaction(_ updateBlock: @escaping (Transaction, NSErrorPointer) -> Any?) async throws -> Any? {
        ensureActive()
        if local.isOffline { throw Self.offlineTransactionError() }
        return try transactionAttempts(maxAttempts: 5, block: updateBlock).get()
    }

    /// A transaction reads and commits on the server: an instance without network fails it
    /// at once (UNAVAILABLE is not retried). Hearth's text: on a device the transport reports
    /// its own. Out of line, and checked by the callers rather than in the retry loop, so the
    /// online path is the loop as it was.
    @inline(never)
    static func offlineTransactionError() -> FirestoreErrorCode {
        FirestoreErrorCode(.unavailable, message: "Failed to run transaction: the client is offline.")
    }

    /// The retry loop (docs/semantics.md#transactions): ABORTED, ALREADY_EXISTS and FAILED_PRECONDITION are
    /// retried up to `maxAttempts` in total, with a short randomised backoff; other errors,
    /// and errors the block reports outside `FirestoreErrorDomain`, end it at once.
    func transactionAttempts(maxAttempts: Int, block: (Transaction, NSErrorPointer) -> Any?) -> Result<Any?, Error> {
        // Made only when an attempt fails: an NSError costs about a microsecond on Linux.
        var lastError: Error?
        for attempt in 0..<maxAttempts {
            if attempt > 0 { backoff(attempt: attempt) }
            let txn = Transaction(firestore: self)
            var blockError: NSError?
            let value = withUnsafeMutablePointer(to: &blockError) { block(txn, $0) }
            if let failure = txn.failure {
                let error = FirestoreErrorCode(failure)
                lastError = error
                if Self.isRetryable(failure.code.rawValue) { continue }
                return .failure(error)
            }
            if let blockError {
                lastError = blockError
                if blockError.domain == FirestoreErrorDomain, Self.isRetryable(blockError.code) { continue }
                return .failure(blockError)
            }
            do throws(FirestoreError) {
                // Injected faults on the commit: an error fails this attempt before the commit;
                // a lost answer fails it after (the SDK sees UNAVAILABLE and runs the block
                // again, so the transaction's writes land twice — production's ambiguity).
                var lost = false
                if faults.injector.isArmed {
                    lost = try faults.injector.before(project: database.id.project, database: database.id.database,
                                                      method: .commit, paths: txn.commitWrites.map(\.path)) == .dropAnswer
                }
                // Straight to the database: a transaction raises no event before it commits.
                try database.commit(txn.commitWrites, authorize: access.commitAuthorizer(for: database))
                if lost { throw FirestoreError.injectedDroppedAnswer }
                return .success(value)
            } catch {
                lastError = FirestoreErrorCode(error)
                if Self.isRetryable(error.code.rawValue) { continue }
                return .failure(FirestoreErrorCode(error))
            }
        }
        return .failure(lastError ?? FirestoreErrorCode(.aborted, message: "Transaction failed."))
    }

    private static func isRetryable(_ code: Int) -> Bool {
        code == FirestoreErrorCode.Code.aborted.rawValue
            || code == FirestoreErrorCode.Code.alreadyExists.rawValue
            || code == FirestoreErrorCode.Code.failedPrecondition.rawValue
    }

    /// Exponential backoff with full jitter, starting around a millisecond.
    private func backoff(attempt: Int) {
        let ceiling = min(1 << min(attempt, 6), 64) * 1000
        usleep(UInt32.random(in: 0...UInt32(ceiling)))
    }
}
