import HearthCore
import HearthRules

/// Rules source through the lexer, parser and checker (what `hearth rules check` and a
/// rules upload run), and the diagnostics a failed compile reports.
let rulesSourceTarget = FuzzTarget(name: "rules-source", summary: "rules lexer, parser and checker") { data in
    let source = String(decoding: data, as: UTF8.self)
    do throws(RulesCompileError) {
        let program = try RulesProgram.compile(source: source)
        return program.warnings.count + program.version
    } catch {
        return error.diagnostics.count + RulesProgram.diagnose(source: source).count
    }
}

/// Rules evaluated on fuzzed data. Input: NUL-separated rules source, the document's
/// fields (Hearth JSON), the auth token's claims (Hearth JSON) and the document's path.
/// A program that compiles is asked every method on that document (the stored copy is the
/// same fields, so get() and exists() find it) and a query of its collection.
let rulesEvalTarget = FuzzTarget(name: "rules-eval", summary: "rules evaluation: every method and a query on fuzzed documents and auth") { data in
    let parts = splitParts(data, count: 4)
    guard let program = try? RulesProgram.compile(source: String(decoding: parts[0], as: UTF8.self)) else { return 0 }
    func map(_ index: Int) -> MapValue {
        guard index < parts.count, let json = try? JSON.parse(parts[index], maxDepth: 32) else { return MapValue() }
        return (try? HearthJSON.map(json, database: fuzzDatabase)) ?? MapValue()
    }
    let fields = map(1)
    let claims = map(2)
    var path = ResourcePath(segments: ["c", "a"])
    if parts.count > 3, let p = try? ResourcePath.parse(String(decoding: parts[3], as: UTF8.self)), p.isDocument { path = p }
    let auth = claims.isEmpty ? nil : RulesAuth(uid: "u", token: claims)
    let time = Timestamp(seconds: 1_700_000_000, nanos: 0)
    let store = RulesDocumentStore([path: fields])
    var produced = 0
    for method in RulesMethod.allCases where method != .list {
        let request = RulesRequest(method: method, path: path, auth: auth, time: time,
                                   newData: method == .create || method == .update ? fields : nil)
        produced += program.evaluate(request, data: store).allowed ? 1 : 0
    }
    let query = StructuredQuery(parent: path.parent.parent, collectionID: path.parent.segments.last ?? "c")
    produced += program.allowsQuery(query, auth: auth, time: time, data: store).allowed ? 1 : 0
    return produced
}
