/// A map of field names to values, kept sorted by the UTF-8 bytes of the names — the order
/// Firestore stores and compares them in. Names are compared byte-wise, never with Swift's
/// canonical-equivalence `String ==`, so "é" and "e\u{301}" are different fields.
public struct MapValue: Sendable, Hashable, Sequence, CustomStringConvertible {
    public typealias Entry = (key: String, value: Value)
    public private(set) var entries: [Entry]

    public init() { entries = [] }

    /// Builds from unsorted pairs; a later duplicate name replaces an earlier one.
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, Value) {
        var entries: [Entry] = []
        entries.reserveCapacity(pairs.underestimatedCount)
        for (k, v) in pairs { entries.append((k, v)) }
        self.init(unsortedEntries: entries)
    }

    /// Builds from entries in any order; a later duplicate name replaces an earlier one.
    ///
    /// Sorting compares the names' first 16 UTF-8 bytes as two big-endian words taken once
    /// per name (most field names differ within them), and the strings themselves only on a
    /// tie: sorting the entries with `compareUTF8` directly re-reads both strings and moves
    /// (key, value) pairs at every step, and cost more than the rest of parsing a document.
    /// The sort keys live in a temporary (stack) buffer and the entries are then moved into
    /// place without copies.
    public init(unsortedEntries: consuming [Entry]) {
        var entries = unsortedEntries
        let n = entries.count
        guard n > 1 else {
            self.entries = entries
            return
        }
        let hasDuplicates = entries.withUnsafeMutableBufferPointer { buf in
            withUnsafeTemporaryAllocation(of: SortKey.self, capacity: n) { order in
                for i in 0..<n { order.initializeElement(at: i, to: SortKey(buf[i].key, index: i)) }
                func precedes(_ a: SortKey, _ b: SortKey) -> Bool {
                    if a.w0 != b.w0 { return a.w0 < b.w0 }
                    if a.w1 != b.w1 { return a.w1 < b.w1 }
                    let c = compareUTF8(buf[a.index].key, buf[b.index].key)
                    return c != 0 ? c < 0 : a.index < b.index
                }
                if n <= 24 {
                    for i in 1..<n {
                        let x = order[i]
                        var j = i
                        while j > 0 && precedes(x, order[j - 1]) {
                            order[j] = order[j - 1]
                            j -= 1
                        }
                        order[j] = x
                    }
                } else {
                    var sortable = order  // the same memory: sorting through a mutable copy of the pointer
                    sortable.sort(by: precedes)
                }
                // Equal names are adjacent after sorting, in input order.
                var hasDuplicates = false
                for k in 1..<n where order[k].w0 == order[k - 1].w0 && order[k].w1 == order[k - 1].w1
                    && utf8Equal(buf[order[k].index].key, buf[order[k - 1].index].key) {
                    hasDuplicates = true
                    break
                }
                // Permute in place, one cycle at a time: position j receives the entry from
                // order[j].index; -1 marks a placed position. Swaps in the buffer move the
                // pairs without retaining them.
                for i in 0..<n {
                    var j = i
                    while order[j].index >= 0 {
                        let k = order[j].index
                        order[j].index = -1
                        if k == i { break }
                        buf.swapAt(j, k)
                        j = k
                    }
                }
                return hasDuplicates
            }
        }
        if hasDuplicates {
            // The last of equal names wins.
            var unique: [Entry] = []
            unique.reserveCapacity(n)
            for e in entries {
                if let last = unique.last, utf8Equal(last.key, e.key) { unique[unique.count - 1].value = e.value } else { unique.append(e) }
            }
            entries = unique
        }
        self.entries = entries
    }

    /// A name's place in the sort: its first 16 UTF-8 bytes as two big-endian words.
    private struct SortKey {
        let w0: UInt64
        let w1: UInt64
        var index: Int

        @inline(__always)
        init(_ name: String, index: Int) {
            self.index = index
            if let words = name.utf8.withContiguousStorageIfAvailable({ (bigEndianWord($0, at: 0), bigEndianWord($0, at: 8)) }) {
                (w0, w1) = words
            } else {
                var copy = name
                (w0, w1) = copy.withUTF8 { (bigEndianWord($0, at: 0), bigEndianWord($0, at: 8)) }
            }
        }
    }

    /// Builds from pairs already sorted by `compareUTF8` with no duplicates.
    public init(sortedEntries: [Entry]) { entries = sortedEntries }

    /// A copy with entries of its own, for a change about to be made to a map others share:
    /// this loop, specialized for `Entry`, copies them faster than copy-on-write does (it
    /// copies each through the runtime's generic tuple witness), with room for one more.
    func copy() -> MapValue {
        MapValue(sortedEntries: [Entry](unsafeUninitializedCapacity: entries.count + 1) { buffer, initialized in
            for (i, entry) in entries.enumerated() { buffer.initializeElement(at: i, to: entry) }
            initialized = entries.count
        })
    }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }
    public var keys: [String] { entries.map(\.key) }

    public func makeIterator() -> IndexingIterator<[Entry]> { entries.makeIterator() }

    /// Whether the map's names are `names`, in order, byte for byte. Reads the names alone:
    /// a name whose bits equal the other's (a small string, or the same storage) is equal
    /// without reading its bytes, and no value is copied.
    public func hasNames(_ names: [String]) -> Bool {
        guard names.count == entries.count else { return false }
        return entries.withUnsafeBytes { raw in
            names.withUnsafeBufferPointer { names in
                for i in 0..<names.count {
                    // A tuple's first element is at its start.
                    let key = raw.load(fromByteOffset: i * MemoryLayout<Entry>.stride, as: String.self)
                    if unsafeBitCast(key, to: (UInt64, UInt64).self) != unsafeBitCast(names[i], to: (UInt64, UInt64).self)
                        && !utf8Equal(key, names[i]) { return false }
                }
                return true
            }
        }
    }

    /// Index of `key`, or where it would be inserted.
    @inline(__always)
    func search(_ key: String) -> (index: Int, found: Bool) {
        sortedEntryIndex(of: key, in: entries)
    }

    public subscript(key: String) -> Value? {
        get {
            let (i, found) = search(key)
            return found ? entries[i].value : nil
        }
        set {
            let (i, found) = search(key)
            switch (found, newValue) {
            case (true, let v?): entries[i].value = v
            case (true, nil): entries.remove(at: i)
            case (false, let v?): entries.insert((key, v), at: i)
            case (false, nil): break
            }
        }
    }

    /// The value at a nested path, descending through maps.
    public func value(at path: FieldPath) -> Value? {
        guard let first = path.segments.first, let top = self[first] else { return nil }
        return Self.descend(from: top, through: path)
    }

    /// `value(at:)` for a pass over many maps of one shape (an index built over a
    /// collection): the top-level field is looked for first at `hint`, where it was in the
    /// previous map, and `hint` is left where it was found. A match costs one comparison and
    /// touches one entry instead of a binary search's several.
    public func value(at path: FieldPath, hint: inout Int) -> Value? {
        guard let first = path.segments.first else { return nil }
        let top: Value
        if hint >= 0 && hint < entries.count, utf8Equal(entries[hint].key, first) {
            top = entries[hint].value
        } else {
            let (i, found) = search(first)
            guard found else { return nil }
            hint = i
            top = entries[i].value
        }
        return Self.descend(from: top, through: path)
    }

    private static func descend(from top: Value, through path: FieldPath) -> Value? {
        var current = top
        for segment in path.segments.dropFirst() {
            guard case .map(let m) = current, let next = m[segment] else { return nil }
            current = next
        }
        return current
    }

    /// Sets the value at a nested path, creating intermediate maps and replacing non-map
    /// intermediates (docs/semantics.md#writes).
    public mutating func setValue(_ value: Value, at path: FieldPath) {
        setValue(value, at: path.segments[...])
    }

    private mutating func setValue(_ value: Value, at path: ArraySlice<String>) {
        guard let first = path.first else { return }
        if path.count == 1 {
            self[first] = value
            return
        }
        let (i, found) = search(first)
        if found, case .map(var child) = entries[i].value {
            entries[i].value = .null  // drop the reference so `child` is uniquely owned
            child.setValue(value, at: path.dropFirst())
            entries[i].value = .map(child)
        } else {
            var child = MapValue()
            child.setValue(value, at: path.dropFirst())
            if found { entries[i].value = .map(child) } else { entries.insert((first, .map(child)), at: i) }
        }
    }

    /// Removes the value at a nested path; a missing path is a no-op. Emptied parent maps stay.
    public mutating func removeValue(at path: FieldPath) {
        removeValue(at: path.segments[...])
    }

    private mutating func removeValue(at path: ArraySlice<String>) {
        guard let first = path.first else { return }
        if path.count == 1 {
            self[first] = nil
            return
        }
        let (i, found) = search(first)
        guard found, case .map(var child) = entries[i].value else { return }
        entries[i].value = .null
        child.removeValue(at: path.dropFirst())
        entries[i].value = .map(child)
    }

    public static func == (a: MapValue, b: MapValue) -> Bool {
        guard a.entries.count == b.entries.count else { return false }
        for i in a.entries.indices {
            guard utf8Equal(a.entries[i].key, b.entries[i].key), a.entries[i].value == b.entries[i].value else { return false }
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(entries.count)
        for e in entries {
            hashUTF8(e.key, into: &hasher)
            hasher.combine(e.value)
        }
    }

    public var description: String {
        "{" + entries.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
    }
}

