import Foundation
import HearthLock

/// Compiled regular expressions shared across evaluations. Rules use RE2 syntax; ICU (via
/// NSRegularExpression) accepts a superset of it, which is enough for the patterns rules use.
enum RegexCache {
    private static let cache = HearthMutex<[String: NSRegularExpression]>([:])

    /// The pattern compiled as a whole-string match (`matches` semantics) is keyed separately.
    static func compile(_ pattern: String, wholeString: Bool = false) -> NSRegularExpression? {
        let key = (wholeString ? "F" : "P") + pattern
        if let hit = cache.withLock({ $0[key] }) { return hit }
        // ICU rejects an empty pattern, which RE2 accepts (it matches the empty string).
        let bare = pattern.isEmpty ? "(?:)" : pattern
        let source = wholeString ? "(?:\(bare))\\z" : bare
        guard let regex = try? NSRegularExpression(pattern: source, options: []) else { return nil }
        // Validate the bare pattern too, so `a)(b` cannot sneak through the wrapper.
        if wholeString, (try? NSRegularExpression(pattern: bare, options: [])) == nil { return nil }
        cache.withLock { c in
            if c.count > 4096 { c.removeAll() }
            c[key] = regex
        }
        return regex
    }
}
