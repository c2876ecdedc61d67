extension Write {
    /// Applies this write to `current`, the document as earlier writes of the same commit
    /// left it (nil = missing). Returns the document afterwards (nil = missing) and the
    /// transform results. Size limits are checked by the commit on the final documents.
    func apply(to current: Document?, commitTime: Timestamp, database: DatabaseID) throws(FirestoreError)
        -> (document: Document?, transformResults: [Value])
    {
        try check(precondition, against: current, database: database)
        var fields: MapValue
        switch operation {
        case .delete:
            return (nil, [])
        case .verify:
            return (current, [])
        case .set(let newFields):
            fields = newFields
        case .update(let newFields, let mask):
            // Copied before the first change by `MapValue.copy()`, rather than by the
            // first change's copy-on-write (the stored version shares these entries).
            fields = current?.fields.copy() ?? MapValue()
            for path in mask {
                if let v = newFields.value(at: path) { fields.setValue(v, at: path) } else { fields.removeValue(at: path) }
            }
        case .transformOnly:
            fields = current?.fields.copy() ?? MapValue()
        }
        var results: [Value] = []
        results.reserveCapacity(transforms.count)
        for t in transforms {
            let newValue = t.apply(to: fields.value(at: t.path), commitTime: commitTime)
            fields.setValue(newValue, at: t.path)
            results.append(t.result(newValue: newValue))
        }
        if let current {
            // Whether the content really changed is decided once, by the commit, on the
            // final document (a no-op keeps the stored version and its update time).
            // The stored document's path (shared with its earlier versions), not the write's.
            return (Document(path: current.path, fields: fields, createTime: current.createTime, updateTime: commitTime), results)
        }
        return (Document(path: path, fields: fields, createTime: commitTime, updateTime: commitTime), results)
    }

    private func check(_ precondition: Precondition?, against current: Document?, database: DatabaseID) throws(FirestoreError) {
        switch precondition {
        case nil:
            return
        case .exists(true)?:
            if current == nil { throw FirestoreError(.notFound, "No document to update: \(database.resourceName(path))") }
        case .exists(false)?:
            if current != nil { throw FirestoreError(.alreadyExists, "Document already exists: \(database.resourceName(path))") }
        case .updateTime(let expected)?:
            guard let current else {
                throw FirestoreError(.failedPrecondition,
                    "The document \(database.resourceName(path)) does not exist, so it does not have the required update time \(expected.rfc3339).")
            }
            if expected > current.updateTime {
                // Production answers a required time later than the stored one as a bad request.
                throw FirestoreError(.invalidArgument,
                    "The required update time \(expected.rfc3339) of \(database.resourceName(path)) is later than its last update at \(current.updateTime.rfc3339).")
            }
            if current.updateTime != expected {
                throw FirestoreError(.failedPrecondition,
                    "The document \(database.resourceName(path)) was updated at \(current.updateTime.rfc3339), which does not match the required update time \(expected.rfc3339).")
            }
        }
    }
}
