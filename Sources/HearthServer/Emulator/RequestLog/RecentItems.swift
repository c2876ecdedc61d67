/// The last `capacity` items appended, oldest first: a ring that overwrites its oldest item
/// once full, so keeping a history costs O(1) per item and a fixed amount of memory. The
/// request log keeps its entries in one, the Requests feed its evaluations.
struct RecentItems<Element> {
    let capacity: Int
    private var items: [Element] = []
    /// Where the next item goes once the ring is full (its oldest item).
    private var head = 0

    init(capacity: Int) {
        precondition(capacity > 0, "a ring keeps at least one item")
        self.capacity = capacity
    }

    var count: Int { items.count }

    mutating func append(_ item: Element) {
        if items.count < capacity {
            items.append(item)
        } else {
            items[head] = item
            head = (head + 1) % capacity
        }
    }

    /// The items, oldest first.
    var ordered: [Element] { items.count < capacity ? items : Array(items[head...] + items[..<head]) }
}
