import Foundation
import HearthTestSupport
@testable import HearthServer
import XCTest

/// Starting and stopping an `EmbeddedEmulator` many times leaves no thread and no
/// descriptor behind (Linux: /proc/self/task and /proc/self/fd). XCTest rather than
/// swift-testing on purpose: `swift test` runs the XCTest cases in their own pass, one at a
/// time, so no other test's threads and sockets move the counts while this one reads them.
final class EmbeddedEmulatorLeakTests: XCTestCase {
    static func count(_ dir: String) -> Int? { (try? FileManager.default.contentsOfDirectory(atPath: dir))?.count }

    /// Polls until `body` holds (a thread that has finished its work still needs a moment
    /// to leave the kernel's list), up to five seconds.
    static func settles(_ body: () -> Bool) -> Bool {
        for _ in 0..<500 {
            if body() { return true }
            usleep(10_000)
        }
        return body()
    }

    func cycle(_ i: Int) throws {
        let emulator = try EmbeddedEmulator(.init(projects: [.init("leaks", seed: .contents(#"{"a/b": {"i": \#(i)}}"#))]))
        // A connection left open across stop, and a request answered by a worker thread (a
        // list runs on the pool).
        let client = try RawHTTPClient(port: emulator.port)
        let r = client.request("GET", "/v1/projects/leaks/databases/(default)/documents/a")
        XCTAssertEqual(r?.status, 200, r?.text ?? "no answer")
        emulator.stop()
        // The server closed the connection, and nothing listens on the port any more.
        XCTAssertTrue(client.readUntilClosed())
        XCTAssertThrowsError(try RawHTTPClient(port: emulator.port))
    }

    func testStartAndStopManyTimesLeavesNoThreadOrDescriptor() throws {
        guard Self.count("/proc/self/fd") != nil else { throw XCTSkip("no /proc on this system") }
        // A first cycle starts whatever the process keeps for good (Foundation's URL
        // machinery, Dispatch's pool); the counts after it are the baseline.
        try cycle(0)
        var fds = 0, threads = 0
        _ = Self.settles { fds = Self.count("/proc/self/fd")!; threads = Self.count("/proc/self/task")!; return true }
        for i in 1...25 { try cycle(i) }
        XCTAssertTrue(Self.settles { Self.count("/proc/self/fd")! <= fds }, "descriptors: \(Self.count("/proc/self/fd")!) after, \(fds) before")
        XCTAssertTrue(Self.settles { Self.count("/proc/self/task")! <= threads }, "threads: \(Self.count("/proc/self/task")!) after, \(threads) before")
    }
}
