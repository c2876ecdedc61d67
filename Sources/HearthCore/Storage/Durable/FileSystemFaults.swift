import HearthLock
import Synchronization

/// The seam every file-system call of the data directory, exports and imports passes
/// (`PosixFile`'s methods): tests install a `FileSystemFaultInjector` that sees each call
/// before it is made and can make it fail (ENOSPC, EIO), write only part of its bytes, or —
/// by failing every call from some point on — stand for a process that died there.
///
/// Cost when nothing is installed: one relaxed atomic load and a branch per call, beside a
/// system call that costs microseconds (an fsync, milliseconds). The injector itself sits
/// behind a lock that is only taken while one is installed.
public enum FileSystemFaults {
    /// What a call does.
    public enum Operation: String, Sendable, CaseIterable {
        case open, create, stat, read, write, truncate, sync, lock
        case syncDirectory = "sync directory"
        case rename, exchange, remove
        case makeDirectory = "make directory"
        case list
    }

    /// What the injector makes of a call.
    public enum Fault: Sendable, Equatable {
        /// The call fails with this `errno` and changes nothing.
        case fail(Int32)
        /// A write: only the first `bytes` bytes reach the file, then the rest fails with
        /// ENOSPC (what a filling disk does).
        case shortWrite(Int)
        /// A sync that returns at once without syncing: tests that model what a sync
        /// covers themselves (see the fault tests' recording disk) need not wait for the disk.
        case skipSync
    }

    private static let installed = Atomic<Bool>(false)
    private static let injectors = HearthMutex<[any FileSystemFaultInjector]>([])

    /// Shows every later call to `injector` as well (tests; several may be installed at once,
    /// each acting on its own paths — the first fault any of them returns applies).
    public static func install(_ injector: any FileSystemFaultInjector) {
        injectors.withLock { list in
            list.append(injector)
            installed.store(true, ordering: .releasing)
        }
    }

    /// Removes an injector `install` added.
    public static func remove(_ injector: any FileSystemFaultInjector) {
        injectors.withLock { list in
            list.removeAll { $0 === injector }
            installed.store(!list.isEmpty, ordering: .releasing)
        }
    }

    /// The fault for a call about to be made on `path` (`byteCount`: what a write or read
    /// asks for), or nil to go ahead.
    @inline(__always)
    static func check(_ operation: Operation, _ path: String, _ byteCount: Int = 0) -> Fault? {
        guard installed.load(ordering: .relaxed) else { return nil }
        return consult(operation, path, byteCount)
    }

    @inline(never)
    private static func consult(_ operation: Operation, _ path: String, _ byteCount: Int) -> Fault? {
        for injector in injectors.withLock({ $0 }) {
            if let fault = injector.willCall(operation, path: path, byteCount: byteCount) { return fault }
        }
        return nil
    }
}

/// Decides, call by call, which file-system calls fail (tests; see `FileSystemFaults`).
/// Called on whichever thread makes the call, before it is made.
public protocol FileSystemFaultInjector: AnyObject, Sendable {
    func willCall(_ operation: FileSystemFaults.Operation, path: String, byteCount: Int) -> FileSystemFaults.Fault?
}
