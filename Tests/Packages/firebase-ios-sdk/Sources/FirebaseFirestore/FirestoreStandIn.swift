// The signatures the samples use, as the SDK declares them. The settings are real values
// (an app's test sets them); calls that would reach a backend report that this stand-in has
// none — the real SDK cannot run on Linux, so nothing here pretends to.
import Foundation

public struct StandInError: Error, CustomStringConvertible {
    public let description = "the firebase-ios-sdk stand-in has no backend"
}

public final class FirestoreSettings: @unchecked Sendable {
    public var host = "firestore.googleapis.com"
    public var isSSLEnabled = true
    public init() {}
}

public final class Firestore: @unchecked Sendable {
    private static let shared = Firestore()
    public static func firestore() -> Firestore { shared }
    public var settings = FirestoreSettings()
    public func collection(_ collectionPath: String) -> CollectionReference { CollectionReference(path: collectionPath) }
}

public class Query: @unchecked Sendable {
    public func order(by field: String) -> Query { self }
    public func getDocuments() async throws -> QuerySnapshot { throw StandInError() }
}

public final class CollectionReference: Query, @unchecked Sendable {
    public let path: String
    init(path: String) { self.path = path }
    public func addDocument(data: [String: Any]) async throws -> DocumentReference { throw StandInError() }
}

public final class DocumentReference: @unchecked Sendable {
    public let documentID: String
    init(documentID: String) { self.documentID = documentID }
}

public final class QuerySnapshot: @unchecked Sendable {
    public var documents: [QueryDocumentSnapshot] { [] }
}

public final class QueryDocumentSnapshot: @unchecked Sendable {
    public var documentID: String { "" }
    public func data() -> [String: Any] { [:] }
}
