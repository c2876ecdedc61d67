// PersistentSortedMap.swift
//
// A persistent (copy-on-write, structurally shared) sorted map, implemented as a B-tree.
//
// Every value of `PersistentSortedMap` is an immutable-looking version of the map: copying the
// struct (taking a snapshot) is O(1) because only the root reference is copied. Mutation follows
// the path from the root to the affected leaf and *path-copies* every node on it that is shared
// with another version; nodes that are uniquely owned are mutated in place, so a map with a
// single owner mutates without allocating in the common case. Subtrees off the path stay shared.
//
// Node invariant (what makes `@unchecked Sendable` on `Node` sound): a node is mutated only while
// it is reachable exclusively through a chain of uniquely referenced nodes starting at a uniquely
// referenced root held by the mutating map. Any node that is reachable from a second map version
// or iterator is therefore never mutated again; it is frozen and may be read from any thread.
// The uniqueness chain works because a path-copied node initially *shares* its `children` array
// buffer with the original: the first mutable access to `children[i]` copies that buffer, which
// retains every child, so no child of a shared node ever looks uniquely referenced.
//
// Readers never take ownership: iterators retain the internal nodes on their path (which keeps
// the root shared, hence frozen) and share the current leaf's arrays (copy-on-write protects
// them); lookups walk unretained references while `self` keeps the version alive.
//
// B-tree shape (with `maxKeys` = M): every node holds at most M keys; every node except the root
// holds at least M / 2 keys; an internal node with k keys has k + 1 children; all leaves are at
// the same depth. An empty map has no root at all, so a present root always has at least one key.

/// A persistent sorted map backed by a copy-on-write B-tree with structural sharing.
///
/// Copying a map is O(1) and yields an independent snapshot: later mutations of either copy
/// never affect the other. Lookups, insertions and removals are O(log n); a mutation of a shared
/// map copies only the O(height) nodes between the root and the changed leaf.
public struct PersistentSortedMap<Key: Comparable & Sendable, Value: Sendable>: Sendable, Sequence {
    /// A key/value pair, as produced by iteration.
    public typealias Element = (key: Key, value: Value)

    /// Maximum number of keys per node used by `init()`. Chosen by a release micro-benchmark
    /// at 100k String keys: 31 is clearly slower for lookups and inserts; 63, 95 and 127 are
    /// within noise of each other, while larger nodes make every path copy of a shared map
    /// (one per commit) copy more keys. 63 keys (64 children) is the balance.
    static var defaultMaxKeysPerNode: Int { 63 }

    /// Root of the tree; `nil` exactly when the map is empty.
    var root: Node?
    /// Maximum keys per node; nodes other than the root hold at least `maxKeys / 2`.
    let maxKeys: Int

    /// The number of key/value pairs in the map. O(1).
    public private(set) var count: Int

    /// Creates an empty map.
    public init() {
        self.init(maxKeysPerNode: Self.defaultMaxKeysPerNode)
    }

    /// Creates an empty map whose nodes hold at most `maxKeysPerNode` keys (tests use tiny
    /// nodes to exercise deep trees).
    init(maxKeysPerNode: Int) {
        precondition(maxKeysPerNode >= 3, "a B-tree node must be able to hold at least 3 keys")
        root = nil
        maxKeys = maxKeysPerNode
        count = 0
    }

    /// True when the map contains no elements.
    public var isEmpty: Bool { count == 0 }

    /// The number of elements; iteration always produces exactly this many.
    public var underestimatedCount: Int { count }

    /// Builds a map from elements sorted by strictly increasing key, bottom-up in O(n)
    /// (how an index over an existing collection is built in one pass).
    init(sortedElements elements: consuming [(key: Key, value: Value)], maxKeysPerNode: Int = Self.defaultMaxKeysPerNode) {
        self.init(sortedChunks: [elements], maxKeysPerNode: maxKeysPerNode)
    }

