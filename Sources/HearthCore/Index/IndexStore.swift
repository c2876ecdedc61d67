import Dispatch
import HearthLock
import Synchronization

/// The indexes a database state has materialised: for each index definition, a persistent
/// sorted set of entry keys (`[collection path] + field encodings + document name`: the
/// document's ID in a collection-scope index, its full path in a collection-group one) mapping
/// to the stored document they were made from. Part of `DatabaseState`, so it is shared,
/// snapshotted and restored with the documents in O(1).
///
/// A commit that leaves an index's fields alone leaves its entries alone too, so an entry
/// may hold a document that a later version has since replaced (`Document.isReplaced`): a
/// scan returns an entry's document directly unless it was replaced, and only then looks
/// the path up. Such an entry keeps its replaced document alive until a commit changes the
/// index's fields or deletes the document.
///
/// An index is materialised the first time a query needs it (one pass over the collection
/// group) and from then on maintained incrementally by every commit, so collections that
/// are never queried on a field pay nothing for it.
struct IndexStore: Sendable {
    typealias Entries = PersistentSortedMap<IndexKey, Document>

    /// The materialised indexes, in order of materialisation; `byGroup` lists the positions
    /// of those of each collection ID, so a commit reaches its indexes without hashing
    /// definitions (a collection group has a handful).
    private var materialized: [(definition: IndexDefinition, entries: Entries)] = []
    private var byGroup: [String: [Int]] = [:]

    func entries(_ definition: IndexDefinition) -> Entries? {
        guard let position = byGroup[definition.collectionGroup]?.first(where: { materialized[$0].definition == definition }) else {
            return nil
        }
        return materialized[position].entries
    }

    typealias Element = (key: IndexKey, value: Document)

    /// Databases of at least this many documents build an index on two threads: below it,
    /// handing half the work to another thread costs about what it saves (one build on two
    /// cores, a median of 30: 1,000 documents no faster, 1,500 +15%, 3,000 +43%).
    static let parallelBuildMinimum = 1_024
    /// The stretches of the document tree a parallel build hands out, one at a time, to
    /// whichever thread is free: many, so that threads finish together even when the
    /// group's documents fill only some of them (other collections' are skipped quickly).
    static let parallelBuildChunks = 32

    /// Builds `definition` from every document of its collection group in `documents`.
    mutating func materialize(_ definition: IndexDefinition, from documents: PersistentSortedMap<DocumentKey, DocumentVersion>) {
        materialize([definition], from: documents)
    }

