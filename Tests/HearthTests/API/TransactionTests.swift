import Foundation
import Testing
@testable import Hearth

/// `runTransaction`: the mobile SDK's optimistic transactions with retries (docs/semantics.md#transactions).
@Suite struct TransactionTests {
    /// The increment used throughout: read `n`, write `n + 1`, return the new value.
    private static func increment(_ ref: DocumentReference, _ txn: Transaction, _ errorPointer: NSErrorPointer) -> Any? {
        let snap: DocumentSnapshot
        do { snap = try txn.getDocument(ref) } catch let e as NSError { errorPointer?.pointee = e; return nil }
        let n = (snap.data()?["n"] as? Int) ?? 0
        txn.updateData(["n": n + 1], forDocument: ref)
        return n + 1
    }

    @Test func readIncrementWrite() async throws {
        let db = apiDB()
        let ref = db.document("counters/c")
        try await ref.setData(["n": 41, "other": "kept"])
        let result = try await db.runTransaction { txn, errorPointer in Self.increment(ref, txn, errorPointer) }
        #expect(result as? Int == 42)
        let data = try #require(try await apiData(ref))
        #expect(data["n"] as? Int == 42)
        #expect(data["other"] as? String == "kept")
    }

    /// The canonical app pattern from docs/embedded-api.md#transactions, written inline.
    @Test func canonicalErrorPointerPattern() async throws {
        let db = apiDB()
        let counterRef = db.collection("counters").document("visits")
        try await counterRef.setData(["n": 0])
        let result = try await db.runTransaction { txn, errorPointer in
            let snap: DocumentSnapshot
            do { snap = try txn.getDocument(counterRef) }
            catch let e as NSError { errorPointer?.pointee = e; return nil }
            let n = (snap.data()?["n"] as? Int) ?? 0
            txn.updateData(["n": n + 1], forDocument: counterRef)
            return n + 1
        }
        #expect(result as? Int == 1)
        #expect(try await apiData(counterRef)?["n"] as? Int == 1)
    }

    @Test func blockReturnValueIsDelivered() async throws {
        let db = apiDB()
        let value = try await db.runTransaction { _, _ in ["answer": 42, "list": [1, 2]] }
        let dict = try #require(value as? [String: Any])
        #expect(dict["answer"] as? Int == 42)
        #expect(dict["list"] as? [Int] == [1, 2])
        let none = try await db.runTransaction { _, _ in nil }
        #expect(none == nil)
    }

    @Test func readOfMissingDocumentThenSetCreatesIt() async throws {
        let db = apiDB()
        let ref = db.document("c/new")
        let existed = try await db.runTransaction { txn, errorPointer in
            let snap: DocumentSnapshot
            do { snap = try txn.getDocument(ref) } catch let e as NSError { errorPointer?.pointee = e; return nil }
            txn.setData(["created": true], forDocument: ref)
            return snap.exists
        }
        #expect(existed as? Bool == false)
        #expect(try await apiData(ref)?["created"] as? Bool == true)
    }

    @Test func twentyConcurrentIncrementsAllApply() async throws {
        let db = apiDB()
        let ref = db.document("counters/shared")
        try await ref.setData(["n": 100])
        let attempts = APICounter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    _ = try await db.runTransaction { txn, errorPointer in
                        attempts.increment()
                        return Self.increment(ref, txn, errorPointer)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await apiData(ref)?["n"] as? Int == 120)
        #expect(attempts.value >= 20)
    }

    @Test func externalChangeOnEveryAttemptExhaustsFiveAttempts() async throws {
        let db = apiDB()
        let ref = db.document("c/contended")
        try await ref.setData(["external": 0])
        let attempts = APICounter()
        let error = await apiError {
            _ = try await db.runTransaction { txn, errorPointer in
                let attempt = attempts.increment()
                do { _ = try txn.getDocument(ref) } catch let e as NSError { errorPointer?.pointee = e; return nil }
                Self.writeOutsideTheTransaction(ref, ["external": attempt])
                txn.updateData(["mine": true], forDocument: ref)
                return nil
            }
        }
        #expect(attempts.value == 5)
        #expect(error?.domain == FirestoreErrorDomain)
        #expect(error?.code == FirestoreErrorCode.failedPrecondition.rawValue)
        let data = try #require(try await apiData(ref))
        #expect(data["external"] as? Int == 5)
        #expect(data["mine"] == nil)
    }