    /// `init(sortedElements:)` of the chunks' elements one after another (sorted across
    /// chunks too), without first copying them into one array: a restart decodes a snapshot
    /// in chunks, and appending each to one array retained and released every key and value.
    init(sortedChunks chunks: consuming [[(key: Key, value: Value)]], maxKeysPerNode: Int = Self.defaultMaxKeysPerNode) {
        self.init(maxKeysPerNode: maxKeysPerNode)
        let total = chunks.reduce(0) { $0 + $1.count }
        guard total > 0 else { return }
        // Elements a subtree of each height can hold when full.
        var capacities = [maxKeys]
        while capacities.last! < total { capacities.append((maxKeys + 1) * capacities.last! + maxKeys) }
        count = total
        // The nodes take the elements from the end of the last chunk, right to left, each
        // filling its arrays from the back: removeLast moves every element into place, so no
        // key or value is copied (and retained) again. The parameter itself is taken apart: a
        // copy of it (`var remaining = chunks`) shared the chunks' buffers with it, and each
        // chunk's first removeLast then copied the whole chunk, retaining every element.
        root = Self.build(&chunks, count: count, height: capacities.count - 1, capacities: capacities)
    }

    /// The last element of the last non-empty chunk, removed (moved out).
    @inline(__always)
    private static func takeLast(_ chunks: inout [[(key: Key, value: Value)]]) -> (key: Key, value: Value) {
        while chunks[chunks.count - 1].isEmpty { chunks.removeLast() }
        return chunks[chunks.count - 1].removeLast()
    }

    /// A subtree of exactly `height` levels below its root holding the last `count` of
    /// `elements` (removed from its end); children get equal shares, the earlier ones one
    /// more when they cannot be equal, so every node stays at least half full.
    ///
    /// Each node's arrays get room for `maxKeys + 1` keys (`capacities[0]` is `maxKeys`), as
    /// nodes made by inserts have: a full node that takes one more key then splits in place.
    /// Sized to their contents, the first insert into a full node would double its arrays, and
    /// the half it keeps after the split would hold on to twice the memory it needs.
    private static func build(_ elements: inout [[(key: Key, value: Value)]], count: Int, height: Int, capacities: [Int]) -> Node {
        let room = capacities[0] + 1
        if height == 0 {
            var values: [Value] = []
            let keys = [Key](unsafeUninitializedCapacity: room) { keyBuffer, keysInitialized in
                values = [Value](unsafeUninitializedCapacity: room) { valueBuffer, valuesInitialized in
                    for i in stride(from: count - 1, through: 0, by: -1) {
                        let (key, value) = takeLast(&elements)
                        keyBuffer.initializeElement(at: i, to: key)
                        valueBuffer.initializeElement(at: i, to: value)
                    }
                    valuesInitialized = count
                }
                keysInitialized = count
            }
            return Node(keys: keys, values: values, children: [])
        }
        let childCount = (count + 1 + capacities[height - 1]) / (capacities[height - 1] + 1)
        let perChild = (count - (childCount - 1)) / childCount
        let extra = (count - (childCount - 1)) % childCount
        var keys: [Key] = [], values: [Value] = []
        let children = [Node](unsafeUninitializedCapacity: room + 1) { childBuffer, childrenInitialized in
            keys = [Key](unsafeUninitializedCapacity: room) { keyBuffer, keysInitialized in
                values = [Value](unsafeUninitializedCapacity: room) { valueBuffer, valuesInitialized in
                    for c in stride(from: childCount - 1, through: 0, by: -1) {
                        let size = perChild + (c < extra ? 1 : 0)
                        childBuffer.initializeElement(at: c, to: build(&elements, count: size, height: height - 1, capacities: capacities))
                        if c > 0 {
                            let (key, value) = takeLast(&elements)
                            keyBuffer.initializeElement(at: c - 1, to: key)
                            valueBuffer.initializeElement(at: c - 1, to: value)
                        }
                    }
                    valuesInitialized = childCount - 1
                }
                keysInitialized = childCount - 1
            }
            childrenInitialized = childCount
        }
        return Node(keys: keys, values: values, children: children)
    }

    // MARK: - Lookup

    /// The value stored for `key`, or `nil` when the key is absent. O(log n).
    public subscript(key: Key) -> Value? { lookup(key)?.value }

    /// Where a lookup found a key: the child taken at each level above the node holding it
    /// (eight bits a level) and the key's index in that node. Valid until the map's shape
    /// changes — an insertion of a new key or a removal; replacing values keeps it.
    struct Position {
        fileprivate let children: UInt64
        fileprivate let depth: Int
        fileprivate let index: Int
    }

    /// The value stored for `key` and, when it can be expressed (at most eight levels of at
    /// most 256 children), its position: a later `replaceValue(at:with:)` then goes straight
    /// to it instead of searching again.
    func lookup(_ key: Key) -> (value: Value, position: Position?)? {
        find(key) { n, i, position in (n.values[i], position) }
    }