    /// Builds every definition of `definitions` not yet materialised, in one pass over
    /// `documents`: each document is read once for all of them (a restart with several
    /// declared indexes on several collections read every document once per index before,
    /// each read of a cold document a cache miss). In a large database, two threads take
    /// stretches of the document tree in turn, each making and sorting runs of entries of
    /// its own, one per definition; then each definition's two runs are merged and its tree
    /// built, the definitions shared between the threads.
    mutating func materialize(_ definitions: [IndexDefinition], from documents: PersistentSortedMap<DocumentKey, DocumentVersion>) {
        var wanted: [IndexDefinition] = []
        for d in definitions where entries(d) == nil && !wanted.contains(d) { wanted.append(d) }
        guard !wanted.isEmpty else { return }
        // The wanted definitions of each collection group, found per document by comparing
        // its collection ID with a handful of strings (no hashing).
        var groups: [(id: String, positions: [Int])] = []
        for (i, d) in wanted.enumerated() {
            if let g = groups.firstIndex(where: { utf8Equal($0.id, d.collectionGroup) }) { groups[g].positions.append(i) } else { groups.append((d.collectionGroup, [i])) }
        }
        let splits = documents.count >= Self.parallelBuildMinimum ? documents.splitKeys(parts: Self.parallelBuildChunks) : []
        let threads = splits.isEmpty ? 1 : 2
        let next = Atomic<Int>(0)
        let runs = HearthMutex<[[[Element]]]>(Array(repeating: [], count: threads))
        let wantedDefinitions = wanted, wantedGroups = groups
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var mine = [[Element]](repeating: [], count: wantedDefinitions.count)
            var hints = wantedDefinitions.map { [Int](repeating: 0, count: $0.fields.count) }
            var scratch: [UInt8] = []
            while true {
                // Stretch i runs from splits[i - 1] to splits[i]; the first and last, to the ends.
                let chunk = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard chunk <= splits.count else { break }
                Self.appendEntries(of: wantedDefinitions, groups: wantedGroups, in: documents, from: chunk == 0 ? nil : splits[chunk - 1],
                                   below: chunk == splits.count ? nil : splits[chunk], hints: &hints, scratch: &scratch, to: &mine)
            }
            // Entry keys are unique (each ends with its document's name): sort, then build.
            for i in mine.indices { mine[i].sort { $0.key < $1.key } }
            runs.withLock { $0[thread] = mine }
        }
        // Taken out of the lock's array, so each run's only reference is ours.
        var sorted = runs.withLock { runs in defer { runs = [] }; return runs }
        var perDefinition: [[[Element]]] = wanted.indices.map { i in
            (0..<threads).map { t in
                defer { sorted[t][i] = [] }
                return sorted[t][i]
            }
        }
        sorted = []
        // Merging and building each definition's tree, on both threads when there are several.
        var built = [Entries?](repeating: nil, count: wanted.count)
        built.withUnsafeMutableBufferPointer { builtBuffer in
            perDefinition.withUnsafeMutableBufferPointer { inputBuffer in
                // Index i of both is touched only by the one thread that takes i; `built` is
                // read after all finish.
                nonisolated(unsafe) let out = builtBuffer, inputs = inputBuffer
                let taken = Atomic<Int>(0)
                DispatchQueue.concurrentPerform(iterations: min(threads, out.count)) { _ in
                    while true {
                        let i = taken.wrappingAdd(1, ordering: .relaxed).oldValue
                        guard i < out.count else { break }
                        var own: [[Element]] = []
                        swap(&own, &inputs[i])
                        let elements = own.count == 1 ? own.removeLast() : Self.merged(own.removeFirst(), own.removeLast())
                        out[i] = Entries(sortedElements: consume elements)
                    }
                }
            }
        }
        perDefinition = []
        for (i, d) in wanted.enumerated() {
            byGroup[d.collectionGroup, default: []].append(materialized.count)
            materialized.append((d, built[i]!))
        }
    }

    /// Appends, to `runs[i]`, the entries of `definitions[i]` for the documents of its group
    /// from `lower` (included) to `upper` (excluded) in `documents`, unsorted; a nil bound is
    /// the map's end. `groups` lists the positions of each collection group's definitions.
    private static func appendEntries(of definitions: [IndexDefinition], groups: [(id: String, positions: [Int])],
                                      in documents: PersistentSortedMap<DocumentKey, DocumentVersion>,
                                      from lower: DocumentKey?, below upper: DocumentKey?,
                                      hints: inout [[Int]], scratch: inout [UInt8], to runs: inout [[Element]]) {
        var it = documents.elements(from: lower, inclusive: true, descending: false)
        // Read in place: no copy of each key and version out of the tree.
        while it.withNext({ key, version -> Bool in
            if let upper, !(key < upper) { return false }
            // The group first: reading a document of another group would touch it for nothing.
            let collection = key.path.segments[key.path.count - 2]
            guard let group = groups.firstIndex(where: { utf8Equal(collection, $0.id) }), let doc = version.document else { return true }
            for position in groups[group].positions {
                // Where each indexed field was in the previous document (most share one shape).
                forEachEntryKey(of: doc, key: key, in: definitions[position], hints: &hints[position], scratch: &scratch) {
                    runs[position].append(($0, doc))
                }
            }
            return true
        }) == true {}
    }

    /// Two sorted runs of distinct keys as one, each element moved (not copied) into place,
    /// the larger of the two runs' last elements first.
    private static func merged(_ a: consuming [Element], _ b: consuming [Element]) -> [Element] {
        var a = a, b = b
        let n = a.count + b.count
        return [Element](unsafeUninitializedCapacity: n) { out, initialized in
            for k in stride(from: n - 1, through: 0, by: -1) {
                let fromA = b.isEmpty || (!a.isEmpty && b[b.count - 1].key < a[a.count - 1].key)
                out.initializeElement(at: k, to: fromA ? a.removeLast() : b.removeLast())
            }
            initialized = n
        }
    }

    /// Keeps every materialised index of the document's collection group in step with one
    /// document change, from `before` to `after` (the new head; nil for a deletion).
    /// `changedPaths`, when known, are the only fields that can differ between the two: an
    /// index on none of them is left alone unexamined.
    mutating func update(_ key: DocumentKey, from before: Document?, to after: Document?, changedPaths: [FieldPath]? = nil) {
        guard !byGroup.isEmpty, let group = byGroup[key.path.segments[key.path.count - 2]] else { return }
        let changedInPlace = before != nil && after != nil
        // One buffer for every key made here, with room for most keys from the start.
        var noHints: [Int] = [], scratch: [UInt8] = []
        scratch.reserveCapacity(64)
        for position in group {
            let definition = materialized[position].definition
            if changedInPlace, let changedPaths,
               !definition.fields.contains(where: { f in changedPaths.contains { $0.overlaps(f.path) } }) {
                continue
            }
            // Most changes leave most indexed fields alone: compare values before encoding.
            if changedInPlace, definition.fields.allSatisfy({ before!.fields.value(at: $0.path) == after!.fields.value(at: $0.path) }) {
                continue
            }
            guard let before else {
                // A new document: its entries go in as they are made.
                guard let after else { continue }
                Self.forEachEntryKey(of: after, key: key, in: definition, hints: &noHints, scratch: &scratch) {
                    materialized[position].entries.updateValue(after, forKey: $0)
                }
                continue
            }
            let old = Self.entryKeys(for: before, key: key, in: definition, scratch: &scratch)
            let new = after.map { Self.entryKeys(for: $0, key: key, in: definition, scratch: &scratch) } ?? []
            if old == new { continue }
            for entry in old where !new.contains(entry) { materialized[position].entries.removeValue(forKey: entry) }
            for entry in new where !old.contains(entry) { materialized[position].entries.updateValue(after!, forKey: entry) }
        }
    }

    /// The entry keys of `document` in `definition` (see `forEachEntryKey`).
    private static func entryKeys(for document: Document, key: DocumentKey, in definition: IndexDefinition,
                                  scratch: inout [UInt8]) -> [IndexKey] {
        var noHints: [Int] = [], keys: [IndexKey] = []
        forEachEntryKey(of: document, key: key, in: definition, hints: &noHints, scratch: &scratch) { keys.append($0) }
        return keys
    }

    /// Calls `body` with each entry key of `document` in `definition`: none when it lacks an
    /// indexed field (or a CONTAINS field is not an array), one per distinct element for a
    /// CONTAINS field. For a pass over many documents, `hints` hold one position per indexed
    /// field to start its lookup at (`MapValue.value(at:hint:)`; empty: none) and `scratch`
    /// is a buffer reused from one document to the next.
    static func forEachEntryKey(of document: Document, key: DocumentKey, in definition: IndexDefinition,
                                hints: inout [Int], scratch: inout [UInt8], _ body: (IndexKey) -> Void) {
        scratch.removeAll(keepingCapacity: true)
        if definition.scope == .collection { key.appendBytes(0..<key.collectionPrefixLength, to: &scratch) }
        // With a CONTAINS field: one key prefix per distinct element, each extended from then on.
        var elements: [[UInt8]]? = nil
        for position in definition.fields.indices {
            let field = definition.fields[position]
            let found = hints.isEmpty ? document.fields.value(at: field.path) : document.fields.value(at: field.path, hint: &hints[position])
            guard let value = found else { return }
            switch field.kind {
            case .ascending, .descending:
                if elements == nil {
                    IndexKeyEncoding.encode(value, descending: field.kind == .descending, into: &scratch)
                } else {
                    for i in elements!.indices { IndexKeyEncoding.encode(value, descending: field.kind == .descending, into: &elements![i]) }
                }
            case .contains:
                guard case .array(let values) = value else { return }
                var distinct: [[UInt8]] = []
                for v in values {
                    var bytes = scratch
                    IndexKeyEncoding.encode(v, into: &bytes)
                    if !distinct.contains(bytes) { distinct.append(bytes) }
                }
                elements = distinct
            case .vector:
                guard case .vector = value else { return }
                IndexKeyEncoding.encode(value, into: &scratch)
            }
        }
        let nameDescending = definition.nameDescending
        guard let elements else {
            appendNameComponent(key, scope: definition.scope, descending: nameDescending, to: &scratch)
            body(IndexKey(scratch))
            return
        }
        for var element in elements {
            appendNameComponent(key, scope: definition.scope, descending: nameDescending, to: &element)
            body(IndexKey(element))
        }
    }

    /// Appends the trailing document-name bytes of an entry. A collection-scope entry already
    /// starts with its collection's path, so its document ID's bytes (in document key order)
    /// are enough; a collection group needs full-path order.
    static func appendNameComponent(_ key: DocumentKey, scope: IndexDefinition.Scope, descending: Bool, to out: inout [UInt8]) {
        let start = out.count
        if scope == .collection {
            key.appendBytes(key.collectionPrefixLength..<key.encodedLength, to: &out)
        } else {
            IndexKeyEncoding.encodePath(key.path, into: &out)
        }
        if descending { IndexKeyEncoding.invert(&out, from: start) }
    }
}