    @Test func maxAttemptsOptionControlsRetries() async throws {
        let callbacks = APICallbackQueue()
        let db = apiDB(queue: callbacks.queue)
        let ref = db.document("c/contended")
        try await ref.setData(["external": 0])
        let attempts = APICounter()
        let options = TransactionOptions()
        #expect(options.maxAttempts == 5)
        options.maxAttempts = 7
        let (value, error) = await apiCallback { done in
            db.runTransaction(with: options, block: { txn, errorPointer in
                let attempt = attempts.increment()
                do { _ = try txn.getDocument(ref) } catch let e as NSError { errorPointer?.pointee = e; return nil }
                Self.writeOutsideTheTransaction(ref, ["external": attempt])
                txn.setData(["mine": true], forDocument: ref)
                return "never delivered"
            }, completion: { done(($0, $1)) })
        }
        #expect(value == nil)
        #expect(attempts.value == 7)
        #expect((error as NSError?)?.code == FirestoreErrorCode.failedPrecondition.rawValue)
        #expect(try await apiData(ref)?["external"] as? Int == 7)
        #expect((options.copy() as? TransactionOptions)?.maxAttempts == 7)
    }

    @Test func retriedAttemptDeliversItsOwnReturnValue() async throws {
        let db = apiDB()
        let ref = db.document("c/d")
        let other = db.document("c/other")
        try await ref.setData(["n": 1])
        try await other.setData(["v": 0])
        let attempts = APICounter()
        let result = try await db.runTransaction { txn, errorPointer in
            let attempt = attempts.increment()
            let snap: DocumentSnapshot
            do {
                snap = try txn.getDocument(ref)
                _ = try txn.getDocument(other)
            } catch let e as NSError { errorPointer?.pointee = e; return nil }
            // A document only read (not written) is still verified at commit.
            if attempt == 1 { Self.writeOutsideTheTransaction(other, ["v": 1]) }
            txn.updateData(["n": (snap.data()?["n"] as? Int ?? 0) + 10], forDocument: ref)
            return "attempt \(attempt)"
        }
        #expect(result as? String == "attempt 2")
        #expect(attempts.value == 2)
        #expect(try await apiData(ref)?["n"] as? Int == 11)
    }

    @Test func documentCreatedAfterBeingReadAsMissingIsRetried() async throws {
        let db = apiDB()
        let ref = db.document("c/racy")
        let attempts = APICounter()
        let result = try await db.runTransaction { txn, errorPointer in
            let attempt = attempts.increment()
            let snap: DocumentSnapshot
            do { snap = try txn.getDocument(ref) } catch let e as NSError { errorPointer?.pointee = e; return nil }
            if attempt == 1 { Self.writeOutsideTheTransaction(ref, ["by": "someone else"]) }
            txn.setData(["by": "txn", "sawExisting": snap.exists], forDocument: ref)
            return attempt
        }
        #expect(result as? Int == 2)
        let data = try #require(try await apiData(ref))
        #expect(data["by"] as? String == "txn")
        #expect(data["sawExisting"] as? Bool == true)
    }

    @Test func versionChangeBetweenTwoReadsAborts() async throws {
        let db = apiDB()
        let ref = db.document("c/d")
        try await ref.setData(["v": 1])
        let attempts = APICounter()
        let seen = APIErrorBox()
        let result = try await db.runTransaction { txn, errorPointer in
            let attempt = attempts.increment()
            do {
                _ = try txn.getDocument(ref)
                if attempt == 1 { Self.writeOutsideTheTransaction(ref, ["v": 2]) }
                _ = try txn.getDocument(ref)
            } catch let e as NSError {
                seen.error = e
                errorPointer?.pointee = e
                return nil
            }
            return attempt
        }
        #expect(result as? Int == 2)
        #expect(seen.error?.domain == FirestoreErrorDomain)
        #expect(seen.error?.code == FirestoreErrorCode.aborted.rawValue)
        #expect(seen.error?.localizedDescription == "Document version changed between two reads.")
        let thrown = try #require(seen.error)
        #expect(FirestoreErrorCode.aborted ~= thrown)
    }

