import HearthCore

/// Matching request paths against `match` patterns (docs/rules-language.md#match-paths): complete
/// matches only, `{x}` binds one segment, `{x=**}` binds a path (v1: one or more
/// segments, v2: zero or more). A nil segment is the unknown document of a `list`;
/// a wildcard over it stays unbound.
enum PathMatcher {
    static func match(_ pattern: [MatchSegment], _ path: [String?], version: Int) -> [String: RulesValue]? {
        var bindings: [String: RulesValue] = [:]
        // Fast path (most patterns): no glob, so segments pair up one to one.
        if !pattern.contains(where: { if case .recursive = $0 { return true } else { return false } }) {
            guard pattern.count == path.count else { return nil }
            for i in pattern.indices {
                switch pattern[i] {
                case .literal(let lit):
                    guard let seg = path[i], utf8Equal(seg, lit) else { return nil }
                case .single(let name):
                    if let seg = path[i] { bindings[name] = .string(seg) }
                case .recursive:
                    return nil
                }
            }
            return bindings
        }
        return match(pattern[...], path[...], version: version, &bindings) ? bindings : nil
    }

    private static func match(_ pattern: ArraySlice<MatchSegment>, _ path: ArraySlice<String?>, version: Int,
                              _ bindings: inout [String: RulesValue]) -> Bool {
        guard let first = pattern.first else { return path.isEmpty }
        switch first {
        case .literal(let lit):
            guard let seg = path.first, let s = seg, utf8Equal(s, lit) else { return false }
            return match(pattern.dropFirst(), path.dropFirst(), version: version, &bindings)
        case .single(let name):
            guard let seg = path.first else { return false }
            // The unknown document of a `list` stays unbound: reading it is a
            // "Null value error." even in `id == null` (docs/rules-language.md#list-queries).
            if let seg { bindings[name] = .string(seg) }
            if match(pattern.dropFirst(), path.dropFirst(), version: version, &bindings) { return true }
            bindings[name] = nil
            return false
        case .recursive(let name):
            let minimum = version >= 2 ? 0 : 1
            guard path.count >= minimum else { return false }
            // Try the longest tail first; at most one glob per pattern keeps this linear.
            for take in stride(from: path.count, through: minimum, by: -1) {
                let tail = path.prefix(take)
                if match(pattern.dropFirst(), path.dropFirst(take), version: version, &bindings) {
                    if !tail.contains(where: { $0 == nil }) { bindings[name] = .path(RulesPath(tail.map { $0! })) }
                    return true
                }
            }
            return false
        }
    }
}
