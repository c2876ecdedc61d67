import Foundation
import HearthCore

/// A path to a field, given as literal segments (dots are not separators here):
/// `FieldPath(["address", "zip"])`, `FieldPath(["a.b"])`, or `FieldPath.documentID()`.
public final class FieldPath: NSObject, NSCopying, @unchecked Sendable {
    let core: HearthCore.FieldPath

    /// An empty list or an empty segment is a programmer error.
    public init(_ fieldNames: [String]) {
        core = requireValid { () throws(FirestoreError) in try Self.validated(fieldNames) }
    }

    init(core: HearthCore.FieldPath) { self.core = core }

    static func validated(_ names: [String]) throws(FirestoreError) -> HearthCore.FieldPath {
        if names.isEmpty { throw .invalidArgument("Invalid field path. Provided names must not be empty.") }
        for (i, n) in names.enumerated() where n.isEmpty {
            throw .invalidArgument("Invalid field name at index \(i). Field names must not be empty.")
        }
        return HearthCore.FieldPath(names)
    }

    /// The document's ID (`__name__`), for filtering and ordering by document ID.
    public static func documentID() -> FieldPath { FieldPath(core: .documentName) }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? FieldPath else { return false }
        return core == other.core
    }

    public override var hash: Int { core.hashValue }

    public override var description: String { core.dotted }
}
