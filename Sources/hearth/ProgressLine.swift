import Foundation
import HearthServer
#if canImport(Glibc)
import Glibc
#endif

/// Progress of long work (imports, exports) on one terminal line, rewritten at most four
/// times a second; when standard output is not a terminal, only the final summary prints.
final class ProgressLine: EmulatorProgress, @unchecked Sendable {
    // @unchecked: called from the thread doing the work only.
    private let label: String
    private let isTerminal = isatty(STDOUT_FILENO) != 0
    private let started = Date()
    private var lastDraw = Date.distantPast
    private var drawn = false

    init(_ label: String) { self.label = label }

    func update(_ count: Int) {
        guard isTerminal, Date().timeIntervalSince(lastDraw) >= 0.25 else { return }
        lastDraw = Date()
        let seconds = Date().timeIntervalSince(started)
        let rate = seconds > 0 ? Int(Double(count) / seconds) : 0
        print("\r\(label): \(count) documents (\(rate)/s)\u{1B}[K", terminator: "")
        fflush(nil)
        drawn = true
    }

    func finish(_ summary: String) {
        if drawn { print("\r\u{1B}[K", terminator: "") }
        print("hearth: \(summary)")
        fflush(nil)
    }

    func abandon() {
        if drawn { print("") }
    }
}
