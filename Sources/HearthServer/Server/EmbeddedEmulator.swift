import Foundation
import HearthCore
import HearthTransport
import HearthLock

/// The emulator inside a test process (docs/ios-app-tests.md): starts in milliseconds on a
/// free loopback port, serves REST, gRPC and WebChannel there exactly as `hearth serve`
/// does, and gives tests O(1) `reset`, `snapshot` and `restore` between cases.
///
///     let emulator = try EmbeddedEmulator(.init(projects: [.init("demo-app", rules: .file("firestore.rules"))]))
///     settings.host = emulator.address; settings.isSSLEnabled = false
///     …
///     emulator.reset()    // between tests: the start-up data again
///     emulator.stop()     // once: threads ended, port and descriptors released
///
/// It wraps an `EmulatorServer` (`server`) over one `EmulatorState` (`state`); everything
/// those offer stays available. Not the console, nor `--export-on-exit`: a test process has
/// no use for either.
public final class EmbeddedEmulator: Sendable {
    public let server: EmulatorServer
    /// The first configured project: the one a test usually names.
    public let projectID: String
    /// The emulator every way of starting one goes through, built from the options'
    /// `configuration`.
    private let instance: EmulatorInstance
    /// The data right after start-up (seeds and import applied): what `reset()` goes back to.
    private let initial: Snapshot
    private let stopped = HearthMutex(false)

    /// Every database's contents at one moment. Taking one copies no documents (the
    /// engine's states are persistent maps), so it costs the same for 10 or 10⁶ documents.
    public struct Snapshot: Sendable {
        let databases: [DatabaseID: DatabaseSnapshot]
    }

    /// Sets up the projects, loads the seeds and the import, then listens. Throws, naming
    /// the file and what is wrong, when a file cannot be read or does not parse or compile,
    /// the data directory cannot be opened, or the address cannot be bound.
    public init(_ options: EmbeddedEmulatorOptions = EmbeddedEmulatorOptions()) throws(EmbeddedEmulatorError) {
        guard let first = options.projects.first else { throw EmbeddedEmulatorError("no project configured") }
        let instance: EmulatorInstance
        do { instance = try EmulatorInstance(options.configuration) } catch { throw EmbeddedEmulatorError(error.message) }
        do { server = try instance.start() } catch {
            instance.close()
            throw EmbeddedEmulatorError(error.message)
        }
        self.instance = instance
        projectID = first.id
        initial = Self.capture(server.state)
    }

    /// The emulator's state: databases, rules, clock, request log.
    public var state: EmulatorState { server.state }
    /// The bound address.
    public var host: String { server.host }
    /// The bound port (the free one picked when the options said 0).
    public var port: Int { server.port }
    /// `host:port` — what the SDK's `settings.host` and `FIRESTORE_EMULATOR_HOST` take.
    public var address: String { server.address }

    /// Captures every database (O(number of databases)).
    public func snapshot() -> Snapshot { Self.capture(state) }

    /// Puts every database back as `snapshot` had it; a database created since is emptied.
    /// In memory each database's restore is O(1) (listeners receive the differences; a data
    /// directory logs them). Open connections and streams stay open.
    public func restore(_ snapshot: Snapshot) {
        for db in state.registry.all {
            if let saved = snapshot.databases[db.id] {
                db.restore(saved)
            } else {
                // Clearing a whole database is a restore of an empty state: it cannot fail.
                try? state.clear(db.id)
            }
        }
    }

    /// The data as it was right after start-up (seeds and import), in O(1) per database.
    /// Rules, indexes and the clock are left as they are.
    public func reset() { restore(initial) }

    /// Stops serving and waits (up to 5 s; a handler still running holds its worker) until
    /// the server's threads have ended and its descriptors are closed, then closes the data
    /// directory. Idempotent.
    public func stop() {
        guard stopped.withLock({ s in defer { s = true }; return !s }) else { return }
        instance.stop()
        server.waitUntilStopped()
        instance.close()
    }

    deinit { stop() }

    private static func capture(_ state: EmulatorState) -> Snapshot {
        Snapshot(databases: Dictionary(state.registry.all.map { ($0.id, $0.snapshot()) }, uniquingKeysWith: { a, _ in a }))
    }
}

/// Why an `EmbeddedEmulator` did not start: the message names the file or address.
public struct EmbeddedEmulatorError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
