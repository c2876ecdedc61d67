/// The HPACK dynamic table (RFC 7541 §2.3.2, §4): newest entry first, sized as the sum
/// of `name + value + 32` per entry, evicting the oldest entries to stay within
/// `maxSize`.
struct HPACKDynamicTable: Sendable {
    /// Entries stored oldest first (so appending is cheap); index 0 of the table
    /// (HPACK index 62) is the last element.
    private(set) var entries: [(name: [UInt8], value: [UInt8])] = []
    /// The same entries as Strings, made once when added: a decoder hands out an indexed
    /// field without decoding its bytes again (~10 String allocations a gRPC request).
    private var headers: [HTTP2Header] = []
    private(set) var size = 0
    private(set) var maxSize: Int
    /// Changes with every addition, eviction and size change (an encoder's reused blocks
    /// are valid for one version).
    private(set) var version = 0

    init(maxSize: Int) { self.maxSize = maxSize }

    var count: Int { entries.count }

    static func entrySize(name: Int, value: Int) -> Int { name + value + 32 }

    /// The entry at dynamic index `i` (0 = newest).
    func entry(_ i: Int) -> (name: [UInt8], value: [UInt8])? {
        guard i >= 0, i < entries.count else { return nil }
        return entries[entries.count - 1 - i]
    }

    /// The entry at dynamic index `i` (0 = newest) as a header field.
    func header(_ i: Int) -> HTTP2Header? {
        guard i >= 0, i < headers.count else { return nil }
        return headers[headers.count - 1 - i]
    }

    /// Adds an entry, evicting as needed; an entry larger than the whole table empties it
    /// (§4.4). `header` is the same field as Strings, when the caller has it.
    mutating func add(name: [UInt8], value: [UInt8], header: HTTP2Header? = nil) {
        version &+= 1
        let needed = Self.entrySize(name: name.count, value: value.count)
        evict(toFit: maxSize - needed)
        if needed <= maxSize {
            entries.append((name, value))
            headers.append(header ?? HTTP2Header(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
            size += needed
        }
    }

    /// Changes the maximum size, evicting as needed (§4.3).
    mutating func setMaxSize(_ newMax: Int) {
        version &+= 1
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
            headers.removeFirst(drop)
            size = newSize
        }
    }

    /// Dynamic index (0 = newest) of an entry with this name and value, and of one with
    /// this name, for the encoder.
    func find<N: Collection<UInt8>, V: Collection<UInt8>>(name: N, value: V) -> (full: Int?, nameOnly: Int?) {
        var nameOnly: Int?
        for i in 0..<entries.count {
            let e = entries[entries.count - 1 - i]
            if e.name.count == name.count && e.name.elementsEqual(name) {
                if e.value.count == value.count && e.value.elementsEqual(value) { return (i, nameOnly ?? i) }
                if nameOnly == nil { nameOnly = i }
            }
        }
        return (nil, nameOnly)
    }
}
