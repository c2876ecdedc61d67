import HearthLock
import Synchronization

/// A stored document: its path, fields and the commit times that created and last changed it.
///
/// A value backed by one shared object, so copying a document — out of the store into a
/// query result or a snapshot — retains one reference instead of one per part (each a cache
/// miss when a query touches many documents); changing a copy copies its parts first.
public struct Document: Sendable, Hashable {
    private var storage: Storage

    public init(path: ResourcePath, fields: MapValue, createTime: Timestamp, updateTime: Timestamp) {
        storage = Storage(path: path, fields: fields, createTime: createTime, updateTime: updateTime)
    }

    public var path: ResourcePath {
        get { storage.path }
        _modify { makeUnique(); yield &storage.path }
    }

    /// Changing the fields detaches the document from the front-end cache of the copy it
    /// came from.
    public var fields: MapValue {
        get { storage.fields }
        _modify {
            if makeUnique(copyingFields: true) { storage.clearFrontEndCache() }  // a fresh copy has none
            yield &storage.fields
        }
    }

    public var createTime: Timestamp {
        get { storage.createTime }
        _modify { makeUnique(); yield &storage.createTime }
    }

    public var updateTime: Timestamp {
        get { storage.updateTime }
        _modify { makeUnique(); yield &storage.updateTime }
    }

    public var id: String { path.lastSegment }

    public func value(at field: FieldPath) -> Value? { fields.value(at: field) }

    public static func == (a: Document, b: Document) -> Bool {
        a.storage === b.storage
            || (a.path == b.path && a.fields == b.fields && a.createTime == b.createTime && a.updateTime == b.updateTime)
    }

    /// Whether both are the same stored version (one object, so the same path, fields and
    /// times): a pointer compare, where `==` of two different objects compares their fields.
    public func isIdentical(to other: Document) -> Bool { storage === other.storage }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(path)
        hasher.combine(fields)
        hasher.combine(updateTime)
    }

    /// Copies the parts unless no one else holds them; returns whether they were already
    /// this value's own. `copyingFields`: the fields are about to change, so their entries
    /// are copied now (`MapValue.copy()`) rather than by copy-on-write at the change.
    @discardableResult
    private mutating func makeUnique(copyingFields: Bool = false) -> Bool {
        if isKnownUniquelyReferenced(&storage) { return true }
        storage = Storage(path: storage.path, fields: copyingFields ? storage.fields.copy() : storage.fields,
                          createTime: storage.createTime, updateTime: storage.updateTime)
        return false
    }

    // MARK: A front end's cache

    /// A slot where a front end keeps what it derived from these fields for `owner`, so
    /// reading an unchanged stored document again does not convert it again. The engine
    /// never reads it. The Swift API keeps a `Firestore` instance's bridged `[String: Any]`
    /// here (what `data()` returns: reading a document again is then a lock and a pointer).
    /// One entry per document: another owner's `setFrontEndCache` replaces it. Dropped when
    /// the fields change or a commit replaces the document. Not generic on purpose: a
    /// generic function across modules runs unspecialised, and its cast made every cached
    /// read measurably slower (c_eq_warm); the caller casts to its own final class.
    public func frontEndCache(for owner: AnyObject) -> (any AnyObject & Sendable)? {
        let id = ObjectIdentifier(owner)
        return storage.frontEndCache.withLock { (entry: inout FrontEndCacheEntry?) -> (any AnyObject & Sendable)? in
            guard let found = entry, found.owner == id else { return nil }
            return found.cache
        }
    }

    /// Keeps `cache` as `owner`'s (see `frontEndCache(for:)`); copies of this document share it.
    public func setFrontEndCache(_ cache: AnyObject & Sendable, for owner: AnyObject) {
        let entry = FrontEndCacheEntry(owner: ObjectIdentifier(owner), cache: cache)
        storage.frontEndCache.withLock { $0 = entry }
    }

    // MARK: Replacement

    /// Whether a commit has replaced this stored document as its path's head (by a newer
    /// version or a deletion) in some database state. Index entries hold the document they
    /// were made from: while this is false, it is still the head in every state holding the
    /// entry (forks and restored snapshots included: a replacement in any of them sets it),
    /// so an index scan returns it without looking the path up. Shared by the copies of
    /// this value; changing a copy that others still hold makes a new, unreplaced document
    /// (a change made in place, to a copy no one else holds, keeps the flag: at worst a scan
    /// looks the path up).
    var isReplaced: Bool { storage.replaced.load(ordering: .acquiring) }

    /// Called by the commit that replaces this document as its path's head. Its front-end
    /// cache goes too: reads of a replaced version are rare, and it may be retained for an hour.
    func markReplaced() {
        storage.clearFrontEndCache()
        storage.replaced.store(true, ordering: .releasing)
    }

    private struct FrontEndCacheEntry: Sendable {
        let owner: ObjectIdentifier
        let cache: any AnyObject & Sendable
    }

    /// The shared parts. Mutated only through a uniquely referenced `Document` (copy on
    /// write), so no two threads see a change and no two accesses overlap: the parts skip
    /// the runtime's exclusivity bookkeeping (a call on every read of a class property
    /// otherwise). The front-end cache has its own lock.
    private final class Storage: @unchecked Sendable {
        // Beside the reference count: an index scan reads `replaced`, `data()` the cache.
        let replaced = Atomic<Bool>(false)
        let frontEndCache = HearthMutex<FrontEndCacheEntry?>(nil)
        @exclusivity(unchecked) var path: ResourcePath
        @exclusivity(unchecked) var fields: MapValue
        @exclusivity(unchecked) var createTime: Timestamp
        @exclusivity(unchecked) var updateTime: Timestamp

        init(path: ResourcePath, fields: MapValue, createTime: Timestamp, updateTime: Timestamp) {
            self.path = path
            self.fields = fields
            self.createTime = createTime
            self.updateTime = updateTime
        }

        func clearFrontEndCache() { frontEndCache.withLock { $0 = nil } }
    }
}
