/// One version of a document in its history chain, newest first. The chain keeps every
/// version a read at a retained read time can need (production keeps one hour); a version
/// whose `document` is nil records that the document was missing from `since` on.
///
/// Nodes are immutable once built, so versions are shared freely between database states.
public final class DocumentVersion: Sendable {
    public let document: Document?
    /// The commit time from which this version is current.
    public let since: Timestamp
    public let older: DocumentVersion?
    /// Σ sizes of the document's fields (docs/semantics.md#document-size-and-limits; 0 when missing), kept so a commit
    /// that changes a few fields checks the size limit without measuring the rest again.
    let fieldsSize: Int

    /// `fieldsSize`, when the caller has measured it, saves measuring the document again.
    public init(document: Document?, since: Timestamp, older: DocumentVersion?, fieldsSize: Int? = nil) {
        self.document = document
        self.since = since
        self.fieldsSize = fieldsSize ?? document.map { DocumentLimits.fieldsSize($0.fields) } ?? 0
        self.older = older
    }

    /// The version current at `time`, or nil when the document had no recorded state then
    /// (it did not exist).
    public func version(at time: Timestamp) -> DocumentVersion? {
        var v: DocumentVersion? = self
        while let current = v {
            if current.since <= time { return current }
            v = current.older
        }
        return nil
    }

    /// The chain without versions that no read at or after `horizon` can see: the versions
    /// down to the first one current at the horizon, which becomes the tail. Returns `self`
    /// when nothing is dropped; otherwise the kept versions are new nodes (the old ones stay
    /// as they are for whoever still reads them), so the cost is the number kept.
    func pruned(before horizon: Timestamp) -> DocumentVersion {
        var kept: [DocumentVersion] = []
        var v: DocumentVersion? = self
        while let current = v {
            kept.append(current)
            if current.since <= horizon { break }
            v = current.older
        }
        guard kept[kept.count - 1].older != nil else { return self }
        var chain: DocumentVersion? = nil
        for node in kept.reversed() {
            chain = DocumentVersion(document: node.document, since: node.since, older: chain, fieldsSize: node.fieldsSize)
        }
        return chain!
    }
}
