#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts detached POSIX threads with a chosen stack size: one per connection, so a slow or
/// idle client never blocks another, and 1,000 idle keep-alive connections cost little.
public enum ThreadSpawner {
    private final class Box: @unchecked Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Runs `body` on a new detached thread. False when the system refused a thread.
    @discardableResult
    public static func spawn(stackSize: Int = 1 << 20, _ body: @escaping @Sendable () -> Void) -> Bool {
        var attr = pthread_attr_t()
        pthread_attr_init(&attr)
        defer { pthread_attr_destroy(&attr) }
        pthread_attr_setstacksize(&attr, stackSize)
        pthread_attr_setdetachstate(&attr, Int32(PTHREAD_CREATE_DETACHED))
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        #if canImport(Glibc)
        var thread = pthread_t()
        #else
        var thread: pthread_t?
        #endif
        let rc = pthread_create(&thread, &attr, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        if rc != 0 {
            Unmanaged<Box>.fromOpaque(box).release()
            return false
        }
        return true
    }
}
