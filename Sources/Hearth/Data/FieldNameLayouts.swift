import HearthCore
import HearthLock

/// The layouts of recently converted maps' field names, each a dictionary from a name to
/// its position among the map's entries. `UserDataWriter` makes a map's `[String: Any]` with
/// `mapValues` over the layout of its names: that puts each value where the layout has its
/// name, without hashing any name again. Documents of a collection mostly share their
/// names, and hashing and inserting them cost about twice the rest of a conversion.
enum FieldNameLayouts {
    /// A single field is converted directly (a layout's check would cost what it saves).
    static let minimumCount = 2
    /// Nor are maps of more fields: their names rarely repeat.
    static let maximumCount = 64
    /// Layouts kept, the most used first.
    private static let capacity = 16

    private struct Layout {
        let names: [String]
        let positions: [String: Int]

        /// The same names in the same order, compared byte-wise (as Firestore compares field
        /// names: "é" and "e\u{301}" are two names).
        func matches(_ map: MapValue) -> Bool { map.hasNames(names) }
    }

    private static let recent = HearthMutex<[Layout]>([])

    /// Each of `map`'s names with its position in `map.entries`.
    static func positions(of map: MapValue) -> [String: Int] {
        let hit = recent.withLock { layouts -> [String: Int]? in
            guard let i = layouts.indices.first(where: { layouts[$0].matches(map) }) else { return nil }
            // The layouts in use drift to the front (past the first two: a document's and
            // its nested map's, met in turn, stay where they are).
            if i > 1 { layouts.swapAt(i, i - 1); return layouts[i - 1].positions }
            return layouts[i].positions
        }
        if let hit { return hit }
        var positions = [String: Int](minimumCapacity: map.count)
        for (i, entry) in map.entries.enumerated() { positions[entry.key] = i }
        let layout = Layout(names: map.keys, positions: positions)
        recent.withLock { layouts in
            layouts.insert(layout, at: 0)
            if layouts.count > capacity { layouts.removeLast() }
        }
        return positions
    }
}
