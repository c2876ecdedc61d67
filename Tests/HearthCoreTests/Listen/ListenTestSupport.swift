import Foundation
import HearthLock
@testable import HearthCore

// Helpers for the listener tests: a target's snapshots, collected as the sink receives them
// (under the commit lock, so they are all there once a commit call returns).

final class ListenRecorder: Sendable {
    private let received = HearthMutex<[ViewSnapshot]>([])

    var sink: @Sendable (ViewSnapshot) -> Void { { snapshot in self.received.withLock { $0.append(snapshot) } } }

    var snapshots: [ViewSnapshot] { received.withLock { $0 } }

    /// The snapshots received since the last call.
    func take() -> [ViewSnapshot] { received.withLock { r in defer { r = [] }; return r } }
}

/// Listens to `target` on `db`, recording every snapshot.
func listenRecording(_ db: Database, _ target: ListenTarget) throws -> (ListenRecorder, ListenTargetID) {
    let recorder = ListenRecorder()
    let id = try db.listen(target, sink: recorder.sink)
    return (recorder, id)
}

/// The IDs of a snapshot's documents, in view order.
func listenIDs(_ snapshot: ViewSnapshot) -> [String] { snapshot.documents.map(\.id) }

/// `kind id old→new` for each indexed change, `-` for a missing index.
func listenChanges(_ snapshot: ViewSnapshot, reversed: Bool = false) -> [String] {
    snapshot.indexedChanges(presentedReversed: reversed).map { c in
        "\(c.change.kind) \(c.change.document.id) \(c.oldIndex.map(String.init) ?? "-")→\(c.newIndex.map(String.init) ?? "-")"
    }
}

/// Writes `fields` to `c/<id>`.
func listenSet(_ db: Database, _ id: String, _ fields: KeyValuePairs<String, Value>, collection: String = "c") throws {
    try db.commit([.set(testPath("\(collection)/\(id)"), testFields(fields))])
}
