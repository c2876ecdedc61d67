import Foundation
import Synchronization

/// Where the engine's warnings and notices go: a query production would reject for a
/// missing index (`IndexMode.warn`), what opening a data directory dropped, a background
/// compaction that failed. By default they are written to standard error; an embedder routes
/// them elsewhere (a logger, a test's collector) with `HearthLog.setHandler`. One handler per
/// process; setting one takes a lock, logging takes it briefly to read the handler.
public enum HearthLog {
    public enum Level: String, Sendable {
        /// Something the user should fix (a query production would reject).
        case warning
        /// Something that happened that the user may want to know (recovery dropped a torn log tail).
        case notice
    }

    public typealias Handler = @Sendable (Level, String) -> Void

    /// Writes `[hearth] warning: …` or `hearth: …` lines to standard error.
    public static let standardError: Handler = { level, message in
        let line = level == .warning ? "[hearth] warning: \(message)\n" : "hearth: \(message)\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    private static let handler = Mutex<Handler>(standardError)

    /// Sends every later message to `handler` (`HearthLog.standardError` restores the default).
    public static func setHandler(_ handler: @escaping Handler) {
        self.handler.withLock { $0 = handler }
    }

    public static func warning(_ message: String) { log(.warning, message) }
    public static func notice(_ message: String) { log(.notice, message) }

    static func log(_ level: Level, _ message: String) {
        let h = handler.withLock { $0 }
        h(level, message)
    }
}