    /// `lookup`, and the map's own copy of the key (equal to `key`) for a caller that keeps
    /// it: sharing it saves a copy of the key's storage.
    func lookupWithStoredKey(_ key: Key) -> (value: Value, position: Position?, storedKey: Key)? {
        find(key) { n, i, position in (n.values[i], position, n.keys[i]) }
    }

    /// Walks to `key` and hands its node, index and position to `extract`.
    @inline(__always)
    private func find<R>(_ key: Key, _ extract: (Node, Int, Position?) -> R) -> R? {
        guard let root else { return nil }
        // `self` keeps every node of this version alive (and frozen) during the call, so the
        // walk can use unmanaged references and skip retain/release at each level.
        var result: R?
        var children: UInt64 = 0, depth = 0
        let expressible = maxKeys < 256
        var node: Unmanaged<Node>? = .passUnretained(root)
        while let current = node {
            node = current._withUnsafeGuaranteedRef { n in
                let i = lowerBound(n.keys, key)
                if i < n.keys.count && n.keys.withUnsafeBufferPointer({ $0[i] == key }) {
                    result = extract(n, i, expressible && depth <= 8 ? Position(children: children, depth: depth, index: i) : nil)
                    return nil
                }
                if n.isLeaf { return nil }
                if depth < 8 { children |= UInt64(i) << (8 * depth) }
                depth += 1
                return .passUnretained(n.children[i])
            }
        }
        return result
    }

    /// Replaces the value at `position` (from `lookup` on this map, its shape unchanged
    /// since), path-copying the nodes above it that are shared, as `updateValue` would.
    mutating func replaceValue(at position: Position, with value: Value) {
        if !isKnownUniquelyReferenced(&root) { root = root!.copy() }
        var node = root!
        for level in 0..<position.depth { node = node.uniqueChild(Int(truncatingIfNeeded: position.children >> (8 * level)) & 0xFF) }
        node.values[position.index] = value
    }

    /// The element with the smallest key, or `nil` when the map is empty. O(log n).
    public var first: Element? {
        guard var n = root else { return nil }
        while !n.isLeaf { n = n.children[0] }
        return (n.keys[0], n.values[0])
    }

    /// The element with the largest key, or `nil` when the map is empty. O(log n).
    public var last: Element? {
        guard var n = root else { return nil }
        while !n.isLeaf { n = n.children[n.children.count - 1] }
        return (n.keys[n.keys.count - 1], n.values[n.values.count - 1])
    }

    /// True when both maps share the same root storage, which implies equal contents. O(1).
    /// Two empty maps are identical. Used to short-circuit diffs.
    public func isIdentical(to other: PersistentSortedMap) -> Bool {
        root === other.root
    }

    // MARK: - Mutation

    /// Stores `value` for `key`, replacing any existing value. O(log n).
    ///
    /// - Returns: the value previously stored for `key`, or `nil` if the key was newly inserted.
    @discardableResult
    public mutating func updateValue(_ value: Value, forKey key: Key) -> Value? {
        guard root != nil else {
            root = Node(keys: [key], values: [value], children: [], capacity: maxKeys + 1)
            count = 1
            return nil
        }
        if !isKnownUniquelyReferenced(&root) { root = root!.copy() }
        var old: Value?
        if let split = root!.insert(key, value, maxKeys: maxKeys, old: &old) {
            // The root overflowed: the tree grows by one level.
            root = Node(keys: [split.key], values: [split.value], children: [root!, split.right],
                        capacity: maxKeys + 1)
        }
        if old == nil { count += 1 }
        return old
    }

