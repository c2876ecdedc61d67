import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An open file descriptor with the few calls durable storage and exports need, each
/// retried on EINTR and failing with the file's path and the system's reason; and the
/// directory calls (list, make, remove, rename) they need. Every one passes the fault seam
/// (`FileSystemFaults`) first, so tests can fail any of them.
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
        if case .fail(let code)? = FileSystemFaults.check(flags & O_TRUNC != 0 ? .create : .open, path) {
            throw Failure(path: path, operation: operation, code: code)
        }
        return try openUnchecked(path, flags: flags, operation: operation)
    }

    private static func openUnchecked(_ path: String, flags: Int32, operation: String) throws(Failure) -> PosixFile {
        var fd: Int32
        repeat { fd = systemOpen(path, flags | O_CLOEXEC, 0o644) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw Failure(path: path, operation: operation, code: errno) }
        return PosixFile(path: path, fd: fd)
    }

    /// The file's size in bytes.
    public func size() throws(Failure) -> Int {
        if case .fail(let code)? = FileSystemFaults.check(.stat, path) { throw Failure(path: path, operation: "stat", code: code) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Failure(path: path, operation: "stat", code: errno) }
        return Int(st.st_size)
    }

    /// Reads up to `buffer.count` bytes at `offset`; returns how many were read (fewer only
    /// at the end of the file).
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(Failure) -> Int {
        if case .fail(let code)? = FileSystemFaults.check(.read, path, buffer.count) { throw Failure(path: path, operation: "read", code: code) }
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
        var limit = bytes.count
        switch FileSystemFaults.check(.write, path, bytes.count) {
        case .fail(let code)?: throw Failure(path: path, operation: "write", code: code)
        case .shortWrite(let n)?: limit = min(n, bytes.count)
        case nil, .skipSync?: break
        }
        var done = 0
        while done < limit {
            let n = systemWrite(fd, bytes.baseAddress! + done, limit - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(path: path, operation: "write", code: errno)
            }
            done += n
        }
        // An injected short write: the rest of the bytes did not fit.
        if limit < bytes.count { throw Failure(path: path, operation: "write", code: ENOSPC) }
    }

    public func write(_ bytes: [UInt8]) throws(Failure) {
        try bytes.withUnsafeBytes { b in Result { () throws(Failure) in try write(b) } }.get()
    }

    /// Cuts the file to `length` bytes.
    public func truncate(to length: Int) throws(Failure) {
        if case .fail(let code)? = FileSystemFaults.check(.truncate, path) { throw Failure(path: path, operation: "truncate", code: code) }
        guard ftruncate(fd, off_t(length)) == 0 else { throw Failure(path: path, operation: "truncate", code: errno) }
    }

    /// Forces written data to stable storage. On Linux `fdatasync` (the size change that an
    /// append makes is data too); on Darwin `F_FULLFSYNC`, since plain `fsync` there leaves
    /// the data in the drive's cache.
    public func sync() throws(Failure) {
        switch FileSystemFaults.check(.sync, path) {
        case .fail(let code)?: throw Failure(path: path, operation: "sync", code: code)
        case .skipSync?: return
        default: break
        }
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
        if case .fail(let code)? = FileSystemFaults.check(.lock, path) { throw Failure(path: path, operation: "lock", code: code) }
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
        switch FileSystemFaults.check(.syncDirectory, directory) {
        case .fail(let code)?: throw Failure(path: directory, operation: "sync directory", code: code)
        case .skipSync?: return
        default: break
        }
        let dir = try openUnchecked(directory, flags: O_RDONLY, operation: "open directory")
        defer { dir.close() }
        guard fsync(dir.fd) == 0 else { throw Failure(path: directory, operation: "sync directory", code: errno) }
    }
}

