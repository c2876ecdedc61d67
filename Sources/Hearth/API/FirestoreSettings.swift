import Foundation

/// Instance settings. `dispatchQueue` (completion handlers and listeners run there; default:
/// the main queue, like the SDK) and Hearth's own `localWriteEvents` change Hearth's
/// behaviour; the rest are kept for source compatibility.
public final class FirestoreSettings: NSObject, NSCopying, @unchecked Sendable {
    public var host: String = "firestore.googleapis.com"
    public var isSSLEnabled: Bool = true
    public var dispatchQueue: DispatchQueue = .main
    /// How this instance's own writes reach its own listeners (a Hearth setting; the SDK
    /// always compensates latency). Default `.latencyCompensated`, as on a device.
    public var localWriteEvents: LocalWriteEvents = .latencyCompensated
    @available(*, deprecated, message: "Use cacheSettings instead.")
    public var isPersistenceEnabled: Bool {
        get { persistenceEnabled }
        set { persistenceEnabled = newValue }
    }
    @available(*, deprecated, message: "Use cacheSettings instead.")
    public var cacheSizeBytes: Int64 {
        get { cacheBytes }
        set { cacheBytes = newValue }
    }
    public var cacheSettings: any LocalCacheSettings = PersistentCacheSettings()

    private var persistenceEnabled = true
    private var cacheBytes: Int64 = 100 * 1024 * 1024

    public override init() {}

    /// Whether the cache drops every document no listener holds, as the SDK decides in
    /// `FirestoreClient::Initialize`: a memory cache whose collector is not an LRU one of a
    /// finite size (`MemoryEagerGCSetting`, or `MemoryLRUGCSettings` of unlimited size), or
    /// no `cacheSettings` change with the deprecated `isPersistenceEnabled = false` and an
    /// unlimited `cacheSizeBytes` (`LocalCache`).
    var usesEagerGC: Bool {
        if let memory = cacheSettings as? MemoryCacheSettings {
            guard let lru = memory.garbageCollectorSettings as? MemoryLRUGCSettings else { return true }
            return lru.sizeBytes?.int64Value == FirestoreCacheSizeUnlimited
        }
        if cacheSettings is PersistentCacheSettings && !persistenceEnabled { return cacheBytes == FirestoreCacheSizeUnlimited }
        return false
    }

    public func copy(with zone: NSZone? = nil) -> Any {
        let c = FirestoreSettings()
        c.host = host
        c.isSSLEnabled = isSSLEnabled
        c.dispatchQueue = dispatchQueue
        c.localWriteEvents = localWriteEvents
        c.cacheSettings = cacheSettings
        c.persistenceEnabled = persistenceEnabled
        c.cacheBytes = cacheBytes
        return c
    }
}

/// How an instance's own writes reach its own snapshot listeners.
public enum LocalWriteEvents: Sendable {
    /// As the SDK on a device: a write (`setData`, `updateData`, `delete`, `addDocument`, a
    /// batch) is shown to the instance's listeners at once, before it commits, with
    /// `metadata.hasPendingWrites == true` and server timestamps not yet known (read them
    /// with `ServerTimestampBehavior`); when the commit acknowledges it, the listeners get one
    /// more snapshot if the data changed (resolved server timestamps) or, with
    /// `includeMetadataChanges`, for the pending state alone. A rejected write is rolled
    /// back with one more snapshot. Transactions raise no event before they commit.
    case latencyCompensated
    /// The write commits first, and listeners see it once, as a committed change
    /// (`hasPendingWrites` is always false): one snapshot per write.
    case afterCommit
}

/// `cacheSizeBytes` value meaning "no limit".
public let FirestoreCacheSizeUnlimited: Int64 = -1

public protocol LocalCacheSettings {}

public final class PersistentCacheSettings: LocalCacheSettings {
    public let sizeBytes: NSNumber?
    public init() { sizeBytes = nil }
    public init(sizeBytes: NSNumber) { self.sizeBytes = sizeBytes }
}

public protocol MemoryGarbageCollectorSettings {}

public final class MemoryEagerGCSetting: MemoryGarbageCollectorSettings {
    public init() {}
}

public final class MemoryLRUGCSettings: MemoryGarbageCollectorSettings {
    public let sizeBytes: NSNumber?
    public init() { sizeBytes = nil }
    public init(sizeBytes: NSNumber) { self.sizeBytes = sizeBytes }
}

public final class MemoryCacheSettings: LocalCacheSettings {
    public let garbageCollectorSettings: any MemoryGarbageCollectorSettings
    /// An LRU collector of the default size, as the SDK's `MemoryCacheSettings` (its C++
    /// core's default), so documents stay until the cache passes 100 MB.
    public init() { garbageCollectorSettings = MemoryLRUGCSettings() }
    public init(garbageCollectorSettings: any MemoryGarbageCollectorSettings) {
        self.garbageCollectorSettings = garbageCollectorSettings
    }
}
