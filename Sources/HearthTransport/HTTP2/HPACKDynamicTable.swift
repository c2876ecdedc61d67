/// The HPACK dynamic table (RFC 7541 §2.3.2, §4): newest entry first, sized as the sum
/// of `name + value + 32` per entry, evicting the oldest entries to stay within
/// `maxSize`.
struct HPACKDynamicTable: Sendable {
    /// Entries stored oldest first (so appending is cheap); index 0 of the table
    /// (HPACK index 62) is the last element.
    private(set) var entries: [(name: [UInt8], value: [UInt8])] = []
    private(set) var size = 0
    private(set) var maxSize: Int

    init(maxSize: Int) { self.maxSize = maxSize }

    var count: Int { entries.count }

    static func entrySize(name: Int, value: Int) -> Int { name + value + 32 }

    /// The entry at dynamic index `i` (0 = newest).
    func entry(_ i: Int) -> (name: [UInt8], value: [UInt8])? {
        guard i >= 0, i < entries.count else { return nil }
        return entries[entries.count - 1 - i]
    }

    /// Adds an entry, evicting as needed; an entry larger than the whole table empties it
    /// (§4.4).
    mutating func add(name: [UInt8], value: [UInt8]) {
        let needed = Self.entrySize(name: name.count, value: value.count)
        evict(toFit: maxSize - needed)
        if needed <= maxSize {
            entries.append((name, value))
            size += needed
        }
    }

    /// Changes the maximum size, evicting as needed (§4.3).
    mutating func setMaxSize(_ newMax: Int) {
        maxSize = newMax
        evict(toFit: newMax)
    }

    private mutating func evict(toFit limit: Int) {
        var drop = 0
        var newSize = size
        while newSize > max(limit, 0) && drop < entries.count {
            newSize -= Self.entrySize(name: entries[drop].name.count, value: entries[drop].value.count)
            drop += 1
        }
        if drop > 0 {
            entries.removeFirst(drop)
            size = newSize
        }
    }

    /// Dynamic index (0 = newest) of an entry with this name and value, and of one with
    /// this name, for the encoder.
    func find(name: [UInt8], value: [UInt8]) -> (full: Int?, nameOnly: Int?) {
        var nameOnly: Int?
        for i in 0..<entries.count {
            let e = entries[entries.count - 1 - i]
            if e.name == name {
                if e.value == value { return (i, nameOnly ?? i) }
                if nameOnly == nil { nameOnly = i }
            }
        }
        return (nil, nameOnly)
    }
}
