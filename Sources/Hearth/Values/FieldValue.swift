import Foundation
import HearthCore

/// Sentinels for `setData` / `updateData`: delete a field, or have the server transform it.
public final class FieldValue: NSObject, @unchecked Sendable {
    enum Kind {
        case delete
        case serverTimestamp
        case increment(HearthCore.Value)
        case maximum(HearthCore.Value)
        case minimum(HearthCore.Value)
        case arrayUnion([Any])
        case arrayRemove([Any])
    }

    let kind: Kind

    init(_ kind: Kind) { self.kind = kind }

    /// Removes the field (only in `updateData` and merging `setData`).
    public static func delete() -> FieldValue { FieldValue(.delete) }
    /// The commit time of the write.
    public static func serverTimestamp() -> FieldValue { FieldValue(.serverTimestamp) }
    /// Appends each element not already present (an array is created if needed).
    public static func arrayUnion(_ elements: [Any]) -> FieldValue { FieldValue(.arrayUnion(elements)) }
    /// Removes every occurrence of each element.
    public static func arrayRemove(_ elements: [Any]) -> FieldValue { FieldValue(.arrayRemove(elements)) }
    /// Adds to a number (integers saturate at the int64 bounds); a missing or non-numeric
    /// field becomes the operand.
    public static func increment(_ l: Int64) -> FieldValue { FieldValue(.increment(.integer(l))) }
    public static func increment(_ d: Double) -> FieldValue { FieldValue(.increment(.double(d))) }
    /// The larger of the field and the operand.
    public static func maximum(_ l: Int64) -> FieldValue { FieldValue(.maximum(.integer(l))) }
    public static func maximum(_ d: Double) -> FieldValue { FieldValue(.maximum(.double(d))) }
    /// The smaller of the field and the operand.
    public static func minimum(_ l: Int64) -> FieldValue { FieldValue(.minimum(.integer(l))) }
    public static func minimum(_ d: Double) -> FieldValue { FieldValue(.minimum(.double(d))) }
    /// A vector value.
    public static func vector(_ array: [Double]) -> VectorValue { VectorValue(array) }
    public static func vector(_ array: [Float]) -> VectorValue { VectorValue(array.map(Double.init)) }

    /// The SDK's method name, used in messages (`FieldValue.increment()`).
    var methodName: String {
        switch kind {
        case .delete: "FieldValue.delete()"
        case .serverTimestamp: "FieldValue.serverTimestamp()"
        case .increment: "FieldValue.increment()"
        case .maximum: "FieldValue.maximum()"
        case .minimum: "FieldValue.minimum()"
        case .arrayUnion: "FieldValue.arrayUnion()"
        case .arrayRemove: "FieldValue.arrayRemove()"
        }
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? FieldValue else { return false }
        return methodName == other.methodName && String(describing: kind) == String(describing: other.kind)
    }

    public override var hash: Int { methodName.hashValue }
}

/// `FieldValue` sits inside Codable models only for `Firestore.Encoder`, which passes it
/// through; any other encoder fails.
extension FieldValue: Encodable {
    public func encode(to encoder: any Encoder) throws {
        throw FirestoreEncodingError.encodingIsNotSupported("FieldValue values can only be encoded with Firestore.Encoder")
    }
}