    /// `catch let e as NSError` (the canonical pattern) must match what `getDocument` throws:
    /// on Linux that cast fails for Swift error structs although the compiler treats it as
    /// exhaustive, so the transaction throws real `NSError`s.
    @Test func transactionReadErrorsAreNSErrors() async throws {
        let db = apiDB()
        let ref = db.document("c/d")
        let seen = APIErrorBox()
        let nsErrorInstances = APICounter()
        _ = try? await db.runTransaction { txn, errorPointer in
            txn.deleteDocument(ref)
            do { _ = try txn.getDocument(ref) } catch {
                if type(of: error) is NSError.Type { nsErrorInstances.increment() }
                seen.error = error as NSError
                errorPointer?.pointee = error as NSError
            }
            return nil
        }
        #expect(nsErrorInstances.value == 1)
        #expect(seen.error?.domain == FirestoreErrorDomain)
        #expect(seen.error?.code == FirestoreErrorCode.invalidArgument.rawValue)
    }

    @Test func readAfterWriteFailsWithInvalidArgument() async throws {
        let db = apiDB()
        let a = db.document("c/a"), b = db.document("c/b")
        let attempts = APICounter()
        let seen = APIErrorBox()
        let error = await apiError {
            _ = try await db.runTransaction { txn, errorPointer in
                attempts.increment()
                txn.setData(["v": 1], forDocument: a)
                do { _ = try txn.getDocument(b) } catch let e as NSError {
                    seen.error = e
                    errorPointer?.pointee = e
                    return nil
                }
                return "unreachable"
            }
        }
        let message = "Firestore transactions require all reads to be executed before all writes."
        #expect(seen.error?.code == FirestoreErrorCode.invalidArgument.rawValue)
        #expect(seen.error?.localizedDescription == message)
        #expect(error?.domain == FirestoreErrorDomain)
        #expect(error?.code == FirestoreErrorCode.invalidArgument.rawValue)
        #expect(error?.localizedDescription == message)
        #expect(attempts.value == 1)
        #expect(try await a.getDocument().exists == false)
    }

    @Test func readAfterWriteFailsEvenWhenTheBlockSwallowsTheError() async throws {
        let db = apiDB()
        let a = db.document("c/a")
        let error = await apiError {
            _ = try await db.runTransaction { txn, _ in
                txn.setData(["v": 1], forDocument: a)
                _ = try? txn.getDocument(a)
                return nil
            }
        }
        #expect(error?.code == FirestoreErrorCode.invalidArgument.rawValue)
        #expect(try await a.getDocument().exists == false)
    }

    @Test func updateOfDocumentReadAsMissingFails() async throws {
        let db = apiDB()
        let ref = db.document("c/missing")
        let attempts = APICounter()
        let error = await apiError {
            _ = try await db.runTransaction { txn, errorPointer in
                attempts.increment()
                do { _ = try txn.getDocument(ref) } catch let e as NSError { errorPointer?.pointee = e; return nil }
                txn.updateData(["v": 1], forDocument: ref)
                return nil
            }
        }
        #expect(error?.domain == FirestoreErrorDomain)
        #expect(error?.code == FirestoreErrorCode.invalidArgument.rawValue)
        #expect(error?.localizedDescription == "Can't update a document that doesn't exist.")
        #expect(attempts.value == 1)
        #expect(try await ref.getDocument().exists == false)
    }

    @Test func blindUpdateOfMissingDocumentFailsWithNotFound() async throws {
        let db = apiDB()
        let ref = db.document("c/missing")
        let error = await apiError {
            _ = try await db.runTransaction { txn, _ in
                txn.updateData(["v": 1], forDocument: ref)
                return nil
            }
        }
        #expect(error?.code == FirestoreErrorCode.notFound.rawValue)
        #expect(error?.localizedDescription == "No document to update: \(apiDocumentsPrefix)c/missing")
    }

