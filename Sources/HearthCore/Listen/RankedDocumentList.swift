/// A view's documents in view order, with O(log n)-ish search and the position (rank) of
/// any document — what `oldIndex`/`newIndex` need — while staying cheap to snapshot.
///
/// The entries live in chunks of at most `maxChunk`; copying the list copies only the array
/// of chunk references, and a later insert or removal copies only the chunk it touches, so
/// every per-commit snapshot of a 100,000-document view costs a few microseconds instead of
/// a copy of the whole result.
public struct RankedDocumentList: Sendable, RandomAccessCollection {
    private var chunks: [[ViewEntry]] = []
    public private(set) var count = 0

    static let maxChunk = 256

    init() {}

    /// `sorted` must already be in view order.
    init(sorted: [ViewEntry]) {
        let half = Self.maxChunk / 2
        var start = 0
        while start < sorted.count {
            let end = Swift.min(start + half, sorted.count)
            chunks.append(Array(sorted[start..<end]))
            start = end
        }
        count = sorted.count
    }

    // MARK: Collection

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// The document at `position` in view order (O(number of chunks)).
    public subscript(position: Int) -> Document { entry(at: position).document }

    func entry(at position: Int) -> ViewEntry {
        var rest = position
        for chunk in chunks {
            if rest < chunk.count { return chunk[rest] }
            rest -= chunk.count
        }
        preconditionFailure("position \(position) out of range 0..<\(count)")
    }

    /// Iterates chunk by chunk (O(1) per element, unlike repeated subscripting).
    public func makeIterator() -> Iterator { Iterator(chunks: chunks) }

    public struct Iterator: IteratorProtocol {
        let chunks: [[ViewEntry]]
        var chunk = 0, offset = 0

        public mutating func next() -> Document? {
            while chunk < chunks.count {
                if offset < chunks[chunk].count {
                    defer { offset += 1 }
                    return chunks[chunk][offset].document
                }
                chunk += 1
                offset = 0
            }
            return nil
        }
    }

    /// Every entry in view order.
    var entries: [ViewEntry] { chunks.flatMap { $0 } }

    var last: ViewEntry? { chunks.last?.last }

    // MARK: Ordered operations

    /// The chunk an entry belongs in: the first whose last entry sorts at or after it.
    private func chunkIndex(for entry: ViewEntry, _ order: ViewOrder) -> Int {
        var lo = 0, hi = chunks.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if order.compare(chunks[mid][chunks[mid].count - 1], entry) < 0 { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    private static func lowerBound(_ chunk: [ViewEntry], _ entry: ViewEntry, _ order: ViewOrder) -> Int {
        var lo = 0, hi = chunk.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if order.compare(chunk[mid], entry) < 0 { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    private func rank(ofChunk c: Int) -> Int {
        var r = 0
        for i in 0..<c { r += chunks[i].count }
        return r
    }

    /// Inserts `entry` (not already present) and returns its position.
    @discardableResult
    mutating func insert(_ entry: ViewEntry, _ order: ViewOrder) -> Int {
        if chunks.isEmpty {
            chunks = [[entry]]
            count = 1
            return 0
        }
        let c = Swift.min(chunkIndex(for: entry, order), chunks.count - 1)
        let i = Self.lowerBound(chunks[c], entry, order)
        let position = rank(ofChunk: c) + i
        chunks[c].insert(entry, at: i)
        count += 1
        if chunks[c].count > Self.maxChunk {
            let tail = Array(chunks[c][(Self.maxChunk / 2)...])
            chunks[c].removeLast(tail.count)
            chunks.insert(tail, at: c + 1)
        }
        return position
    }

    /// Removes the entry equal to `entry` in view order (the same document, keyed by the
    /// values it was inserted with) and returns its position, or nil when absent.
    @discardableResult
    mutating func remove(_ entry: ViewEntry, _ order: ViewOrder) -> Int? {
        let c = chunkIndex(for: entry, order)
        guard c < chunks.count else { return nil }
        let i = Self.lowerBound(chunks[c], entry, order)
        guard i < chunks[c].count, order.compare(chunks[c][i], entry) == 0 else { return nil }
        let position = rank(ofChunk: c) + i
        chunks[c].remove(at: i)
        count -= 1
        if chunks[c].isEmpty { chunks.remove(at: c) }
        return position
    }

    mutating func removeLast() -> ViewEntry {
        let entry = chunks[chunks.count - 1].removeLast()
        if chunks[chunks.count - 1].isEmpty { chunks.removeLast() }
        count -= 1
        return entry
    }

    /// Chunk-invariant check for tests: every chunk non-empty and no larger than the maximum,
    /// entries strictly increasing, count consistent.
    func invariantViolation(_ order: ViewOrder) -> String? {
        var previous: ViewEntry?
        var n = 0
        for chunk in chunks {
            if chunk.isEmpty || chunk.count > Self.maxChunk { return "chunk of size \(chunk.count)" }
            for e in chunk {
                if let p = previous, order.compare(p, e) >= 0 { return "\(p.path) not before \(e.path)" }
                previous = e
                n += 1
            }
        }
        return n == count ? nil : "count \(count) but \(n) entries"
    }
}