    /// Removes `key` and its value, if present. O(log n).
    ///
    /// - Returns: the removed value, or `nil` (leaving the map untouched) if `key` was absent.
    @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        // Look first so that removing an absent key never path-copies shared nodes.
        guard let old = self[key] else { return nil }
        if !isKnownUniquelyReferenced(&root) { root = root!.copy() }
        _ = root!.remove(key, minKeys: maxKeys / 2)
        count -= 1
        if root!.keys.isEmpty {
            // The root lost its last key: the tree shrinks by one level (or becomes empty).
            root = root!.isLeaf ? nil : root!.children[0]
        }
        return old
    }

    /// Keys that cut the map into `parts` runs of about equal size, ascending; none when it
    /// has fewer leaves than `parts`. They are picked evenly among the separators of the
    /// leaves (in order, each lying between two leaves), and every leaf holds `maxKeys / 2`
    /// to `maxKeys` keys, so the runs differ by at most about twice a leaf per separator
    /// passed. For handing the parts of a large map to several threads.
    func splitKeys(parts: Int) -> [Key] {
        guard parts > 1, let root, !root.isLeaf else { return [] }
        var separators: [Key] = []
        func collect(_ node: Node) {
            if node.children[0].isLeaf {
                separators.append(contentsOf: node.keys)
                return
            }
            for i in node.children.indices {
                collect(node.children[i])
                if i < node.keys.count { separators.append(node.keys[i]) }
            }
        }
        collect(root)
        let leaves = separators.count + 1
        guard leaves >= parts else { return [] }
        // The j-th key leaves j * leaves / parts leaves before it.
        return (1..<parts).map { separators[$0 * leaves / parts - 1] }
    }

    // MARK: - Iteration

    /// Returns an iterator over all elements in ascending key order.
    public func makeIterator() -> Iterator {
        Iterator(root: root, bound: nil, inclusive: true, descending: false)
    }

    /// Ordered iteration starting at a bound, ascending or descending.
    ///
    /// - ascending: starts at the first element with key >= `bound` (or > `bound` when
    ///   `inclusive` is false); a `nil` bound starts at the smallest key.
    /// - descending: starts at the first element with key <= `bound` (or < `bound` when
    ///   `inclusive` is false); a `nil` bound starts at the largest key.
    ///
    /// Positioning is O(log n); each further step is O(1) amortised.
    public func elements(from bound: Key?, inclusive: Bool, descending: Bool) -> Iterator {
        Iterator(root: root, bound: bound, inclusive: inclusive, descending: descending)
    }

    /// An ordered cursor over a map version: the keys and values of the current leaf and a
    /// position in them, plus an explicit stack of (node, position) frames for the leaf's
    /// internal ancestors. A step within a leaf is a bounds check and an index increment, with
    /// no reference counting; moving to the next leaf is O(1) amortised.
    ///
    /// The iterator keeps the version it was created from alive and unchanged, even if the map
    /// it came from is mutated afterwards.
    public struct Iterator: IteratorProtocol, Sendable {
        /// One internal node on the path to the current leaf. `children[index]` is the subtree
        /// currently being walked; once it is exhausted the node produces `keys[index]` when
        /// ascending, `keys[index - 1]` when descending.
        struct Frame {
            let node: Node
            var index: Int
        }

        private var stack: [Frame] = []
        /// The current leaf's contents (sharing the leaf's buffers).
        private var keys: [Key] = []
        private var values: [Value] = []
        /// Ascending: index in `keys` of the next key to produce. Descending: the next key to
        /// produce is at `position - 1`.
        private var position = 0
        private let descending: Bool

        init(root: Node?, bound: Key?, inclusive: Bool, descending: Bool) {
            self.descending = descending
            guard var node = root else { return }
            stack.reserveCapacity(8)
            while true {
                let i: Int
                if let bound {
                    // Ascending: index of the first key >= bound (> bound if exclusive).
                    // Descending: number of keys <= bound (< bound if exclusive); the next key
                    // produced at this level is then keys[i - 1], the largest qualifying one.
                    i = descending == inclusive ? upperBound(node.keys, bound) : lowerBound(node.keys, bound)
                } else {
                    i = descending ? node.keys.count : 0
                }
                if node.isLeaf {
                    keys = node.keys
                    values = node.values
                    position = i
                    return
                }
                stack.append(Frame(node: node, index: i))
                // children[i] holds the keys between keys[i - 1] and keys[i]: some may qualify.
                node = node.children[i]
            }
        }

        /// Returns the next element in the iteration order, or `nil` when exhausted.
        public mutating func next() -> (key: Key, value: Value)? {
            if descending {
                if position > 0 {
                    position -= 1
                    return (keys[position], values[position])
                }
            } else if position < keys.count {
                position += 1
                return (keys[position - 1], values[position - 1])
            }
            return nextFromAncestors()
        }

        /// Calls `body` with the next element read in place (neither key nor value is copied
        /// out of the leaf) and returns its result; nil when exhausted. For scans that only
        /// look at most elements.
        public mutating func withNext<R>(_ body: (borrowing Key, borrowing Value) -> R) -> R? {
            let i: Int
            if descending, position > 0 {
                position -= 1
                i = position
            } else if !descending, position < keys.count {
                position += 1
                i = position - 1
            } else {
                guard let (key, value) = nextFromAncestors() else { return nil }
                return body(key, value)
            }
            return keys.withUnsafeBufferPointer { k in values.withUnsafeBufferPointer { v in body(k[i], v[i]) } }
        }

        /// Calls `body` with the values the next calls to `next` or `withNext` will produce
        /// from the current leaf (possibly none: the leaf is exhausted), in key order: the
        /// first comes next when ascending, the last when descending. For a scan to read what
        /// they reference ahead of time, all at once: independent loads that miss the cache
        /// then wait together rather than one after another.
        public func withUpcomingValuesInLeaf<R>(_ body: (UnsafeBufferPointer<Value>) -> R) -> R {
            values.withUnsafeBufferPointer { v in
                body(UnsafeBufferPointer(rebasing: descending ? v[..<position] : v[position...]))
            }
        }

        /// The current leaf is exhausted: produce the next separator key from the nearest
        /// ancestor that has one left, and move to the edge leaf of the subtree that follows it.
        private mutating func nextFromAncestors() -> (key: Key, value: Value)? {
            while let top = stack.last {
                let node = top.node
                let i: Int, child: Int
                if descending {
                    guard top.index > 0 else { stack.removeLast(); continue }
                    i = top.index - 1
                    child = i
                } else {
                    guard top.index < node.keys.count else { stack.removeLast(); continue }
                    i = top.index
                    child = i + 1
                }
                stack[stack.count - 1].index = child
                // Descend to the first (ascending) or last (descending) leaf of children[child].
                var n = node.children[child]
                while !n.isLeaf {
                    let edge = descending ? n.keys.count : 0
                    stack.append(Frame(node: n, index: edge))
                    n = n.children[edge]
                }
                keys = n.keys
                values = n.values
                position = descending ? n.keys.count : 0
                return (node.keys[i], node.values[i])
            }
            return nil
        }
    }

    // MARK: - Differences

    /// Changes between two versions: every key whose value differs, with its old value (from
    /// `older`) and new value (from `self`), `nil` meaning absent; in ascending key order.
    ///
    /// Subtrees shared by identity between the two versions are skipped without visiting their
    /// elements, so diffing two versions that differ by a few mutations costs roughly
    /// O(changes × height × fanout) instead of O(n).
    ///
    /// - Parameter isSame: called as `isSame(old, new)` for keys present in both versions
    ///   outside shared subtrees; returning `true` omits the key from the result.
    public func differences(
        from older: PersistentSortedMap,
        isSame: (Value, Value) -> Bool
    ) -> [(key: Key, old: Value?, new: Value?)] {
        var result: [(key: Key, old: Value?, new: Value?)] = []
        if isIdentical(to: older) { return result }
        var new = DiffCursor(root: root)
        var old = DiffCursor(root: older.root)
        // Merge walk over both versions. Each cursor yields elements and *unexpanded* subtrees;
        // a subtree is only expanded when its key range may overlap the other side's next item.
        // When both cursors stand on the same subtree, everything before it has been consumed on
        // both sides and everything after it is larger, so it can be skipped as a whole.
        while true {
            switch (new.current, old.current) {
            case (.end, .end):
                return result
            case let (.subtree(a, _), .subtree(b, _)) where a === b:
                new.advance()
                old.advance()
            case let (.end, .subtree(b, _)):
                old.expand(b)
            case let (.subtree(a, _), .end):
                new.expand(a)
            case let (.end, .element(k, v)):
                result.append((k, v, nil))
                old.advance()
            case let (.element(k, v), .end):
                result.append((k, nil, v))
                new.advance()
            case let (.element(ka, va), .element(kb, vb)):
                if ka < kb {
                    result.append((ka, nil, va))
                    new.advance()
                } else if kb < ka {
                    result.append((kb, vb, nil))
                    old.advance()
                } else {
                    if !isSame(vb, va) { result.append((ka, vb, va)) }
                    new.advance()
                    old.advance()
                }
            case let (.subtree(a, _), .element(kb, vb)):
                // Every key left on the new side is >= firstKey(a).
                if kb < firstKey(of: a) {
                    result.append((kb, vb, nil))
                    old.advance()
                } else {
                    new.expand(a)
                }
            case let (.element(ka, va), .subtree(b, _)):
                if ka < firstKey(of: b) {
                    result.append((ka, nil, va))
                    new.advance()
                } else {
                    old.expand(b)
                }
            case let (.subtree(a, ha), .subtree(b, hb)):
                // Expand the side starting first; on a tie expand the taller subtree (the
                // shorter one may be shared with one of its descendants), or both.
                let ka = firstKey(of: a), kb = firstKey(of: b)
                let expandNew = ka < kb || (!(kb < ka) && ha >= hb)
                let expandOld = kb < ka || (!(ka < kb) && hb >= ha)
                if expandNew { new.expand(a) }
                if expandOld { old.expand(b) }
            }
        }
    }

    /// A cursor for `differences`: like `Iterator`, but it produces whole subtrees as single
    /// items and only descends into them on request.
    private struct DiffCursor {
        enum Item {
            case end
            case element(Key, Value)
            case subtree(Node, height: Int)
        }

        /// The root, while it has not been expanded yet.
        var pending: Node?
        /// Frames from the root down. `slot` walks a leaf's keys; for an internal node it
        /// alternates between subtrees and keys: even slot 2c is `children[c]`, odd slot
        /// 2k + 1 is `keys[k]`.
        var stack: [(node: Node, slot: Int)] = []
        let rootHeight: Int

        init(root: Node?) {
            pending = root
            var height = 0
            var n = root
            while let x = n, !x.isLeaf {
                height += 1
                n = x.children[0]
            }
            rootHeight = height
            stack.reserveCapacity(height + 1)
        }

        var current: Item {
            if let r = pending { return .subtree(r, height: rootHeight) }
            guard let top = stack.last else { return .end }
            let n = top.node, s = top.slot
            if n.isLeaf { return .element(n.keys[s], n.values[s]) }
            if s & 1 == 0 { return .subtree(n.children[s >> 1], height: rootHeight - stack.count) }
            return .element(n.keys[s >> 1], n.values[s >> 1])
        }

        /// Moves past the current item (an element, or a whole subtree).
        mutating func advance() {
            if pending != nil {
                pending = nil
                return
            }
            stack[stack.count - 1].slot += 1
            // Pop exhausted frames; the parent's slot then moves past the finished subtree.
            while let top = stack.last,
                  top.slot >= (top.node.isLeaf ? top.node.keys.count : 2 * top.node.keys.count + 1) {
                stack.removeLast()
                if stack.isEmpty { return }
                stack[stack.count - 1].slot += 1
            }
        }

        /// Replaces the current item, the subtree `node`, by its contents.
        mutating func expand(_ node: Node) {
            pending = nil
            stack.append((node, 0))  // a node always has at least one key
        }
    }

    private func firstKey(of node: Node) -> Key {
        var n = node
        while !n.isLeaf { n = n.children[0] }
        return n.keys[0]
    }

    // MARK: - Nodes

    /// A B-tree node. Leaves have no children; an internal node with k keys has k + 1
    /// children, `children[i]` holding the keys between `keys[i - 1]` and `keys[i]`.
    ///
    /// `@unchecked Sendable`: a node is mutated only while uniquely owned through a uniquely
    /// owned path (see the file header); once shared it is never mutated again.
    ///
    /// `@exclusivity(unchecked)`: dynamic exclusivity checks on these class properties cost
    /// ~20% of a lookup. They are redundant here: frozen nodes are only read, and the mutating
    /// code below never overlaps two accesses to the same property of the same node (each
    /// statement touches at most one array of a given node mutably, and sibling nodes are
    /// distinct objects).
    final class Node: @unchecked Sendable {
        @exclusivity(unchecked) var keys: [Key]
        @exclusivity(unchecked) var values: [Value]
        @exclusivity(unchecked) var children: [Node]

        init(keys: [Key], values: [Value], children: [Node]) {
            self.keys = keys
            self.values = values
            self.children = children
        }

        /// Creates a node whose arrays can grow to `capacity` elements without reallocating.
        convenience init<K: Collection<Key>, V: Collection<Value>, C: Collection<Node>>(
            keys: K, values: V, children: C, capacity: Int
        ) {
            var k: [Key] = [], v: [Value] = [], c: [Node] = []
            k.reserveCapacity(capacity)
            v.reserveCapacity(capacity)
            k.append(contentsOf: keys)
            v.append(contentsOf: values)
            if !children.isEmpty {
                c.reserveCapacity(capacity + 1)
                c.append(contentsOf: children)
            }
            self.init(keys: k, values: v, children: c)
        }

        var isLeaf: Bool { children.isEmpty }

        /// A shallow copy; the arrays share their buffers with `self` until first written.
        func copy() -> Node {
            Node(keys: keys, values: values, children: children)
        }

        /// `children[i]`, path-copied first if it is shared. `self` must be uniquely owned.
        func uniqueChild(_ i: Int) -> Node {
            if !isKnownUniquelyReferenced(&children[i]) { children[i] = children[i].copy() }
            return children[i]
        }

        struct Split {
            let key: Key
            let value: Value
            let right: Node
        }

        /// Inserts or updates `key` in this (uniquely owned) subtree, storing any replaced value
        /// in `old`. Returns the median and new right sibling if this node overflowed and split.
        func insert(_ key: Key, _ value: Value, maxKeys: Int, old: inout Value?) -> Split? {
            let i = lowerBound(keys, key)
            if i < keys.count && keys[i] == key {
                old = values[i]
                values[i] = value
                return nil
            }
            if isLeaf {
                keys.insert(key, at: i)
                values.insert(value, at: i)
            } else {
                guard let split = uniqueChild(i).insert(key, value, maxKeys: maxKeys, old: &old) else {
                    return nil
                }
                keys.insert(split.key, at: i)
                values.insert(split.value, at: i)
                children.insert(split.right, at: i + 1)
            }
            return keys.count > maxKeys ? split(capacity: maxKeys + 1) : nil
        }

        /// Splits an overflowing node (maxKeys + 1 keys) around its median: `self` keeps the
        /// lower half (⌈M/2⌉ keys), the returned right node gets the upper half (⌊M/2⌋ keys).
        private func split(capacity: Int) -> Split {
            let m = keys.count / 2
            let right = Node(keys: keys[(m + 1)...], values: values[(m + 1)...],
                             children: isLeaf ? children[...] : children[(m + 1)...], capacity: capacity)
            let split = Split(key: keys[m], value: values[m], right: right)
            keys.removeSubrange(m...)
            values.removeSubrange(m...)
            if !isLeaf { children.removeSubrange((m + 1)...) }
            return split
        }

        /// Removes `key` from this (uniquely owned) subtree, rebalancing children that fall
        /// below `minKeys`. `self` itself may be left underfull; its parent fixes that.
        func remove(_ key: Key, minKeys: Int) -> Value? {
            let i = lowerBound(keys, key)
            let found = i < keys.count && keys[i] == key
            if isLeaf {
                guard found else { return nil }
                keys.remove(at: i)
                return values.remove(at: i)
            }
            let removed: Value?
            if found {
                // Replace the separator with its in-order predecessor, the maximum of children[i].
                removed = values[i]
                let predecessor = uniqueChild(i).removeLast(minKeys: minKeys)
                keys[i] = predecessor.key
                values[i] = predecessor.value
            } else {
                removed = uniqueChild(i).remove(key, minKeys: minKeys)
                if removed == nil { return nil }
            }
            rebalance(child: i, minKeys: minKeys)
            return removed
        }

        /// Removes and returns the largest element of this (uniquely owned) subtree.
        private func removeLast(minKeys: Int) -> (key: Key, value: Value) {
            if isLeaf { return (keys.removeLast(), values.removeLast()) }
            let i = children.count - 1
            let last = uniqueChild(i).removeLast(minKeys: minKeys)
            rebalance(child: i, minKeys: minKeys)
            return last
        }

        /// Restores the minimum occupancy of `children[i]` (already uniquely owned) after a
        /// removal: borrow a key through the separator from a sibling that can spare one,
        /// otherwise merge with a sibling (which removes one key from `self`).
        private func rebalance(child i: Int, minKeys: Int) {
            guard children[i].keys.count < minKeys else { return }
            if i > 0 && children[i - 1].keys.count > minKeys {
                let left = uniqueChild(i - 1), child = children[i]
                child.keys.insert(keys[i - 1], at: 0)
                child.values.insert(values[i - 1], at: 0)
                keys[i - 1] = left.keys.removeLast()
                values[i - 1] = left.values.removeLast()
                if !left.isLeaf { child.children.insert(left.children.removeLast(), at: 0) }
            } else if i + 1 < children.count && children[i + 1].keys.count > minKeys {
                let right = uniqueChild(i + 1), child = children[i]
                child.keys.append(keys[i])
                child.values.append(values[i])
                keys[i] = right.keys.removeFirst()
                values[i] = right.values.removeFirst()
                if !right.isLeaf { child.children.append(right.children.removeFirst()) }
            } else {
                // Merge children[j], keys[j] and children[j + 1] into children[j]; the right
                // node is only read, so it need not be uniquely owned.
                let j = i > 0 ? i - 1 : i
                let left = uniqueChild(j), right = children[j + 1]
                left.keys.append(keys.remove(at: j))
                left.values.append(values.remove(at: j))
                left.keys.append(contentsOf: right.keys)
                left.values.append(contentsOf: right.values)
                left.children.append(contentsOf: right.children)
                children.remove(at: j + 1)
            }
        }
    }

    // MARK: - Testing support

    /// Height of the tree: 0 for a single leaf (or an empty map).
    var height: Int {
        var h = 0
        var n = root
        while let x = n, !x.isLeaf {
            h += 1
            n = x.children[0]
        }
        return h
    }

    /// Identities of all nodes of this version (for structural-sharing tests).
    var nodeIdentities: Set<ObjectIdentifier> {
        var result = Set<ObjectIdentifier>()
        var pending = root.map { [$0] } ?? []
        while let n = pending.popLast() {
            result.insert(ObjectIdentifier(n))
            pending.append(contentsOf: n.children)
        }
        return result
    }

    /// Checks every B-tree invariant; returns a description of the first violation, or `nil`.
    func invariantViolation() -> String? {
        guard let root else { return count == 0 ? nil : "no root but count \(count)" }
        var leafDepth: Int?
        var seen = 0
        func check(_ n: Node, depth: Int, lower: Key?, upper: Key?) -> String? {
            if n.keys.count != n.values.count { return "keys/values count mismatch" }
            if n.keys.count > maxKeys { return "node overfull: \(n.keys.count)" }
            if n !== root && n.keys.count < maxKeys / 2 { return "node underfull: \(n.keys.count)" }
            if n.keys.isEmpty { return "empty node" }
            for i in n.keys.indices {
                if i > 0 && !(n.keys[i - 1] < n.keys[i]) { return "keys out of order" }
                if let lower, !(lower < n.keys[i]) { return "key below subtree range" }
                if let upper, !(n.keys[i] < upper) { return "key above subtree range" }
            }
            seen += n.keys.count
            if n.isLeaf {
                if leafDepth == nil { leafDepth = depth }
                return leafDepth == depth ? nil : "leaves at different depths"
            }
            if n.children.count != n.keys.count + 1 { return "wrong child count" }
            for (c, child) in n.children.enumerated() {
                let lo = c == 0 ? lower : n.keys[c - 1]
                let hi = c == n.keys.count ? upper : n.keys[c]
                if let problem = check(child, depth: depth + 1, lower: lo, upper: hi) { return problem }
            }
            return nil
        }
        if let problem = check(root, depth: 0, lower: nil, upper: nil) { return problem }
        return seen == count ? nil : "count \(count) but \(seen) elements"
    }
}

/// Index of the first element of `keys` that is >= `key` (binary search).
///
/// Through a buffer pointer the keys are compared in place: `Array`'s subscript would copy
/// each probed key out (retaining and releasing every reference it holds).
private func lowerBound<Key: Comparable>(_ keys: [Key], _ key: Key) -> Int {
    keys.withUnsafeBufferPointer { keys in
        var lo = 0, hi = keys.count
        while lo < hi {
            let mid = (lo &+ hi) >> 1
            if keys[mid] < key { lo = mid &+ 1 } else { hi = mid }
        }
        return lo
    }
}

/// Index of the first element of `keys` that is > `key` (binary search).
private func upperBound<Key: Comparable>(_ keys: [Key], _ key: Key) -> Int {
    keys.withUnsafeBufferPointer { keys in
        var lo = 0, hi = keys.count
        while lo < hi {
            let mid = (lo &+ hi) >> 1
            if key < keys[mid] { hi = mid } else { lo = mid &+ 1 }
        }
        return lo
    }
}