    @Test func blockErrorOutsideFirestoreDomainIsReturnedAtOnce() async throws {
        let db = apiDB()
        let ref = db.document("c/d")
        let attempts = APICounter()
        let error = await apiError {
            _ = try await db.runTransaction { txn, errorPointer in
                attempts.increment()
                txn.setData(["v": 1], forDocument: ref)
                errorPointer?.pointee = NSError(domain: "com.example.app", code: 42, userInfo: [NSLocalizedDescriptionKey: "Not enough credit"])
                return nil
            }
        }
        #expect(attempts.value == 1)
        #expect(error?.domain == "com.example.app")
        #expect(error?.code == 42)
        #expect(error?.localizedDescription == "Not enough credit")
        #expect(try await ref.getDocument().exists == false)
    }

    @Test func retryableFirestoreErrorFromTheBlockIsRetried() async throws {
        let db = apiDB()
        let attempts = APICounter()
        let error = await apiError {
            _ = try await db.runTransaction { _, errorPointer in
                attempts.increment()
                errorPointer?.pointee = NSError(domain: FirestoreErrorDomain, code: FirestoreErrorCode.aborted.rawValue)
                return nil
            }
        }
        #expect(attempts.value == 5)
        #expect(error?.domain == FirestoreErrorDomain)
        #expect(error?.code == FirestoreErrorCode.aborted.rawValue)

        let permanent = APICounter()
        let notRetried = await apiError {
            _ = try await db.runTransaction { _, errorPointer in
                permanent.increment()
                errorPointer?.pointee = NSError(domain: FirestoreErrorDomain, code: FirestoreErrorCode.permissionDenied.rawValue)
                return nil
            }
        }
        #expect(permanent.value == 1)
        #expect(notRetried?.code == FirestoreErrorCode.permissionDenied.rawValue)
    }

    @Test func emptyTransactionCommits() async throws {
        let db = apiDB()
        let result = try await db.runTransaction { _, _ in "done" }
        #expect(result as? String == "done")
    }

    @Test func transactionWritesAllOrNothingAcrossDocuments() async throws {
        let db = apiDB()
        let a = db.document("accounts/a"), b = db.document("accounts/b")
        try await a.setData(["balance": 100])
        try await b.setData(["balance": 0])
        _ = try await db.runTransaction { txn, errorPointer in
            let sa: DocumentSnapshot, sb: DocumentSnapshot
            do { sa = try txn.getDocument(a); sb = try txn.getDocument(b) } catch let e as NSError { errorPointer?.pointee = e; return nil }
            let amount = 30
            txn.updateData(["balance": (sa["balance"] as? Int ?? 0) - amount], forDocument: a)
            txn.updateData(["balance": (sb["balance"] as? Int ?? 0) + amount], forDocument: b)
            txn.setData(["amount": amount], forDocument: db.document("transfers/t1"), merge: true)
            txn.setData(["a": true, "skip": false], forDocument: db.document("audit/x"), mergeFields: ["a"])
            return nil
        }
        #expect(try await apiData(a)?["balance"] as? Int == 70)
        #expect(try await apiData(b)?["balance"] as? Int == 30)
        #expect(try await apiData(db.document("transfers/t1"))?["amount"] as? Int == 30)
        #expect(try await apiData(db.document("audit/x"))?.count == 1)
    }

    @Test func serverTimestampsInATransactionShareTheCommitTime() async throws {
        let (db, clock) = apiClockedDB()
        clock.advance(by: 2)
        let a = db.document("c/a"), b = db.document("c/b")
        _ = try await db.runTransaction { txn, _ in
            txn.setData(["t": FieldValue.serverTimestamp()], forDocument: a)
            txn.setData(["t": FieldValue.serverTimestamp()], forDocument: b)
            return nil
        }
        #expect(try await apiData(a)?["t"] as? Timestamp == apiTime(apiEpochSeconds + 2))
        #expect(try await apiData(b)?["t"] as? Timestamp == apiTime(apiEpochSeconds + 2))
    }

    // MARK: Stage matrix (docs/semantics.md#transactions)

    enum Start: String, Sendable { case exists, missing, deleted }
    enum Outcome: Sendable, Equatable { case deleted, lastData, invalidArgument, notFound }

