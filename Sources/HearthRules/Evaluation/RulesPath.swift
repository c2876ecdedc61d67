import HearthCore

/// A path value: segments relative to the root (`databases/(default)/documents/users/a`).
/// Segments written `{name}` in a path literal stay placeholders until `bind()`.
public struct RulesPath: Sendable, CustomStringConvertible {
    public var segments: [String]

    public init(_ segments: [String]) { self.segments = segments }

    /// `/a/b`, no percent-encoding (as `string(path)` prints it, docs/rules-language.md#global-functions).
    public var description: String { "/" + segments.joined(separator: "/") }

    /// The document path within the database when this is `databases/<db>/documents/…`.
    public func documentPath(database: String) -> ResourcePath? {
        guard segments.count >= 3, segments[0] == "databases", segments[2] == "documents",
              utf8Equal(segments[1], database) else { return nil }
        return ResourcePath(segments: Array(segments[3...]))
    }

    public static func document(_ path: ResourcePath, database: String) -> RulesPath {
        RulesPath(["databases", database, "documents"] + path.segments)
    }
}
