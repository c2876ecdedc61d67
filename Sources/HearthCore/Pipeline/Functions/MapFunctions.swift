/// `map`, `map_get` / `get_field`, `map_set`, `map_remove`, `map_merge`, `map_keys`,
/// `map_values`, `map_entries`. Keys are kept in Firestore's order (UTF-8 bytes).
extension PipelineFunctions {
    static let mapFunctions: [String: PipelineFunctionImplementation] = [
        "map": { c throws(PipelineFailure) in
            guard c.count % 2 == 0 else {
                throw .request(.invalidArgument("map() takes key and value pairs, but got \(c.count) arguments."))
            }
            var entries: [(String, Value)] = []
            var i = 0
            while i < c.count {
                let key = try c.string(try c.arg(i) ?? .null)
                if let v = try c.arg(i + 1) { entries.append((key, v)) }
                i += 2
            }
            return .map(MapValue(entries))
        },
        "map_get": { c throws(PipelineFailure) in try lookup(c) },
        "get_field": { c throws(PipelineFailure) in try lookup(c) },
        "map_set": { c throws(PipelineFailure) in
            try c.arity(3, Int.max)
            guard let m = try c.arg(0), m != .null else { return .null }
            var map = try c.map(m)
            var i = 1
            while i + 1 < c.count {
                let key = try c.string(try c.arg(i) ?? .null)
                map[key] = try c.arg(i + 1)
                i += 2
            }
            return .map(map)
        },
        "map_remove": { c throws(PipelineFailure) in
            try c.arity(2, Int.max)
            guard let m = try c.arg(0), m != .null else { return .null }
            var map = try c.map(m)
            for i in 1..<c.count { map[try c.string(try c.arg(i) ?? .null)] = nil }
            return .map(map)
        },
        "map_merge": { c throws(PipelineFailure) in
            try c.arity(1, Int.max)
            guard let args = try c.presentArgs() else { return .null }
            var out = MapValue()
            for v in args { for e in try c.map(v) { out[e.key] = e.value } }
            return .map(out)
        },
        "map_keys": { c throws(PipelineFailure) in
            try one(c) { m in .array(m.entries.map { .string($0.key) }) }
        },
        "map_values": { c throws(PipelineFailure) in
            try one(c) { m in .array(m.entries.map(\.value)) }
        },
        "map_entries": { c throws(PipelineFailure) in
            try one(c) { m in .array(m.entries.map { .map(MapValue([("k", .string($0.key)), ("v", $0.value)])) }) }
        },
    ]

    private static func one(_ c: PipelineCall, _ f: (MapValue) -> Value) throws(PipelineFailure) -> Value? {
        try c.arity(1)
        guard let v = try c.arg(0), v != .null else { return .null }
        return f(try c.map(v))
    }

    /// `map_get(map, key)`: the entry, or absent; a dotted key is one key, not a path.
    private static func lookup(_ c: PipelineCall) throws(PipelineFailure) -> Value? {
        try c.arity(2)
        guard let m = try c.arg(0), m != .null else { return .null }
        let key = try c.string(try c.arg(1) ?? .null)
        return try c.map(m)[key]
    }
}
