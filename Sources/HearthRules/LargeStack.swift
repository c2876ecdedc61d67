#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// Runs work that recurses once per level of a rules expression on a thread whose stack
/// is big enough for the deepest expression production accepts, whatever thread asked.
///
/// Production accepts 98 levels of nesting per expression and 20 nested function calls,
/// and a debug build spends up to 25 KB of stack per level in the parser and about 10 KB in
/// the evaluator, so the worst program needs far more than a server's 512 KB–1 MB threads
/// have. Compiling always runs here (a thread start, ~50 µs, next to milliseconds of
/// parsing); a request is evaluated here only when its program is deep
/// (`RulesProgram.evaluationLevels`), so ordinary rules pay nothing. The stack is virtual
/// memory: only the pages a deep program touches are ever committed.
enum LargeStack {
    static let size = 64 << 20

    /// Handed to the new thread; it drops `body` before signalling, so the closure never
    /// outlives `run` (which `withoutActuallyEscaping` checks).
    private final class Job: @unchecked Sendable {
        var body: (() -> Void)?
        let done = DispatchSemaphore(value: 0)
        init(_ body: @escaping () -> Void) { self.body = body }

        func perform() {
            body?()
            body = nil
            done.signal()
        }
    }

    /// `body`'s result, computed on a thread with a `size` stack (or on this thread when no
    /// thread can be started: a shallow program still works there).
    static func run<T>(_ body: () -> T) -> T {
        withoutActuallyEscaping(body) { body in
            var result: T?
            let job = Job { result = body() }
            let unmanaged = Unmanaged.passRetained(job)
            var attr = pthread_attr_t()
            pthread_attr_init(&attr)
            defer { pthread_attr_destroy(&attr) }
            pthread_attr_setstacksize(&attr, size)
            pthread_attr_setdetachstate(&attr, Int32(PTHREAD_CREATE_DETACHED))
            #if canImport(Glibc)
            var thread = pthread_t()
            #else
            var thread: pthread_t?
            #endif
            let rc = pthread_create(&thread, &attr, { raw in
                Unmanaged<Job>.fromOpaque(raw!).takeUnretainedValue().perform()
                return nil
            }, unmanaged.toOpaque())
            if rc != 0 {
                unmanaged.release()
                return body()
            }
            job.done.wait()
            unmanaged.release()
            return result!
        }
    }
}