extension PosixFile {
    /// Swaps two paths atomically (both must exist): a crash leaves each name on one of the
    /// two whole trees. Linux `renameat2(RENAME_EXCHANGE)` (looked up at run time: the C
    /// library's Swift overlay does not declare it), Darwin `renamex_np(RENAME_SWAP)`.
    public static func exchange(_ a: String, _ b: String) throws(Failure) {
        if case .fail(let code)? = FileSystemFaults.check(.exchange, b) { throw Failure(path: b, operation: "swap \(a) with", code: code) }
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
        if case .fail(let code)? = FileSystemFaults.check(.rename, to) { throw Failure(path: to, operation: "rename \(from) to", code: code) }
        guard systemRename(from, to) == 0 else { throw Failure(path: to, operation: "rename \(from) to", code: errno) }
    }
}

extension PosixFile {
    /// What is at a path: nothing, a directory or something else (a file).
    public enum Kind: Sendable { case missing, directory, file }

    /// What `path` is (following symbolic links, as `open` does).
    public static func kind(_ path: String) throws(Failure) -> Kind {
        if case .fail(let code)? = FileSystemFaults.check(.stat, path) { throw Failure(path: path, operation: "stat", code: code) }
        var st = stat()
        guard stat(path, &st) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return .missing }
            throw Failure(path: path, operation: "stat", code: errno)
        }
        return st.st_mode & S_IFMT == S_IFDIR ? .directory : .file
    }

    /// The names in a directory (not `.` and `..`), in no particular order.
    public static func list(_ directory: String) throws(Failure) -> [String] {
        if case .fail(let code)? = FileSystemFaults.check(.list, directory) { throw Failure(path: directory, operation: "list", code: code) }
        guard let dir = opendir(directory) else { throw Failure(path: directory, operation: "list", code: errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Makes a directory, and with `intermediate` its missing parents; an existing
    /// directory is fine. With `syncingParents`, each directory made is synced into its
    /// parent (a new directory's entry is the parent's data).
    public static func makeDirectory(_ path: String, intermediate: Bool = false, syncingParents: Bool = false) throws(Failure) {
        let parent = (path as NSString).deletingLastPathComponent
        if intermediate, !parent.isEmpty, parent != path, try kind(parent) == .missing {
            try makeDirectory(parent, intermediate: true, syncingParents: syncingParents)
        }
        if case .fail(let code)? = FileSystemFaults.check(.makeDirectory, path) { throw Failure(path: path, operation: "create directory", code: code) }
        if mkdir(path, 0o755) == 0 {
            if syncingParents { try syncDirectory(parent.isEmpty ? "." : parent) }
            return
        }
        let code = errno
        if code == EEXIST, try kind(path) == .directory { return }
        throw Failure(path: path, operation: "create directory", code: code)
    }

    /// Removes a file, or a directory with everything in it; a missing path is fine.
    public static func remove(_ path: String) throws(Failure) {
        if case .fail(let code)? = FileSystemFaults.check(.remove, path) { throw Failure(path: path, operation: "remove", code: code) }
        var st = stat()
        guard lstat(path, &st) == 0 else {
            if errno == ENOENT { return }
            throw Failure(path: path, operation: "remove", code: errno)
        }
        if st.st_mode & S_IFMT == S_IFDIR {
            for name in try list(path) { try remove((path as NSString).appendingPathComponent(name)) }
            guard rmdir(path) == 0 || errno == ENOENT else { throw Failure(path: path, operation: "remove", code: errno) }
        } else {
            guard unlink(path) == 0 || errno == ENOENT else { throw Failure(path: path, operation: "remove", code: errno) }
        }
    }

    /// A whole (small) file: metadata files, Hearth JSON.
    public static func contents(_ path: String) throws(Failure) -> [UInt8] {
        let file = try openForReading(path)
        defer { file.close() }
        let size = try file.size()
        var bytes = [UInt8](repeating: 0, count: size)
        let n = try bytes.withUnsafeMutableBytes { b in Result { () throws(Failure) in try file.read(into: b, at: 0) } }.get()
        bytes.removeSubrange(n...)
        return bytes
    }
}

// The module's `open`/`close`/`write` are shadowed by the methods above inside the class.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
private func systemRename(_ from: String, _ to: String) -> Int32 { rename(from, to) }
private func systemWrite(_ fd: Int32, _ buf: UnsafeRawPointer, _ count: Int) -> Int { write(fd, buf, count) }