/// Binary search for `key` in entries sorted by the UTF-8 bytes of their keys (the order of
/// `MapValue` and of the rules language's maps): its index, or where it would be inserted.
/// It probes through a buffer pointer, reading each entry in place: `entries[mid]` would
/// copy the (key, value) pair out, retaining and releasing both.
/// The key's bytes are read once, not at every probe. Inlinable, so the rules language's
/// maps get a copy specialised for their values (generic, it copies each probed pair
/// through the runtime's value witnesses).
@inlinable @inline(__always)
public func sortedEntryIndex<V>(of key: String, in entries: [(key: String, value: V)]) -> (index: Int, found: Bool) {
    var key = key
    return key.withUTF8 { key in
        entries.withUnsafeBufferPointer { entries in
            var lo = 0, hi = entries.count
            while lo < hi {
                let mid = (lo + hi) >> 1
                let c = compareUTF8(entries[mid].key, key)
                if c == 0 { return (mid, true) }
                if c < 0 { lo = mid + 1 } else { hi = mid }
            }
            return (lo, false)
        }
    }
}

extension MapValue {
    /// The same fields with every timestamp (at any depth) cut to whole microseconds.
    func truncatingTimestamps() -> MapValue {
        MapValue(sortedEntries: entries.map { ($0.key, $0.value.truncatingTimestamps()) })
    }
}

extension Value {
    /// This value with every timestamp in it cut to whole microseconds.
    func truncatingTimestamps() -> Value {
        switch self {
        case .timestamp(let t): return .timestamp(t.truncatedToMicroseconds)
        case .map(let m): return .map(m.truncatingTimestamps())
        case .array(let a): return .array(a.map { $0.truncatingTimestamps() })
        default: return self
        }
    }
}

