import HearthCore

/// The resource-name strings of the gRPC requests: `database` fields
/// (`projects/{p}/databases/{d}`), `parent` fields (`…/documents` or a document under it)
/// and document names. Malformed names are INVALID_ARGUMENT.
enum ResourceNameFields {
    /// `projects/{p}/databases/{d}`.
    static func database(_ name: String, field: String) throws(FirestoreError) -> DatabaseID {
        let parts = ResourcePath.slashSeparated(name)
        guard parts.count == 4, parts[0] == "projects", parts[2] == "databases", !parts[1].isEmpty, !parts[3].isEmpty else {
            throw .invalidArgument("Invalid \(field): \"\(name)\"; expected projects/{project_id}/databases/{database_id}.")
        }
        return DatabaseID(project: parts[1], database: parts[3])
    }

    /// `projects/{p}/databases/{d}/documents[/{document_path}]`: the database and the
    /// parent path (empty for the root, else a document).
    static func parent(_ name: String, field: String) throws(FirestoreError) -> (DatabaseID, ResourcePath) {
        let parts = ResourcePath.slashSeparated(name)
        guard parts.count >= 5, parts[0] == "projects", parts[2] == "databases", parts[4] == "documents",
              !parts[1].isEmpty, !parts[3].isEmpty else {
            throw .invalidArgument("Invalid \(field): \"\(name)\"; expected projects/{project_id}/databases/{database_id}/documents[/…].")
        }
        let path = ResourcePath(segments: Array(parts[5...]))
        guard path.isEmpty || path.isDocument else {
            throw .invalidArgument("Invalid \(field): \"\(name)\"; a parent must be the documents root or a document.")
        }
        try path.validateSegments()
        return (DatabaseID(project: parts[1], database: parts[3]), path)
    }

    /// A document name: its database and path (segments validated).
    static func document(_ name: String, field: String) throws(FirestoreError) -> (DatabaseID, ResourcePath) {
        let parsed = try DocumentName.parse(name)
        try parsed.path.validateSegments()
        return (parsed.database, parsed.path)
    }
}
