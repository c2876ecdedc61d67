import Foundation
import HearthCore

/// One result of a pipeline: the document it came from (when it is one) and its fields.
public struct PipelineResult: @unchecked Sendable {
    public let ref: DocumentReference?
    public let id: String?
    public let createTime: Timestamp?
    public let updateTime: Timestamp?
    /// The fields, as the SDK reads values (`NSNumber`, `Timestamp`, `[String: Any]`…).
    public let data: [String: Any]

    init(row: PipelineRow, firestore: Firestore, writer: UserDataWriter) {
        ref = row.name.map { DocumentReference(firestore: firestore, path: $0) }
        id = row.name?.lastSegment
        createTime = row.createTime.map(Timestamp.init)
        updateTime = row.updateTime.map(Timestamp.init)
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

    public func get(_ field: Field) -> Any? {
        get(field.fieldName)
    }
}
