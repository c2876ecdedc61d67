import Foundation
import Testing
@testable import Hearth

/// `FirestoreErrorCode` as app code matches it (docs/embedded-api.md#linux-and-apple-platforms item 6, #errors), and the
/// server-side validation errors writes can fail with (docs/semantics.md#field-paths, #document-size-and-limits, #error-codes).
@Suite struct ErrorTests {
    private func notFoundError() async -> Error? {
        let ref = apiDB().document("users/nobody")
        do {
            try await ref.updateData(["a": 1])
            return nil
        } catch {
            return error
        }
    }

    @Test func catchByCodePattern() async throws {
        let ref = apiDB().document("users/nobody")
        var caught = false
        do {
            try await ref.updateData(["a": 1])
        } catch FirestoreErrorCode.notFound {
            caught = true
        } catch {
            Issue.record("unexpected error \(error)")
        }
        #expect(caught)
    }

    @Test func switchOnError() async throws {
        let error = try #require(await notFoundError())
        let kind: String
        switch error {
        case FirestoreErrorCode.unavailable: kind = "unavailable"
        case FirestoreErrorCode.notFound: kind = "notFound"
        default: kind = "other"
        }
        #expect(kind == "notFound")
    }

    @Test func nsErrorBridging() async throws {
        let error = try #require(await notFoundError())
        let ns = error as NSError
        #expect(ns.domain == FirestoreErrorDomain)
        #expect(FirestoreErrorDomain == "FIRFirestoreErrorDomain")
        #expect(ns.code == FirestoreErrorCode.notFound.rawValue)
        #expect(ns.code == 5)
        #expect(FirestoreErrorCode.Code(rawValue: ns.code) == .notFound)
        #expect(FirestoreErrorCode.Code(rawValue: ns.code) == FirestoreErrorCode.notFound)
        let message = "No document to update: \(apiDocumentsPrefix)users/nobody"
        #expect(ns.localizedDescription == message)
        #expect(error.localizedDescription == message)
        #expect(ns.userInfo[NSLocalizedDescriptionKey] as? String == message)
    }

    @Test func castToFirestoreErrorCodeWithWhereClause() async throws {
        let ref = apiDB().document("users/nobody")
        var code: FirestoreErrorCode.Code?
        var message: String?
        do {
            try await ref.updateData(["a": 1])
        } catch let e as FirestoreErrorCode where e.code == .notFound {
            code = e.errorCode
            message = e.localizedDescription
        } catch {
            Issue.record("unexpected error \(error)")
        }
        #expect(code == .notFound)
        #expect(message == "No document to update: \(apiDocumentsPrefix)users/nobody")
    }

    @Test func patternDoesNotMatchOtherCodesOrDomains() async throws {
        let error = try #require(await notFoundError())
        #expect(!(FirestoreErrorCode.aborted ~= error))
        #expect(FirestoreErrorCode.notFound ~= error)
        let foreign = NSError(domain: "Other", code: FirestoreErrorCode.notFound.rawValue)
        #expect(!(FirestoreErrorCode.notFound ~= foreign))
        let bridged = NSError(domain: FirestoreErrorDomain, code: FirestoreErrorCode.aborted.rawValue)
        #expect(FirestoreErrorCode.aborted ~= bridged)
    }

    @Test func codeRawValuesMatchTheSDK() {
        let expected: [(FirestoreErrorCode.Code, Int)] = [
            (.ok, 0), (.cancelled, 1), (.unknown, 2), (.invalidArgument, 3), (.deadlineExceeded, 4),
            (.notFound, 5), (.alreadyExists, 6), (.permissionDenied, 7), (.resourceExhausted, 8),
            (.failedPrecondition, 9), (.aborted, 10), (.outOfRange, 11), (.unimplemented, 12),
            (.internal, 13), (.unavailable, 14), (.dataLoss, 15), (.unauthenticated, 16),
        ]
        for (code, raw) in expected {
            #expect(code.rawValue == raw)
            #expect(FirestoreErrorCode.Code(rawValue: raw) == code)
        }
        #expect(FirestoreErrorCode.Code(rawValue: 17) == nil)
        #expect(FirestoreErrorCode.unavailable.rawValue == 14)
        #expect(FirestoreErrorCode.internal == .internal)
        let e = FirestoreErrorCode(.aborted, message: "m")
        #expect((e as NSError).code == 10)
        #expect(e.domain == FirestoreErrorDomain)
    }

