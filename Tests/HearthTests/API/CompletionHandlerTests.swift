import Foundation
import Testing
@testable import Hearth
import HearthLock

/// The completion-handler forms: each handler runs once, on `settings.dispatchQueue`
/// (docs/embedded-api.md#linux-and-apple-platforms item 5).
@Suite struct CompletionHandlerTests {
    @Test func writeCompletionsRunOnTheConfiguredQueue() async throws {
        let callbacks = APICallbackQueue()
        let db = apiDB(queue: callbacks.queue)
        let ref = db.document("c/d")

        let set = await apiCallback { done in ref.setData(["a": 1]) { done(($0, callbacks.isCurrent)) } }
        #expect(set.0 == nil)
        #expect(set.1)

        let merge = await apiCallback { done in ref.setData(["b": 2], merge: true) { done(($0, callbacks.isCurrent)) } }
        #expect(merge.0 == nil)
        #expect(merge.1)

        let fields = await apiCallback { done in
            ref.setData(["c": 3, "x": 0], mergeFields: ["c"]) { done(($0, callbacks.isCurrent)) }
        }
        #expect(fields.0 == nil)
        #expect(fields.1)

        let update = await apiCallback { done in ref.updateData(["d": 4]) { done(($0, callbacks.isCurrent)) } }
        #expect(update.0 == nil)
        #expect(update.1)

        let data = try #require(try await apiData(ref))
        #expect(data.count == 4)
        #expect(data["a"] as? Int == 1)
        #expect(data["b"] as? Int == 2)
        #expect(data["c"] as? Int == 3)
        #expect(data["d"] as? Int == 4)

        let delete = await apiCallback { done in ref.delete { done(($0, callbacks.isCurrent)) } }
        #expect(delete.0 == nil)
        #expect(delete.1)
        #expect(try await ref.getDocument().exists == false)
    }

    @Test func failedUpdateReportsNotFoundThroughTheCompletion() async throws {
        let callbacks = APICallbackQueue()
        let db = apiDB(queue: callbacks.queue)
        let ref = db.document("c/missing")
        let (error, onQueue) = await apiCallback { done in ref.updateData(["a": 1]) { done(($0, callbacks.isCurrent)) } }
        #expect(onQueue)
        let ns = try #require(error.map { $0 as NSError })
        #expect(ns.domain == FirestoreErrorDomain)
        #expect(ns.code == FirestoreErrorCode.notFound.rawValue)
        #expect(ns.localizedDescription == "No document to update: \(apiDocumentsPrefix)c/missing")
    }

    @Test func getDocumentAndGetDocumentsCompletions() async throws {
        let callbacks = APICallbackQueue()
        let db = apiDB(queue: callbacks.queue)
        try await db.document("c/a").setData(["n": 1])
        try await db.document("c/b").setData(["n": 2])

        let (snap, error, onQueue) = await apiCallback { done in
            db.document("c/a").getDocument { done(($0, $1, callbacks.isCurrent)) }
        }
        #expect(error == nil)
        #expect(onQueue)
        #expect(snap?.data()?["n"] as? Int == 1)

        // Never seen by this instance: not in its cache (the SDK's UNAVAILABLE).
        let missing = await apiCallback { done in
            db.document("c/zzz").getDocument(source: .cache) { done(($0, $1)) }
        }
        #expect((missing.1 as NSError?)?.code == FirestoreErrorCode.unavailable.rawValue)
        #expect(missing.0 == nil)

        let (query, queryError, queryOnQueue) = await apiCallback { done in
            db.collection("c").getDocuments { done(($0, $1, callbacks.isCurrent)) }
        }
        #expect(queryError == nil)
        #expect(queryOnQueue)
        #expect(query?.count == 2)
        #expect(query?.documents.map(\.documentID) == ["a", "b"])
        #expect(query?.documents.map { $0.data()["n"] as? Int } == [1, 2])
    }

    @Test func addDocumentCompletion() async throws {
        let callbacks = APICallbackQueue()
        let db = apiDB(queue: callbacks.queue)
        let holder = APIRefHolder()
        let (error, onQueue) = await apiCallback { done in
            holder.ref = db.collection("posts").addDocument(data: ["t": "x"]) { done(($0, callbacks.isCurrent)) }
        }
        #expect(error == nil)
        #expect(onQueue)
        let ref = try #require(holder.ref)
        #expect(ref.documentID.count == 20)
        #expect(try await apiData(ref)?["t"] as? String == "x")
    }

