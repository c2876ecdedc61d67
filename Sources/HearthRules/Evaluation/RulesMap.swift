import HearthCore

/// A string-keyed map. Stored documents arrive sorted by key (as production stores them)
/// and are searched by bisection; map literals keep their written order, which the
/// emulator's `values()` reports (docs/rules-language.md#methods), and are searched linearly (they are small).
public struct RulesMap: Sendable {
    public private(set) var entries: [(key: String, value: RulesValue)]
    /// Entries are in ascending UTF-8 key order.
    private var isSorted: Bool

    public init() {
        entries = []
        isSorted = true
    }

    public init(sortedEntries: [(key: String, value: RulesValue)]) {
        entries = sortedEntries
        isSorted = true
    }

    /// In the given order; a later duplicate key replaces an earlier one's value.
    public init(_ pairs: [(String, RulesValue)]) {
        self.init()
        entries.reserveCapacity(pairs.count)
        for (k, v) in pairs { append(k, v) }
    }

    public var count: Int { entries.count }
    /// Keys in ascending order (what `keys()` returns).
    public var keys: [String] {
        isSorted ? entries.map(\.key) : entries.map(\.key).sorted { compareUTF8($0, $1) < 0 }
    }

    private func index(of key: String) -> (Int, Bool) {
        if !isSorted {
            for i in entries.indices where entries[i].key.utf8.elementsEqual(key.utf8) { return (i, true) }
            return (entries.count, false)
        }
        return sortedEntryIndex(of: key, in: entries)
    }

    /// Adds at the end (or replaces the value of an existing key).
    public mutating func append(_ key: String, _ value: RulesValue) {
        let (i, found) = index(of: key)
        if found { entries[i].value = value; return }
        if isSorted, let last = entries.last, compareUTF8(last.key, key) > 0 { isSorted = false }
        entries.append((key, value))
    }

    public subscript(key: String) -> RulesValue? {
        get {
            let (i, found) = index(of: key)
            return found ? entries[i].value : nil
        }
        set {
            let (i, found) = index(of: key)
            switch (found, newValue) {
            case (true, let v?): entries[i].value = v
            case (true, nil): entries.remove(at: i)
            case (false, let v?): entries.insert((key, v), at: i)
            case (false, nil): break
            }
        }
    }
}