    struct StageCase: Sendable, CustomTestStringConvertible {
        let start: Start
        let read: Bool
        let ops: String  // "d", "u", "s" in order
        let outcome: Outcome
        var testDescription: String { "\(start.rawValue): \(read ? "get," : "")\(ops.map(String.init).joined(separator: ","))" }
    }

    static let stageCases: [StageCase] = {
        var cases: [StageCase] = []
        func add(_ start: Start, _ read: Bool, _ ops: [String], _ outcome: Outcome) {
            cases += ops.map { StageCase(start: start, read: read, ops: $0, outcome: outcome) }
        }
        add(.exists, true, ["dd", "ud", "sd"], .deleted)
        add(.exists, true, ["du"], .invalidArgument)
        add(.exists, true, ["ds", "uu", "us", "su", "ss"], .lastData)
        for start in [Start.missing, .deleted] {
            add(start, true, ["dd", "sd"], .deleted)
            add(start, true, ["du"], .invalidArgument)
            add(start, true, ["ud", "uu", "us"], .invalidArgument)
            add(start, true, ["ds", "su", "ss"], .lastData)
        }
        add(.exists, false, ["dd", "ud", "sd"], .deleted)
        add(.exists, false, ["du"], .invalidArgument)
        add(.exists, false, ["ds", "uu", "us", "su", "ss"], .lastData)
        add(.missing, false, ["ud", "uu", "us"], .notFound)
        add(.missing, false, ["du"], .invalidArgument)
        add(.missing, false, ["dd", "sd"], .deleted)
        add(.missing, false, ["ds", "su", "ss"], .lastData)
        return cases
    }()

    @Test(arguments: stageCases)
    func stageMatrix(_ c: StageCase) async throws {
        let db = apiDB()
        let ref = db.document("docs/x")
        if c.start != .missing { try await ref.setData(["v": "start", "start": true]) }
        if c.start == .deleted { try await ref.delete() }
        let attempts = APICounter()
        let error = await apiError {
            _ = try await db.runTransaction { txn, errorPointer in
                attempts.increment()
                if c.read {
                    do { _ = try txn.getDocument(ref) } catch let e as NSError { errorPointer?.pointee = e; return nil }
                }
                for (i, op) in c.ops.enumerated() {
                    switch op {
                    case "d": txn.deleteDocument(ref)
                    case "u": txn.updateData(["v": "u\(i)", "u\(i)": true], forDocument: ref)
                    default: txn.setData(["v": "s\(i)"], forDocument: ref)
                    }
                }
                return nil
            }
        }
        #expect(attempts.value == 1)
        let snap = try await ref.getDocument()
        switch c.outcome {
        case .deleted:
            #expect(error == nil)
            #expect(!snap.exists)
        case .lastData:
            #expect(error == nil)
            let data = try #require(snap.data())
            let last = c.ops.count - 1
            let lastOp = c.ops.last!
            #expect(data["v"] as? String == "\(lastOp)\(last)")
            // A set replaces everything before it; an update keeps what was there.
            let expectedKeys: Set<String> = {
                var keys: Set<String> = c.start == .exists ? ["v", "start"] : []
                for (i, op) in c.ops.enumerated() {
                    switch op {
                    case "d": keys = []
                    case "u": keys.formUnion(["v", "u\(i)"])
                    default: keys = ["v"]
                    }
                }
                return keys
            }()
            #expect(Set(data.keys) == expectedKeys)
        case .invalidArgument:
            #expect(error?.domain == FirestoreErrorDomain)
            #expect(error?.code == FirestoreErrorCode.invalidArgument.rawValue)
            #expect(snap.exists == (c.start == .exists))
            if c.start == .exists { #expect(snap.data()?["v"] as? String == "start") }
        case .notFound:
            #expect(error?.code == FirestoreErrorCode.notFound.rawValue)
            #expect(!snap.exists)
        }
    }

    // MARK: Helpers

    /// A write from outside the transaction (the fire-and-forget form commits before it returns).
    static func writeOutsideTheTransaction(_ ref: DocumentReference, _ data: [String: Any]) {
        ref.setData(data)
    }
}

/// Hands an error out of a transaction block.
final class APIErrorBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: NSError?

    var error: NSError? {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
}
