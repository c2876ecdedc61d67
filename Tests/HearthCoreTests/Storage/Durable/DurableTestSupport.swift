import Foundation
import Testing
@testable import HearthCore

/// A scratch data directory and helpers to open it and to compare databases exactly.
struct DataDirectory {
    let path: String

    init() throws {
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent("hearth-data-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    var files: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

    var segments: [String] { files.filter { $0.hasPrefix("wal-") } }

    /// Opens the directory; notices are collected into `notices`.
    func open(compactionThreshold: Int = 64 << 20, truncateDamagedLog: Bool = false, notices: NoticeLog? = nil) throws -> DurableStore {
        let log = notices ?? NoticeLog()
        return try DurableStore.open(directory: path, options: .init(compactionThreshold: compactionThreshold, truncateDamagedLog: truncateDamagedLog,
                                                                      notice: { log.add($0) }))
    }

    func bytes(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: file(name)))) }

    func write(_ name: String, _ bytes: [UInt8]) throws { try Data(bytes).write(to: URL(fileURLWithPath: file(name))) }
}

final class NoticeLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

/// Every document of a database with its times, for exact comparison.
func durableContents(_ db: Database) -> [String: String] {
    var out: [String: String] = [:]
    for d in db.state().allDocuments() {
        out[d.path.description] = "\(d.fields) created \(d.createTime.rfc3339) updated \(d.updateTime.rfc3339)"
    }
    return out
}

/// The error opening a directory throws, or nil if it opens.
func openFailure(_ dir: DataDirectory) -> String? {
    do {
        let store = try dir.open()
        store.close()
        return nil
    } catch {
        return "\(error)"
    }
}
