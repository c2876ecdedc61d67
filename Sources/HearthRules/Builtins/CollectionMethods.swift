/// List, set, map and map_diff methods (docs/rules-language.md#methods).
enum CollectionMethods {
    private static func elements(_ v: RulesValue, _ receiver: String, _ name: String) throws(RulesError) -> [RulesValue] {
        switch v {
        case .list(let l): return l
        case .set(let s): return s
        default: throw .unsupported("\(receiver).\(name)(\(v.typeName))", expected: "\(receiver).\(name)(list)")
        }
    }

    static func list(_ l: [RulesValue], _ name: String, _ args: [RulesValue]) throws(RulesError) -> RulesValue {
        switch name {
        case "size":
            try Builtins.arity(name, args, 0)
            return .int(Int64(l.count))
        case "concat":
            try Builtins.arity(name, args, 1)
            guard case .list(let other) = args[0] else { throw .unsupported("list.concat(\(args[0].typeName))", expected: "list.concat(list)") }
            return .list(l + other)
        case "hasAll":
            try Builtins.arity(name, args, 1)
            return .bool(try elements(args[0], "list", name).allSatisfy { RulesValue.listContains(l, $0) })
        case "hasAny":
            try Builtins.arity(name, args, 1)
            return .bool(try elements(args[0], "list", name).contains { RulesValue.listContains(l, $0) })
        case "hasOnly":
            try Builtins.arity(name, args, 1)
            let allowed = try elements(args[0], "list", name)
            return .bool(l.allSatisfy { RulesValue.listContains(allowed, $0) })
        case "removeAll":
            try Builtins.arity(name, args, 1)
            let drop = try elements(args[0], "list", name)
            return .list(l.filter { !RulesValue.listContains(drop, $0) })
        case "toSet":
            try Builtins.arity(name, args, 0)
            return .set(RulesValue.makeSet(l))
        case "join":
            try Builtins.arity(name, args, 1)
            guard case .string(let sep) = args[0] else { throw .unsupported("list.join(\(args[0].typeName))", expected: "list.join(string)") }
            var parts: [String] = []
            for item in l {
                // Non-string elements are converted as string() does (`[1.5, true]` → '1.5-true').
                guard case .string(let s) = try Builtins.convert(.string, item) else { continue }
                parts.append(s)
            }
            return .string(parts.joined(separator: sep))
        default:
            throw .functionNotFound(name)
        }
    }

    static func set(_ s: [RulesValue], _ name: String, _ args: [RulesValue]) throws(RulesError) -> RulesValue {
        switch name {
        case "size":
            try Builtins.arity(name, args, 0)
            return .int(Int64(s.count))
        case "hasAll":
            try Builtins.arity(name, args, 1)
            return .bool(try elements(args[0], "set", name).allSatisfy { RulesValue.setContains(s, $0) })
        case "hasAny":
            try Builtins.arity(name, args, 1)
            return .bool(try elements(args[0], "set", name).contains { RulesValue.setContains(s, $0) })
        case "hasOnly":
            try Builtins.arity(name, args, 1)
            let allowed = try elements(args[0], "set", name)
            return .bool(s.allSatisfy { RulesValue.setContains(allowed, $0) })
        case "difference", "intersection", "union":
            try Builtins.arity(name, args, 1)
            guard case .set(let other) = args[0] else {
                throw .unsupported("set.\(name)(\(args[0].typeName))", expected: "set.\(name)(set)")
            }
            switch name {
            case "difference": return .set(s.filter { !RulesValue.setContains(other, $0) })
            case "intersection": return .set(s.filter { RulesValue.setContains(other, $0) })
            default: return .set(RulesValue.makeSet(s + other))
            }
        default:
            throw .functionNotFound(name)
        }
    }

    static func map(_ m: RulesMap, _ name: String, _ args: [RulesValue]) throws(RulesError) -> RulesValue {
        switch name {
        case "size":
            try Builtins.arity(name, args, 0)
            return .int(Int64(m.count))
        case "keys":
            try Builtins.arity(name, args, 0)
            return .list(m.keys.map { .string($0) })
        case "values":
            try Builtins.arity(name, args, 0)
            return .list(m.entries.map(\.value))
        case "get":
            try Builtins.arity(name, args, 2)
            switch args[0] {
            case .string(let k): return m[k] ?? args[1]
            case .list(let path):
                // Walks nested maps; `[]` returns the map itself (docs/rules-language.md#methods).
                var current = RulesValue.map(m)
                for step in path {
                    guard case .string(let k) = step else { throw .unsupported("map.get(list of \(step.typeName))", expected: "map.get(list of string)") }
                    guard case .map(let inner) = current, let next = inner[k] else { return args[1] }
                    current = next
                }
                return current
            default:
                throw .unsupported("map.get(\(args[0].typeName), …)", expected: "map.get(string, …) or map.get(list, …)")
            }
        case "diff":
            try Builtins.arity(name, args, 1)
            guard case .map(let other) = args[0] else { throw .unsupported("map.diff(\(args[0].typeName))", expected: "map.diff(map)") }
            return .mapDiff(new: m, old: other)
        default:
            throw .functionNotFound(name)
        }
    }

    static func mapDiff(_ new: RulesMap, _ old: RulesMap, _ name: String, _ args: [RulesValue]) throws(RulesError) -> RulesValue {
        try Builtins.arity(name, args, 0)
        var added: [RulesValue] = [], removed: [RulesValue] = [], changed: [RulesValue] = [], unchanged: [RulesValue] = []
        for (k, v) in new.entries {
            if let o = old[k] {
                // Numeric equality here: a stored 1 rewritten as 1.0 is unchanged (docs/rules-language.md#operators).
                if RulesValue.equals(v, o) { unchanged.append(.string(k)) } else { changed.append(.string(k)) }
            } else {
                added.append(.string(k))
            }
        }
        for (k, _) in old.entries where new[k] == nil { removed.append(.string(k)) }
        switch name {
        case "addedKeys": return .set(added)
        case "removedKeys": return .set(removed)
        case "changedKeys": return .set(changed)
        case "unchangedKeys": return .set(unchanged)
        // In the official emulator's order: changed, then removed, then added keys.
        case "affectedKeys": return .set(changed + removed + added)
        default: throw .functionNotFound(name)
        }
    }
}
