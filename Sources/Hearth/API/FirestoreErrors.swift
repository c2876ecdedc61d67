import Foundation
import HearthCore

/// The error domain of every runtime error Hearth reports (`NSError.domain`).
public let FirestoreErrorDomain = "FIRFirestoreErrorDomain"

/// A Firestore runtime error. It *is* an `NSError` (domain `FirestoreErrorDomain`, the
/// code, the server's message as `localizedDescription`), so every pattern app code uses
/// with the SDK works on Linux too — where a thrown Swift error struct never matches
/// `catch let e as NSError`:
/// `catch let e as NSError`, `catch FirestoreErrorCode.notFound`,
/// `catch let e as FirestoreErrorCode where e.code == .notFound`,
/// `switch error { case FirestoreErrorCode.aborted: … }`, `FirestoreErrorCode.Code(rawValue:)`.
public final class FirestoreErrorCode: NSError, @unchecked Sendable {
    public enum Code: Int, Sendable, Hashable {
        case ok = 0, cancelled = 1, unknown = 2, invalidArgument = 3, deadlineExceeded = 4,
             notFound = 5, alreadyExists = 6, permissionDenied = 7, resourceExhausted = 8,
             failedPrecondition = 9, aborted = 10, outOfRange = 11, unimplemented = 12,
             `internal` = 13, unavailable = 14, dataLoss = 15, unauthenticated = 16

        /// `e.code == .notFound` where `e.code` is NSError's `Int` code.
        public static func == (lhs: Int, rhs: Code) -> Bool { lhs == rhs.rawValue }
        public static func != (lhs: Int, rhs: Code) -> Bool { lhs != rhs.rawValue }
        /// `switch e.code { case .notFound: … }`.
        public static func ~= (pattern: Code, value: Int) -> Bool { value == pattern.rawValue }
    }

    public init(_ code: Code, message: String = "") {
        super.init(domain: FirestoreErrorDomain, code: code.rawValue, userInfo: [NSLocalizedDescriptionKey: message])
    }

    public required init?(coder: NSCoder) { nil }

    convenience init(_ error: FirestoreError) {
        self.init(Code(rawValue: error.code.rawValue) ?? .unknown, message: error.message)
    }

    /// The error's code as the enum.
    public var errorCode: Code { Code(rawValue: code) ?? .unknown }
    /// The message production Firestore gives.
    public var message: String { localizedDescription }

    public static let ok = Code.ok
    public static let cancelled = Code.cancelled
    public static let unknown = Code.unknown
    public static let invalidArgument = Code.invalidArgument
    public static let deadlineExceeded = Code.deadlineExceeded
    public static let notFound = Code.notFound
    public static let alreadyExists = Code.alreadyExists
    public static let permissionDenied = Code.permissionDenied
    public static let resourceExhausted = Code.resourceExhausted
    public static let failedPrecondition = Code.failedPrecondition
    public static let aborted = Code.aborted
    public static let outOfRange = Code.outOfRange
    public static let unimplemented = Code.unimplemented
    public static let `internal` = Code.internal
    public static let unavailable = Code.unavailable
    public static let dataLoss = Code.dataLoss
    public static let unauthenticated = Code.unauthenticated
}

/// `catch FirestoreErrorCode.notFound` / `case FirestoreErrorCode.aborted:` on any `Error`.
public func ~= (pattern: FirestoreErrorCode.Code, value: any Error) -> Bool {
    let ns = value as NSError
    return ns.domain == FirestoreErrorDomain && ns.code == pattern.rawValue
}

/// Thrown by `Firestore.Decoder` for values it cannot decode.
public enum FirestoreDecodingError: Error, Sendable {
    case decodingIsNotSupported(String)
    case fieldNameConflict(String)
}

/// Thrown by `Firestore.Encoder` for values it cannot encode.
public enum FirestoreEncodingError: Error, Sendable {
    case encodingIsNotSupported(String)
}

/// A programmer error: the SDK raises an Objective-C exception (the app crashes) with this
/// message. Hearth stops the process the same way; the checks themselves live in throwing
/// internal functions so they can be tested.
func programmerError(_ message: String, file: StaticString = #file, line: UInt = #line) -> Never {
    fatalError(message, file: file, line: line)
}

/// Runs a check that may fail with a programmer error.
@inline(__always)
func requireValid<T>(_ body: () throws(FirestoreError) -> T) -> T {
    do { return try body() } catch { programmerError(error.message) }
}

#if !canImport(ObjectiveC)
/// The SDK's transaction closures write errors through an `NSErrorPointer`, which
/// swift-corelibs-foundation does not declare.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?
#endif