    /// On Linux a thrown Swift error struct never matches `catch let e as NSError` (the
    /// error escapes the do/catch); Hearth's errors are NSErrors, so the SDK idiom works.
    @Test func catchAsNSErrorMatchesAsyncAPIErrors() async throws {
        let ref = apiDB().document("users/nobody")
        var caught: NSError?
        do {
            try await ref.updateData(["a": 1])
        } catch let e as NSError {
            caught = e
        }
        #expect(caught?.domain == FirestoreErrorDomain)
        #expect(caught?.code == FirestoreErrorCode.notFound.rawValue)
        if let caught {
            switch caught.code {
            case .notFound: break
            default: Issue.record("expected notFound, got \(caught.code)")
            }
        }
    }

    // MARK: Server-side validation of writes

    @Test func oversizedDocumentIsRejected() async throws {
        let db = apiDB()
        let ref = db.document("c/d")
        // name "c/d": 2 + 2 + 16 = 20; fields: "a" (2) + string (L + 1), "b" likewise; + 32.
        let half = 524_259
        let atLimit: [String: Any] = ["a": String(repeating: "x", count: half), "b": String(repeating: "y", count: half)]
        try await ref.setData(atLimit)
        #expect((try await apiData(ref)?["a"] as? String)?.count == half)

        let tooBig: [String: Any] = ["a": String(repeating: "x", count: half + 1), "b": String(repeating: "y", count: half)]
        let error = try #require(await apiError { try await ref.setData(tooBig) })
        #expect(error.domain == FirestoreErrorDomain)
        #expect(error.code == FirestoreErrorCode.invalidArgument.rawValue)
        #expect(error.localizedDescription == "Document '\(apiDocumentsPrefix)c/d' cannot be written because its size (1,048,577 bytes) exceeds the maximum allowed size of 1,048,576 bytes.")
        #expect((try await apiData(ref)?["a"] as? String)?.count == half)

        let huge = await apiError { try await db.document("c/e").setData(["big": Data(count: 2_000_000)]) }
        #expect(huge?.code == FirestoreErrorCode.invalidArgument.rawValue)
        #expect(huge?.localizedDescription == "The value of property \"big\" is longer than 1048487 bytes.")
        #expect(try await db.document("c/e").getDocument().exists == false)
    }

    @Test func updateThatGrowsADocumentPastTheLimitIsRejected() async throws {
        let ref = apiDB().document("c/d")
        try await ref.setData(["a": String(repeating: "x", count: 600_000)])
        let error = await apiError { try await ref.updateData(["b": String(repeating: "y", count: 600_000)]) }
        #expect(error?.code == FirestoreErrorCode.invalidArgument.rawValue)
        #expect(error?.localizedDescription.hasPrefix("Document '\(apiDocumentsPrefix)c/d' cannot be written because its size (1,200,") == true)
        let data = try #require(try await apiData(ref))
        #expect(data["b"] == nil)
    }

    @Test func reservedFieldNamesAreRejected() async throws {
        let db = apiDB()
        let ref = db.document("c/d")
        let error = await apiError { try await ref.setData(["__x__": 1]) }
        #expect(error?.domain == FirestoreErrorDomain)
        #expect(error?.code == FirestoreErrorCode.invalidArgument.rawValue)
        #expect(error?.localizedDescription == "Invalid data. Document fields cannot begin and end with \"__\" (found in field __x__)")
        #expect(try await ref.getDocument().exists == false)

        let nested = await apiError { try await ref.setData(["m": ["__y__": true]]) }
        #expect(nested?.localizedDescription == "Invalid data. Document fields cannot begin and end with \"__\" (found in field m.__y__)")

        try await ref.setData(["ok": 1])
        let update = await apiError { try await ref.updateData(["a.__z__": 1]) }
        #expect(update?.code == FirestoreErrorCode.invalidArgument.rawValue)
        #expect(try await apiData(ref)?.count == 1)

        // Only names that both begin and end with "__" are reserved.
        try await ref.setData(["__a": 1, "b__": 2, "_c_": 3])
        #expect(try await apiData(ref)?.count == 3)
    }

    @Test func reservedDocumentIDsAreRejectedByTheServer() async throws {
        let db = apiDB()
        let error = await apiError { try await db.collection("c").document("__reserved__").setData(["a": 1]) }
        #expect(error?.code == FirestoreErrorCode.invalidArgument.rawValue)
        #expect(error?.localizedDescription == "Resource id \"__reserved__\" is invalid because it is reserved.")
    }
}
