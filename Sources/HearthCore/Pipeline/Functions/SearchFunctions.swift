/// `document_matches(query)` and `score()`: the full-text side of the `search` stage.
///
/// Production answers these from a text index Hearth does not have; Hearth evaluates them on
/// the document itself: every string anywhere in the document is split into lower-case words
/// (letters and digits), a trailing plural `s` is dropped from each word, and a query of
/// words matches a document holding all of them (`-word` excludes; `"a b"` needs both words).
/// `score()` is the mean over the query's words of tf / (tf + 1), in (0, 1): more
/// occurrences rank higher. Relevance figures are Hearth's, not production's.
extension PipelineFunctions {
    static let searchFunctions: [String: PipelineFunctionImplementation] = [
        "document_matches": { c throws(PipelineFailure) in
            try c.arity(1)
            let query = try c.string(try c.arg(0) ?? .null)
            return .boolean(TextSearch(query).score(c.scope.row.fields) != nil)
        },
        "score": { c throws(PipelineFailure) in
            try c.arity(0)
            return .double(c.scope.row.score ?? 0)
        },
    ]
}

/// A parsed full-text query (see `PipelineFunctions.searchFunctions`).
struct TextSearch {
    var required: [String] = []
    var excluded: [String] = []

    init(_ query: String) {
        var phrase = false
        for raw in query.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }) {
            var word = Substring(raw)
            if word.hasPrefix("\"") { phrase = true; word = word.dropFirst() }
            let closes = word.hasSuffix("\"")
            if closes { word = word.dropLast() }
            let negated = !phrase && word.hasPrefix("-")
            if negated { word = word.dropFirst() }
            let terms = Self.words(String(word))
            if negated { excluded += terms } else { required += terms }
            if closes { phrase = false }
        }
    }

    /// Lower-case words of letters and digits, plural `s` dropped.
    static func words(_ text: String) -> [String] {
        var out: [String] = []
        var current = String.UnicodeScalarView()
        func flush() {
            guard !current.isEmpty else { return }
            var w = String(current).lowercased()
            if w.count > 3, w.hasSuffix("s"), !w.hasSuffix("ss") { w.removeLast() }
            out.append(w)
            current = String.UnicodeScalarView()
        }
        for s in text.unicodeScalars {
            if s.properties.isAlphabetic || ("0"..."9").contains(s) { current.append(s) } else { flush() }
        }
        flush()
        return out
    }

    /// The document's relevance, or nil when it does not match.
    func score(_ fields: MapValue) -> Double? {
        guard !required.isEmpty else { return nil }
        var counts: [String: Int] = [:]
        func collect(_ v: Value) {
            switch v {
            case .string(let s): for w in Self.words(s) { counts[w, default: 0] += 1 }
            case .array(let items): items.forEach(collect)
            case .map(let m): m.entries.forEach { collect($0.value) }
            default: break
            }
        }
        fields.entries.forEach { collect($0.value) }
        if excluded.contains(where: { counts[$0] != nil }) { return nil }
        var total = 0.0
        for w in required {
            guard let tf = counts[w] else { return nil }
            total += Double(tf) / Double(tf + 1)
        }
        return total / Double(required.count)
    }
}
