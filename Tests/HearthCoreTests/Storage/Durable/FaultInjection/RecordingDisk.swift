import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import HearthCore

/// The kinds of fault the enumeration injects at one file-system call.
enum DiskFault: String, CaseIterable, Sendable {
    case enospcOnWrite = "ENOSPC on write"
    case eioOnWrite = "EIO on write"
    case shortWrite = "short write"
    case enospcOnSync = "ENOSPC on fsync"
    case eioOnSync = "EIO on fsync"
    case eioOnRead = "EIO on read"
    /// The process dies: this call and every later one fail; the files keep what was
    /// written (the kernel's page cache survives a process).
    case crash = "crash"
    /// The machine loses power: as `crash`, and then only what an fsync covered survives.
    case powerLoss = "power loss"

    var isDeath: Bool { self == .crash || self == .powerLoss }

    /// Whether the fault can happen at a call of this kind.
    func applies(to operation: FileSystemFaults.Operation) -> Bool {
        switch self {
        case .enospcOnWrite, .eioOnWrite, .shortWrite: operation == .write
        case .enospcOnSync, .eioOnSync: operation == .sync || operation == .syncDirectory
        case .eioOnRead: operation == .read
        case .crash, .powerLoss: true
        }
    }
}

/// A disk under `root` that counts file-system calls, fails the one at `faultAt` with
/// `fault`, and records what each fsync made durable so that `losePower()` can rebuild the
/// tree as a power loss would leave it.
///
/// The durability model (POSIX's, stricter than ext4's usual behaviour): a file's data
/// survives as of its last successful fsync (never synced: empty); a directory's entries —
/// names created, renamed, removed — survive as of its last successful fsync. Everything
/// under `root` when the disk is installed counts as durable. Files are told apart by inode;
/// a removed file's inode is retired, so a new file that reuses it is a new file.
///
/// Syncs are not made (`skipSync`): the model decides what they cover, and the enumeration
/// runs hundreds of points in seconds.
final class RecordingDisk: FileSystemFaultInjector, @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`.
    let root: String
    private let lock = NSLock()
    private var armed = false
    private var faultAt: Int?
    private var fault: DiskFault?
    private var counted: [(FileSystemFaults.Operation, String)] = []
    private var dead = false
    private var injectedAt: (FileSystemFaults.Operation, String)?

    private var nextNode = 0
    private var nodeOfInode: [UInt64: Int] = [:]
    private var directories: Set<Int> = []
    private var durableEntries: [Int: [String: Int]] = [:]
    private var durableData: [Int: [UInt8]] = [:]
    private var rootNode = 0

    init(root: String, faultAt: Int? = nil, fault: DiskFault? = nil) {
        self.root = root.hasSuffix("/") ? String(root.dropLast()) : root
        self.faultAt = faultAt
        self.fault = fault
        rootNode = recordTree(self.root)
    }

    /// Counting (and faults) begin: calls before are made and recorded, not counted.
    func arm() { lock.withLock { armed = true } }
    func disarm() { lock.withLock { armed = false } }

    /// The calls counted so far.
    var calls: [(FileSystemFaults.Operation, String)] { lock.withLock { counted } }
    /// Where the fault was injected, if it was (a fault that does not apply to the call at
    /// `faultAt` is not injected).
    var injected: (FileSystemFaults.Operation, String)? { lock.withLock { injectedAt } }
    var hasDied: Bool { lock.withLock { dead } }

    func willCall(_ operation: FileSystemFaults.Operation, path: String, byteCount: Int) -> FileSystemFaults.Fault? {
        guard path == root || path.hasPrefix(root + "/") else { return nil }
        lock.lock()
        defer { lock.unlock() }
        if dead { return .fail(EIO) }
        if armed {
            let index = counted.count
            counted.append((operation, path))
            if index == faultAt, let fault, fault.applies(to: operation) {
                injectedAt = (operation, path)
                switch fault {
                case .crash, .powerLoss:
                    dead = true
                    return .fail(EIO)
                case .enospcOnWrite, .enospcOnSync: return .fail(ENOSPC)
                case .eioOnWrite, .eioOnSync, .eioOnRead: return .fail(EIO)
                case .shortWrite: return .shortWrite(byteCount / 2)
                }
            }
        }
        switch operation {
        case .sync:
            let node = self.node(path, isDirectory: false)
            durableData[node] = (try? Array(Data(contentsOf: URL(fileURLWithPath: path)))) ?? []
            return .skipSync
        case .syncDirectory:
            let node = self.node(path, isDirectory: true)
            var entries: [String: Int] = [:]
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                let child = path + "/" + name
                entries[name] = self.node(child, isDirectory: isDirectoryPath(child))
            }
            durableEntries[node] = entries
            return .skipSync
        case .remove:
            retire(path)
        case .rename:
            // `rename` over an existing file ends that file.
            if FileManager.default.fileExists(atPath: path), !isDirectoryPath(path) { retire(path) }
        default:
            break
        }
        return nil
    }

    /// Rebuilds everything under `root` as a power loss at this moment would leave it.
    func losePower() {
        lock.lock()
        defer { lock.unlock() }
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: root)) ?? [] { try? fm.removeItem(atPath: root + "/" + name) }
        func build(_ node: Int, at path: String) {
            for (name, child) in durableEntries[node] ?? [:] {
                let childPath = path + "/" + name
                if directories.contains(child) {
                    try? fm.createDirectory(atPath: childPath, withIntermediateDirectories: false)
                    build(child, at: childPath)
                } else {
                    _ = fm.createFile(atPath: childPath, contents: Data(durableData[child] ?? []))
                }
            }
        }
        build(rootNode, at: root)
    }

    // MARK: Inodes and nodes

    private func isDirectoryPath(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    private func inode(_ path: String) -> UInt64? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return UInt64(st.st_ino)
    }

    private func node(_ path: String, isDirectory: Bool) -> Int {
        guard let ino = inode(path) else { nextNode += 1; return nextNode }
        if let n = nodeOfInode[ino] { return n }
        nextNode += 1
        nodeOfInode[ino] = nextNode
        if isDirectory { directories.insert(nextNode) }
        return nextNode
    }

    private func retire(_ path: String) {
        if isDirectoryPath(path) {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] { retire(path + "/" + name) }
        }
        if let ino = inode(path) { nodeOfInode.removeValue(forKey: ino) }
    }

    /// Records the tree under `path` as durable; returns its node.
    private func recordTree(_ path: String) -> Int {
        let isDirectory = isDirectoryPath(path)
        let n = node(path, isDirectory: isDirectory)
        if isDirectory {
            var entries: [String: Int] = [:]
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] { entries[name] = recordTree(path + "/" + name) }
            durableEntries[n] = entries
        } else {
            durableData[n] = (try? Array(Data(contentsOf: URL(fileURLWithPath: path)))) ?? []
        }
        return n
    }
}
