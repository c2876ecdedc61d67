import Foundation

/// Instance settings. Only `dispatchQueue` changes Hearth's behaviour (completion handlers
/// and listeners run there; default: the main queue, like the SDK). The rest are kept for
/// source compatibility.
public final class FirestoreSettings: NSObject, NSCopying, @unchecked Sendable {
    public var host: String = "firestore.googleapis.com"
    public var isSSLEnabled: Bool = true
    public var dispatchQueue: DispatchQueue = .main
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

    public func copy(with zone: NSZone? = nil) -> Any {
        let c = FirestoreSettings()
        c.host = host
        c.isSSLEnabled = isSSLEnabled
        c.dispatchQueue = dispatchQueue
        c.cacheSettings = cacheSettings
        c.persistenceEnabled = persistenceEnabled
        c.cacheBytes = cacheBytes
        return c
    }
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
    public init() { garbageCollectorSettings = MemoryEagerGCSetting() }
    public init(garbageCollectorSettings: any MemoryGarbageCollectorSettings) {
        self.garbageCollectorSettings = garbageCollectorSettings
    }
}
