import Foundation
import HearthCore

/// One result of a pipeline: the document it came from (when it is one) and its fields.
/// The reference and times are made when read: most callers read only `data`.
public struct PipelineResult: @unchecked Sendable {
    private let firestore: Firestore
    private let name: ResourcePath?
    private let created: HearthCore.Timestamp?
    private let updated: HearthCore.Timestamp?
    /// The fields, as the SDK reads values (`NSNumber`, `Timestamp`, `[String: Any]`…).
    public let data: [String: Any]

    public var ref: DocumentReference? { name.map { DocumentReference(firestore: firestore, path: $0) } }
    public var id: String? { name?.lastSegment }
    public var createTime: Timestamp? { created.map(Timestamp.init) }
    public var updateTime: Timestamp? { updated.map(Timestamp.init) }

    init(row: PipelineRow, firestore: Firestore, writer: UserDataWriter) {
        self.firestore = firestore
        name = row.name
        created = row.createTime
        updated = row.updateTime
        // A stored document's fields convert once per version (the memo queries use too).
        data = row.document.map(writer.memoizedFields) ?? writer.fields(row.fields)
    }

    /// The value at a dotted field path, or nil.
    public func get(_ fieldName: String) -> Any? { get(FieldPath(fieldName.split(separator: ".").map(String.init))) }

    public func get(_ fieldPath: FieldPath) -> Any? {
        var current: Any? = data
        for segment in fieldPath.core.segments {
            guard let map = current as? [String: Any] else { return nil }
            current = map[segment]
        }
        return current
    }

    public func get(_ field: Field) -> Any? { get(field.fieldName) }
}
