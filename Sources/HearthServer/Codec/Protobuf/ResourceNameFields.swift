import HearthCore

/// The resource-name strings of the gRPC requests: `database` fields
/// (`projects/{p}/databases/{d}`), `parent` fields (`…/documents` or a document under it)
/// and document names, read by HearthCore's `ResourceName` (malformed names are
/// INVALID_ARGUMENT with the official emulator's texts).
enum ResourceNameFields {
    /// `projects/{p}/databases/{d}`.
    static func database(_ name: String) throws(FirestoreError) -> DatabaseID {
        try ResourceName.database(name)
    }

    /// `projects/{p}/databases/{d}/documents[/{document_path}]`: the database and the
    /// parent path (empty for the root, else a document; segments validated).
    static func parent(_ name: String) throws(FirestoreError) -> (DatabaseID, ResourcePath) {
        let (database, path) = try ResourceName.parse(name, as: .documentParent)
        try path.validateSegments()
        return (database, path)
    }

    /// A document name: its database and path (segments validated).
    static func document(_ name: String) throws(FirestoreError) -> (DatabaseID, ResourcePath) {
        let parsed = try DocumentName.parse(name)
        try parsed.path.validateSegments()
        return (parsed.database, parsed.path)
    }
}
