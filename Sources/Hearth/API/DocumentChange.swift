import Foundation

/// How a document's presence in a query result changed.
public enum DocumentChangeType: Int, Sendable {
    case added, modified, removed
}

/// One change between two snapshots of a query, with the SDK's positions: `oldIndex` in the
/// previous result (`UInt(NSNotFound)` for `.added`), `newIndex` in the new one
/// (`UInt(NSNotFound)` for `.removed`), counted as the changes are applied one by one in the
/// order they are listed (docs/semantics.md#listeners).
public final class DocumentChange: @unchecked Sendable, Hashable, CustomStringConvertible {
    public let type: DocumentChangeType
    /// The document after the change (for `.removed`, as it was before).
    public let document: QueryDocumentSnapshot
    public let oldIndex: UInt
    public let newIndex: UInt

    init(type: DocumentChangeType, document: QueryDocumentSnapshot, oldIndex: UInt, newIndex: UInt) {
        self.type = type
        self.document = document
        self.oldIndex = oldIndex
        self.newIndex = newIndex
    }

    public static func == (a: DocumentChange, b: DocumentChange) -> Bool {
        a.type == b.type && a.document == b.document && a.oldIndex == b.oldIndex && a.newIndex == b.newIndex
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        hasher.combine(document)
        hasher.combine(oldIndex)
        hasher.combine(newIndex)
    }

    public var description: String {
        "<FIRDocumentChange: type=\(type), document=\(document.reference.path), oldIndex=\(oldIndex), newIndex=\(newIndex)>"
    }
}
