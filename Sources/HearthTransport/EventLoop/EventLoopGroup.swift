import Synchronization

/// A fixed set of event loops; connections are spread over them in turn.
public final class EventLoopGroup: Sendable {
    public let loops: [EventLoop]
    private let nextIndex = Atomic<Int>(0)

    /// One loop per core by default.
    public static var defaultLoopCount: Int { max(1, ProcessorCount.online) }

    /// Starts `count` loops (each its own thread).
    public init(count: Int = EventLoopGroup.defaultLoopCount, name: String = "hearth-loop") throws {
        var loops: [EventLoop] = []
        do {
            for i in 0..<max(1, count) { loops.append(try EventLoop(name: "\(name)-\(i)")) }
        } catch {
            for l in loops { l.stop() }
            throw error
        }
        self.loops = loops
    }

    /// The loop the next connection goes to.
    public func next() -> EventLoop {
        loops[nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue % loops.count]
    }

    /// Stops every loop after what it has queued.
    public func stop() {
        for l in loops { l.stop() }
    }
}
