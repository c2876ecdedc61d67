import Foundation
import HearthCore

/// How to read a `serverTimestamp()` field a snapshot shows before its write commits (a
/// latency-compensated snapshot, `metadata.hasPendingWrites == true`): `.none` as `NSNull`
/// (the default), `.estimate` as the local time of the write, `.previous` as the field's
/// value before the write (`NSNull` when it had none). Committed documents hold the
/// server's time and read the same under every behaviour.
public enum ServerTimestampBehavior: Int, Sendable {
    case none, estimate, previous
}

/// Whether a snapshot shows writes of this instance not yet committed
/// (`hasPendingWrites`), and whether it was read from the instance's cache
/// (`getDocument(source: .cache)`, reads while the instance is offline, and listeners not
/// in sync: started or kept while offline).
public final class SnapshotMetadata: @unchecked Sendable, Hashable, CustomStringConvertible {
    public let hasPendingWrites: Bool
    public let isFromCache: Bool

    init(hasPendingWrites: Bool, isFromCache: Bool) {
        self.hasPendingWrites = hasPendingWrites
        self.isFromCache = isFromCache
    }

    static let server = SnapshotMetadata(hasPendingWrites: false, isFromCache: false)
    static let pending = SnapshotMetadata(hasPendingWrites: true, isFromCache: false)
    static let cache = SnapshotMetadata(hasPendingWrites: false, isFromCache: true)
    static let pendingInCache = SnapshotMetadata(hasPendingWrites: true, isFromCache: true)

    static func of(pending: Bool, fromCache: Bool) -> SnapshotMetadata {
        fromCache ? (pending ? pendingInCache : cache) : (pending ? self.pending : server)
    }

    public static func == (a: SnapshotMetadata, b: SnapshotMetadata) -> Bool {
        a.hasPendingWrites == b.hasPendingWrites && a.isFromCache == b.isFromCache
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(hasPendingWrites)
        hasher.combine(isFromCache)
    }

    public var description: String {
        "<FIRSnapshotMetadata: hasPendingWrites=\(hasPendingWrites), isFromCache=\(isFromCache)>"
    }
}

/// A document's contents at one point in time (or its absence).
public class DocumentSnapshot: @unchecked Sendable, Hashable, CustomStringConvertible {
    let firestore: Firestore
    public let metadata: SnapshotMetadata
    /// The engine document; nil when the document does not exist.
    let document: HearthCore.Document?
    /// The path when there is no document to hold it (a query result's snapshot is made
    /// without touching its document's path).
    private let absentPath: ResourcePath?

    /// `absentPath` is given exactly when `document` is nil.
    private init(firestore: Firestore, document: HearthCore.Document?, absentPath: ResourcePath?, metadata: SnapshotMetadata) {
        self.firestore = firestore
        self.absentPath = absentPath
        self.document = document
        self.metadata = metadata
    }

    convenience init(firestore: Firestore, path: ResourcePath, document: HearthCore.Document?, metadata: SnapshotMetadata) {
        self.init(firestore: firestore, document: document, absentPath: document == nil ? path : nil, metadata: metadata)
    }

    convenience init(reference: DocumentReference, document: HearthCore.Document?, metadata: SnapshotMetadata) {
        self.init(firestore: reference.firestore, path: reference.key, document: document, metadata: metadata)
    }

    /// A query result: its path is the document's.
    convenience init(firestore: Firestore, document: HearthCore.Document, metadata: SnapshotMetadata) {
        self.init(firestore: firestore, document: document, absentPath: nil, metadata: metadata)
    }

    /// The document's path, also when it does not exist.
    var path: ResourcePath { document?.path ?? absentPath.unsafelyUnwrapped }

    /// The document's reference: a new one on each call, as the SDK's (a query result's
    /// snapshot does not pay for a reference nobody asks for).
    public var reference: DocumentReference { DocumentReference(firestore: firestore, path: path) }
    public var exists: Bool { document != nil }
    public var documentID: String { path.lastSegment }

    var writer: UserDataWriter { UserDataWriter(firestore: firestore) }

    /// The fields, or nil when the document does not exist. Server timestamps not yet
    /// committed read as `NSNull` (`ServerTimestampBehavior.none`).
    public func data() -> [String: Any]? {
        data(with: .none)
    }

    public func data(with serverTimestampBehavior: ServerTimestampBehavior) -> [String: Any]? {
        guard let document else { return nil }
        // Only a snapshot with pending writes can hold pending server timestamps.
        guard metadata.hasPendingWrites else { return writer.memoizedFields(document) }
        return writer.fields(document.fields, serverTimestamps: serverTimestampBehavior)
    }

    /// The value at a dotted path (`"address.city"`) or `FieldPath`; nil when missing.
    public func get(_ field: Any) -> Any? {
        get(field, serverTimestampBehavior: .none)
    }

    public func get(_ field: Any, serverTimestampBehavior: ServerTimestampBehavior) -> Any? {
        guard let document else { return nil }
        let path: HearthCore.FieldPath = requireValid { () throws(FirestoreError) in
            switch field {
            case let s as String: return try HearthCore.FieldPath.parseDotted(s)
            case let p as FieldPath: return p.core
            default: throw .invalidArgument("Subscript key must be an NSString or FIRFieldPath.")
            }
        }
        if path.isDocumentName { return documentID }
        let behavior = metadata.hasPendingWrites ? serverTimestampBehavior : nil
        return document.fields.value(at: path).map { writer.value($0, serverTimestamps: behavior) }
    }

    public subscript(key: Any) -> Any? { self.get(key) }

    public static func == (a: DocumentSnapshot, b: DocumentSnapshot) -> Bool {
        a.firestore === b.firestore && a.path == b.path && a.document == b.document && a.metadata == b.metadata
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(path)
        hasher.combine(document?.updateTime)
    }

    public var description: String {
        "<FIRDocumentSnapshot: \(path), exists=\(exists)>"
    }
}

/// A snapshot of a document that is part of a query result (it always exists).
public final class QueryDocumentSnapshot: DocumentSnapshot, @unchecked Sendable {
    public override func data() -> [String: Any] {
        data(with: .none)
    }

    public override func data(with serverTimestampBehavior: ServerTimestampBehavior) -> [String: Any] {
        guard metadata.hasPendingWrites else { return writer.memoizedFields(document!) }
        return writer.fields(document!.fields, serverTimestamps: serverTimestampBehavior)
    }
}
