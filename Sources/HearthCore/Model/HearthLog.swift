import Foundation
import HearthLock

/// Where the engine's warnings and notices go: a query production would reject for a
/// missing index (`IndexMode.warn`), what opening a data directory dropped, a background
/// compaction that failed, and the values rules print with `debug()`. By default warnings and
/// notices are written to standard error and `debug()` values to standard output (where the
/// official emulator prints them); an embedder routes
/// them elsewhere (a logger, a test's collector) with `HearthLog.setHandler`. One handler per
/// process; setting one takes a lock, logging takes it briefly to read the handler.
public enum HearthLog {
    public enum Level: String, Sendable {
        /// Something the user should fix (a query production would reject).
        case warning
        /// Something that happened that the user may want to know (recovery dropped a torn log tail).
        case notice
        /// The values of one rules decision's `debug()` calls, each in protobuf text format
        /// followed by an empty line, as the official emulator prints them.
        case rulesDebug
    }

    public typealias Handler = @Sendable (Level, String) -> Void

    /// Writes `[hearth] warning: …` or `hearth: …` lines to standard error, and `debug()`
    /// values as they are to standard output (one write each, so the values of concurrent
    /// requests do not interleave).
    public static let standardStreams: Handler = { level, message in
        switch level {
        case .warning: FileHandle.standardError.write(Data("[hearth] warning: \(message)\n".utf8))
        case .notice: FileHandle.standardError.write(Data("hearth: \(message)\n".utf8))
        case .rulesDebug: FileHandle.standardOutput.write(Data(message.utf8))
        }
    }

    private static let handler = HearthMutex<Handler>(standardStreams)

    /// Sends every later message to `handler` (`HearthLog.standardStreams` restores the default).
    public static func setHandler(_ handler: @escaping Handler) {
        self.handler.withLock { $0 = handler }
    }

    public static func warning(_ message: String) { log(.warning, message) }
    public static func notice(_ message: String) { log(.notice, message) }
    public static func rulesDebug(_ text: String) { log(.rulesDebug, text) }

    static func log(_ level: Level, _ message: String) {
        let h = handler.withLock { $0 }
        h(level, message)
    }
}
