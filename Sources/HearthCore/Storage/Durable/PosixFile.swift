import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An open file descriptor with the few calls durable storage and exports need, each
/// retried on EINTR and failing with the file's path and the system's reason.
public final class PosixFile: @unchecked Sendable {
    // @unchecked: `fd` is set once; the calls are thread-safe system calls, and callers
    // serialise writes to one file themselves.
    public let path: String
    private(set) var fd: Int32

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let path: String
        public let operation: String
        public let code: Int32
        public var description: String { "cannot \(operation) \(path): \(String(cString: strerror(code)))" }
    }

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    deinit { if fd >= 0 { _ = systemClose(fd) } }

    /// Opens an existing file for reading.
    public static func openForReading(_ path: String) throws(Failure) -> PosixFile {
        try open(path, flags: O_RDONLY, operation: "open")
    }

    /// Creates (or truncates) a file for writing.
    public static func create(_ path: String) throws(Failure) -> PosixFile {
        try open(path, flags: O_WRONLY | O_CREAT | O_TRUNC, operation: "create")
    }

    /// Opens a file for reading and writing, creating it if needed, without truncating.
    public static func openForUpdate(_ path: String) throws(Failure) -> PosixFile {
        try open(path, flags: O_RDWR | O_CREAT, operation: "open")
    }

    private static func open(_ path: String, flags: Int32, operation: String) throws(Failure) -> PosixFile {
        var fd: Int32
        repeat { fd = systemOpen(path, flags | O_CLOEXEC, 0o644) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw Failure(path: path, operation: operation, code: errno) }
        return PosixFile(path: path, fd: fd)
    }

    /// The file's size in bytes.
    public func size() throws(Failure) -> Int {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Failure(path: path, operation: "stat", code: errno) }
        return Int(st.st_size)
    }

    /// Reads up to `buffer.count` bytes at `offset`; returns how many were read (fewer only
    /// at the end of the file).
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(Failure) -> Int {
        var done = 0
        while done < buffer.count {
            let n = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(path: path, operation: "read", code: errno)
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Writes all of `bytes` at the current position.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        var done = 0
        while done < bytes.count {
            let n = systemWrite(fd, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(path: path, operation: "write", code: errno)
            }
            done += n
        }
    }

    public func write(_ bytes: [UInt8]) throws(Failure) {
        try bytes.withUnsafeBytes { b in Result { () throws(Failure) in try write(b) } }.get()
    }

    /// Cuts the file to `length` bytes.
    public func truncate(to length: Int) throws(Failure) {
        guard ftruncate(fd, off_t(length)) == 0 else { throw Failure(path: path, operation: "truncate", code: errno) }
    }

    /// Forces written data to stable storage. On Linux `fdatasync` (the size change that an
    /// append makes is data too); on Darwin `F_FULLFSYNC`, since plain `fsync` there leaves
    /// the data in the drive's cache.
    public func sync() throws(Failure) {
        #if canImport(Darwin)
        if fcntl(fd, F_FULLFSYNC) == 0 { return }
        guard fsync(fd) == 0 else { throw Failure(path: path, operation: "sync", code: errno) }
        #else
        var r: Int32
        repeat { r = fdatasync(fd) } while r != 0 && errno == EINTR
        guard r == 0 else { throw Failure(path: path, operation: "sync", code: errno) }
        #endif
    }

    /// Takes an exclusive advisory lock without waiting; false when another open file
    /// description (another process, or another open of the same file here) holds it.
    public func tryLock() throws(Failure) -> Bool {
        if flock(fd, LOCK_EX | LOCK_NB) == 0 { return true }
        if errno == EWOULDBLOCK { return false }
        throw Failure(path: path, operation: "lock", code: errno)
    }

    public func close() {
        if fd >= 0 { _ = systemClose(fd) }
        fd = -1
    }

    /// Makes a rename or a new file in `directory` durable (the directory entry itself must
    /// be synced, not only the file).
    public static func syncDirectory(_ directory: String) throws(Failure) {
        let dir = try open(directory, flags: O_RDONLY, operation: "open directory")
        defer { dir.close() }
        guard fsync(dir.fd) == 0 else { throw Failure(path: directory, operation: "sync directory", code: errno) }
    }
}

extension PosixFile {
    /// Swaps two paths atomically (both must exist): a crash leaves each name on one of the
    /// two whole trees. Linux `renameat2(RENAME_EXCHANGE)` (looked up at run time: the C
    /// library's Swift overlay does not declare it), Darwin `renamex_np(RENAME_SWAP)`.
    public static func exchange(_ a: String, _ b: String) throws(Failure) {
        #if canImport(Darwin)
        guard renamex_np(a, b, UInt32(RENAME_SWAP)) == 0 else { throw Failure(path: b, operation: "swap \(a) with", code: errno) }
        #else
        typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "renameat2") else {
            throw Failure(path: b, operation: "swap \(a) with", code: ENOSYS)
        }
        let renameat2 = unsafeBitCast(symbol, to: RenameAt2.self)
        let exchangeFlag: UInt32 = 2  // RENAME_EXCHANGE
        guard renameat2(AT_FDCWD, a, AT_FDCWD, b, exchangeFlag) == 0 else { throw Failure(path: b, operation: "swap \(a) with", code: errno) }
        #endif
    }

    /// `rename(2)`, which replaces `to` if it is a file or an empty directory.
    public static func rename(_ from: String, to: String) throws(Failure) {
        guard systemRename(from, to) == 0 else { throw Failure(path: to, operation: "rename \(from) to", code: errno) }
    }
}

// The module's `open`/`close`/`write` are shadowed by the methods above inside the class.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
private func systemRename(_ from: String, _ to: String) -> Int32 { rename(from, to) }
private func systemWrite(_ fd: Int32, _ buf: UnsafeRawPointer, _ count: Int) -> Int { write(fd, buf, count) }
