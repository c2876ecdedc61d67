import HearthCore

extension Firestore {
    /// Starts a pipeline query on this database.
    public func pipeline() -> PipelineSource { PipelineSource(db: self) }
}

/// The first stage of a pipeline: where its documents come from.
public struct PipelineSource: @unchecked Sendable {
    let db: Firestore

    private func start(_ name: String, _ args: [PipelineValue]) -> Pipeline {
        Pipeline(stages: [Pipeline.Stage { _ in [PipelineStage(name, args)] }], db: db)
    }

    /// The documents of a collection (`"cities"`, `"cities/sf/restaurants"`).
    public func collection(_ path: String, forceIndex: String? = nil) -> Pipeline {
        start("collection", [.constant(.string(path.hasPrefix("/") ? path : "/" + path))])
    }

    public func collection(_ coll: CollectionReference, forceIndex: String? = nil) -> Pipeline { collection(coll.path) }

    /// The documents of every collection with this ID.
    public func collectionGroup(_ collectionId: String, forceIndex: String? = nil) -> Pipeline {
        start("collection_group", [.constant(.string("")), .constant(.string(collectionId))])
    }

    /// Every document of the database.
    public func database() -> Pipeline { start("database", []) }

    public func documents(_ docs: [DocumentReference]) -> Pipeline { documents(docs.map { "/" + $0.path }) }

    public func documents(_ paths: [String]) -> Pipeline {
        start("documents", paths.map { .constant(.string($0.hasPrefix("/") ? $0 : "/" + $0)) })
    }

    /// The pipeline equivalent to a query (its filters, order, limit and offset).
    public func create(from query: Query) -> Pipeline {
        Pipeline(stages: [Pipeline.Stage { _ throws(FirestoreError) in
            try query.checkRunnable()
            return try query.definition.structuredQuery.pipelineStages()
        }], db: db)
    }
}