    @Test func batchCommitCompletion() async throws {
        let callbacks = APICallbackQueue()
        let db = apiDB(queue: callbacks.queue)
        let a = db.document("c/a"), b = db.document("c/b")
        let (error, onQueue) = await apiCallback { done in
            db.batch().setData(["x": 1], forDocument: a).setData(["y": 2], forDocument: b)
                .commit { done(($0, callbacks.isCurrent)) }
        }
        #expect(error == nil)
        #expect(onQueue)
        #expect(try await apiData(a)?["x"] as? Int == 1)
        #expect(try await apiData(b)?["y"] as? Int == 2)

        let failed = await apiCallback { done in
            db.batch().updateData(["z": 1], forDocument: db.document("c/none")).commit { done($0) }
        }
        #expect((failed as NSError?)?.code == FirestoreErrorCode.notFound.rawValue)
    }

    @Test func transactionCompletionDeliversTheBlockValue() async throws {
        let callbacks = APICallbackQueue()
        let db = apiDB(queue: callbacks.queue)
        let ref = db.document("counters/c")
        try await ref.setData(["n": 41])
        let (value, error, onQueue) = await apiCallback { done in
            db.runTransaction({ txn, errorPointer in
                let snap: DocumentSnapshot
                do { snap = try txn.getDocument(ref) } catch let e as NSError { errorPointer?.pointee = e; return nil }
                let n = (snap.data()?["n"] as? Int) ?? 0
                txn.updateData(["n": n + 1], forDocument: ref)
                return n + 1
            }, completion: { done(($0, $1, callbacks.isCurrent)) })
        }
        #expect(error == nil)
        #expect(onQueue)
        #expect(value as? Int == 42)
        #expect(try await apiData(ref)?["n"] as? Int == 42)
    }

    @Test func lifecycleCompletions() async throws {
        let callbacks = APICallbackQueue()
        let db = apiDB(queue: callbacks.queue)
        try await db.document("c/d").setData(["a": 1])
        let pending = await apiCallback { done in db.waitForPendingWrites { done(($0, callbacks.isCurrent)) } }
        #expect(pending.0 == nil)
        #expect(pending.1)
        let network = await apiCallback { done in db.disableNetwork { done(($0, callbacks.isCurrent)) } }
        #expect(network.0 == nil)
        #expect(network.1)
        let clear = await apiCallback { done in db.clearPersistence { done(($0, callbacks.isCurrent)) } }
        #expect((clear.0 as NSError?)?.code == FirestoreErrorCode.failedPrecondition.rawValue)
        #expect((clear.0 as NSError?)?.localizedDescription == "Persistence cannot be cleared while the client is running.")
        #expect(clear.1)
    }

    /// Under `swift test` on Linux the main queue is serviced while async tests run (by a
    /// worker thread, after `dispatchMain()`), so the SDK's default — completions on the
    /// main queue — can be observed directly.
    @Test func completionsRunOnTheMainQueueByDefault() async throws {
        let db = apiDB()
        let ref = db.document("c/d")
        try await ref.setData(["a": 1])
        _ = apiMainQueueKey
        let readOnMain: Bool? = await withHandOffContinuation { (c: HandOffContinuation<Bool?, Never>) in
            let once = APIResumeOnce(c)
            ref.getDocument { _, _ in once.resume(apiIsOnMainQueue) }
            // Guards against a runner that never services the main queue.
            DispatchQueue.global().asyncAfter(deadline: .now() + 10) { once.resume(nil) }
        }
        #expect(readOnMain == true)
        let writeOnMain: Bool? = await withHandOffContinuation { (c: HandOffContinuation<Bool?, Never>) in
            let once = APIResumeOnce(c)
            ref.setData(["b": 2]) { _ in once.resume(apiIsOnMainQueue) }
            DispatchQueue.global().asyncAfter(deadline: .now() + 10) { once.resume(nil) }
        }
        #expect(writeOnMain == true)
        let transactionOnMain: Bool? = await withHandOffContinuation { (c: HandOffContinuation<Bool?, Never>) in
            let once = APIResumeOnce(c)
            db.runTransaction({ _, _ in nil }, completion: { _, _ in once.resume(apiIsOnMainQueue) })
            DispatchQueue.global().asyncAfter(deadline: .now() + 10) { once.resume(nil) }
        }
        #expect(transactionOnMain == true)
    }
}

/// Lets a completion hand back a reference that is only known after the call returns.
final class APIRefHolder: @unchecked Sendable {
    var ref: DocumentReference?
}

/// Resumes a continuation at most once (a result or a timeout, whichever comes first).
final class APIResumeOnce<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: HandOffContinuation<T, Never>?

    init(_ continuation: HandOffContinuation<T, Never>) { self.continuation = continuation }

    func resume(_ value: T) {
        lock.lock()
        let c = continuation
        continuation = nil
        lock.unlock()
        c?.resume(returning: value)
    }
}
