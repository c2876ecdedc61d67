/// Runs a `PipelinePlan` over one database state, stage by stage, each stage consuming the
/// rows the previous one produced, in order. Sources read documents in name order (a
/// collection's documents are contiguous in the document tree); `Database+Pipeline` may
/// first hand a leading `where` / `sort` / `limit` to an index scan (`PipelineQueryHead`).
/// The DML stages do not write: they leave their writes in `writes` for the caller's commit.
struct PipelineExecutor {
    let run: PipelineRun
    /// The writes `update` / `delete` stages asked for.
    private(set) var writes: [Write] = []

    init(run: PipelineRun) { self.run = run }

    /// The rows of `plan`. `enclosing`: the row of the outer pipeline a nested pipeline runs
    /// for (its variables are in scope; `subcollection` reads under its document).
    /// `head`: rows from an index scan, the number of steps they account for, and the
    /// conditions of those steps still to apply to them.
    mutating func execute(_ plan: PipelinePlan, enclosing: PipelineScope? = nil,
                          head: (rows: [PipelineRow], steps: Int, residual: [PipelineValue])? = nil) throws(PipelineFailure) -> [PipelineRow] {
        var rows = head?.rows ?? []
        let outer = enclosing?.variables ?? [:]
        func scope(_ row: PipelineRow) -> PipelineScope {
            var s = PipelineScope(row: row, variables: outer, run: run)
            if !row.variables.isEmpty { for (k, v) in row.variables { s.variables[k] = v } }
            return s
        }
        for condition in head?.residual ?? [] {
            var kept: [PipelineRow] = []
            for row in rows where try condition.matches(scope(row)) { kept.append(row) }
            rows = kept
        }
        for step in plan.steps.dropFirst(head?.steps ?? 0) {
            switch step {
            case .collection(let path):
                rows = run.state.documents(in: path, at: run.readTime).map(PipelineRow.init)
            case .collectionGroup(let id):
                rows = run.state.allDocuments(at: run.readTime)
                    .filter { $0.path.count >= 2 && utf8Equal($0.path.segments[$0.path.count - 2], id) }
                    .sorted { ResourcePath.compare($0.path, $1.path) < 0 }
                    .map(PipelineRow.init)
            case .database:
                rows = run.state.allDocuments(at: run.readTime).sorted { ResourcePath.compare($0.path, $1.path) < 0 }.map(PipelineRow.init)
            case .documents(let paths):
                var seen = Set<ResourcePath>()
                rows = []
                for path in paths where seen.insert(path).inserted {
                    let doc = run.readTime.map { run.state.document(path, at: $0) } ?? run.state.document(path)
                    if let doc { rows.append(PipelineRow(doc)) }
                }
            case .literals(let maps):
                let empty = PipelineScope(row: PipelineRow(fields: MapValue()), variables: outer, run: run)
                rows = try maps.map { m throws(PipelineFailure) in
                    guard case .map(let fields)? = try stageValue(m, empty) else {
                        throw .request(.invalidArgument("Each result of the literals stage must be a map."))
                    }
                    return PipelineRow(fields: fields)
                }
            case .subcollection(let id):
                guard let parent = enclosing?.row.name else { rows = []; break }
                rows = run.state.documents(in: parent.appending(id), at: run.readTime).map(PipelineRow.init)
            case .filter(let condition):
                var kept: [PipelineRow] = []
                for row in rows where try condition.matches(scope(row)) { kept.append(row) }
                rows = kept
            case .sort(let keys):
                rows = try sorted(rows, keys, scope)
            case .limit(let n):
                if rows.count > n { rows.removeLast(rows.count - n) }
            case .offset(let n):
                rows = Array(rows.dropFirst(n))
            case .select(let fields):
                rows = try rows.map { row throws(PipelineFailure) in
                    var out = PipelineRow(fields: try project(fields, scope(row)))
                    out.variables = row.variables
                    return out
                }
            case .addFields(let fields):
                rows = try rows.map { row throws(PipelineFailure) in
                    var out = row
                    try add(fields, to: &out, scope(row))
                    return out
                }
            case .removeFields(let fields):
                rows = rows.map { row in
                    var out = row
                    for f in fields { out.fields.removeValue(at: f) }
                    return out
                }
            case .aggregate(let accumulators, let groups):
                rows = try aggregate(rows, accumulators, groups, scope)
            case .distinct(let groups):
                var seen = Set<MapValue>()
                var out: [PipelineRow] = []
                for row in rows {
                    let fields = try project(groups, scope(row))
                    if seen.insert(fields).inserted { out.append(PipelineRow(fields: fields)) }
                }
                rows = out
            case .findNearest(let field, let vector, let measure, let limit, let distanceField):
                var ranked: [(row: PipelineRow, distance: Double)] = []
                for row in rows {
                    guard case .vector(let v)? = try? field.evaluate(scope(row)), v.count == vector.count,
                          let d = VectorSearch.distance(v, vector, measure) else { continue }
                    ranked.append((row, d))
                }
                // Stable: equal distances keep the input order.
                let ordered = ranked.enumerated().sorted { a, b in
                    if a.element.distance != b.element.distance {
                        return measure == .dotProduct ? a.element.distance > b.element.distance : a.element.distance < b.element.distance
                    }
                    return a.offset < b.offset
                }.map(\.element)
                rows = ordered.prefix(limit ?? ordered.count).map { entry in
                    var row = entry.row
                    if let distanceField { row.fields.setValue(.double(entry.distance), at: distanceField) }
                    return row
                }
            case .sample(let count, let fraction):
                if let count {
                    if rows.count > count {
                        // A uniform subset, kept in input order.
                        var chosen = Array(rows.indices)
                        for i in 0..<count { chosen.swapAt(i, i + run.randomIndex(below: chosen.count - i)) }
                        rows = chosen.prefix(count).sorted().map { rows[$0] }
                    }
                } else if let fraction {
                    rows = rows.filter { _ in run.random() < fraction }
                }
            case .union(let other):
                var nested = PipelineExecutor(run: run)
                rows += try nested.execute(other)
                writes += nested.writes
            case .unnest(let expression, let alias, let indexField):
                var out: [PipelineRow] = []
                for row in rows {
                    guard let v = try stageValue(expression, scope(row)) else { continue }
                    guard case .array(let items) = v else {
                        var single = row
                        single.fields.setValue(v, at: alias)
                        out.append(single)
                        continue
                    }
                    for (i, item) in items.enumerated() {
                        var r = row
                        r.fields.setValue(item, at: alias)
                        if let indexField { r.fields.setValue(.integer(Int64(i)), at: indexField) }
                        out.append(r)
                    }
                }
                rows = out
            case .replaceWith(let expression):
                rows = try rows.map { row throws(PipelineFailure) in
                    switch try stageValue(expression, scope(row)) {
                    case .map(let m)?: return PipelineRow(fields: m)
                    case nil, .null?: return PipelineRow(fields: MapValue())
                    case let v?:
                        throw .request(.invalidArgument("replace_with needs a map, but the expression gave a \(PipelineTypes.name(of: v)) value."))
                    }
                }
            case .search(let query, let sort, let offset, let limit, let addFields):
                let text = Self.searchText(query)
                var out: [PipelineRow] = []
                for var row in rows where try query.matches(scope(row)) {
                    row.score = text.flatMap { TextSearch($0).score(row.fields) } ?? 0
                    out.append(row)
                }
                if !sort.isEmpty {
                    out = try sorted(out, sort, scope)
                } else if text != nil {
                    out = out.enumerated().sorted { a, b in
                        a.element.score! != b.element.score! ? a.element.score! > b.element.score! : a.offset < b.offset
                    }.map(\.element)
                }
                if let offset { out = Array(out.dropFirst(offset)) }
                if let limit, out.count > limit { out.removeLast(out.count - limit) }
                if !addFields.isEmpty {
                    out = try out.map { row throws(PipelineFailure) in
                        var r = row
                        try add(addFields, to: &r, scope(row))
                        return r
                    }
                }
                rows = out
            case .define(let bindings):
                rows = try rows.map { row throws(PipelineFailure) in
                    var r = row
                    for (name, e) in bindings { r.variables[name] = try stageValue(e, scope(row)) ?? .null }
                    return r
                }
            case .update(let fields):
                for row in rows {
                    guard let path = row.name else {
                        throw .request(.invalidArgument("The update stage needs documents; a row without a document name reached it."))
                    }
                    let changes = fields.isEmpty ? row.fields : try project(fields, scope(row))
                    let mask = fields.isEmpty ? row.fields.keys.map { FieldPath([$0]) } : fields.map(\.0)
                    writes.append(Write.update(path, changes, mask: mask.filter { changes.value(at: $0) != nil || fields.isEmpty }))
                }
                rows = []
            case .delete:
                for row in rows {
                    guard let path = row.name else {
                        throw .request(.invalidArgument("The delete stage needs documents; a row without a document name reached it."))
                    }
                    writes.append(Write.delete(path))
                }
                rows = []
            }
        }
        return rows
    }

    /// An expression's value in a stage that outputs it: an evaluation error fails the
    /// request (only `where` turns errors into "no match").
    private func stageValue(_ e: PipelineValue, _ scope: PipelineScope) throws(PipelineFailure) -> Value? {
        do throws(PipelineFailure) {
            return try e.evaluate(scope)
        } catch {
            throw .request(error.asFirestoreError)
        }
    }

    /// The named expressions' values as a map; absent values leave their name out.
    private func project(_ fields: [(FieldPath, PipelineValue)], _ scope: PipelineScope) throws(PipelineFailure) -> MapValue {
        var out = MapValue()
        for (path, e) in fields {
            if let v = try stageValue(e, scope) { out.setValue(v, at: path) }
        }
        return out
    }

    private func add(_ fields: [(FieldPath, PipelineValue)], to row: inout PipelineRow, _ scope: PipelineScope) throws(PipelineFailure) {
        for (path, e) in fields {
            if let v = try stageValue(e, scope) { row.fields.setValue(v, at: path) } else { row.fields.removeValue(at: path) }
        }
    }

    /// A sort by the keys, then by document name in the last key's direction; absent sorts
    /// before every value (null included), an evaluation error like absent.
    private func sorted(_ rows: [PipelineRow], _ keys: [PipelinePlan.SortKey], _ scope: (PipelineRow) -> PipelineScope) throws(PipelineFailure) -> [PipelineRow] {
        var keyed: [(values: [Value?], index: Int)] = []
        keyed.reserveCapacity(rows.count)
        for (i, row) in rows.enumerated() {
            var values: [Value?] = []
            for k in keys {
                do throws(PipelineFailure) {
                    values.append(try k.expression.evaluate(scope(row)))
                } catch {
                    guard case .evaluation = error else { throw error }
                    values.append(nil)
                }
            }
            keyed.append((values, i))
        }
        keyed.sort { a, b in
            for (j, k) in keys.enumerated() {
                var c: Int
                switch (a.values[j], b.values[j]) {
                case (nil, nil): c = 0
                case (nil, _): c = -1
                case (_, nil): c = 1
                case let (x?, y?): c = Value.compare(x, y)
                }
                if k.descending { c = -c }
                if c != 0 { return c < 0 }
            }
            // Ties go by document name in the last key's direction, as production's
            // index-ordered sorts return them; rows without a name keep their order.
            if let x = rows[a.index].name, let y = rows[b.index].name {
                let c = ResourcePath.compare(x, y)
                if c != 0 { return keys.last!.descending ? c > 0 : c < 0 }
            }
            return a.index < b.index
        }
        return keyed.map { rows[$0.index] }
    }

    private func aggregate(_ rows: [PipelineRow], _ accumulators: [(FieldPath, PipelineFunction)], _ groups: [(FieldPath, PipelineValue)],
                           _ scope: (PipelineRow) -> PipelineScope) throws(PipelineFailure) -> [PipelineRow] {
        var order: [MapValue] = []
        var states: [MapValue: [PipelineAggregates.Accumulator]] = [:]
        let fresh = accumulators.map { PipelineAggregates.Accumulator($0.1) }
        if groups.isEmpty {
            order = [MapValue()]
            states[MapValue()] = fresh
        }
        for row in rows {
            let s = scope(row)
            let key = try project(groups, s)
            if states[key] == nil {
                order.append(key)
                states[key] = fresh
            }
            for i in accumulators.indices { try states[key]![i].add(s) }
        }
        return order.map { key in
            var fields = key
            for (i, (alias, _)) in accumulators.enumerated() { fields.setValue(states[key]![i].result, at: alias) }
            return PipelineRow(fields: fields)
        }
    }

    /// The text of the `document_matches` call in a search query, if any.
    static func searchText(_ query: PipelineValue) -> String? {
        guard case .function(let f) = query else { return nil }
        if f.name == "document_matches", let text = f.args.first?.stringConstant { return text }
        for a in f.args { if let t = searchText(a) { return t } }
        return nil
    }
}

extension PipelineRun {
    /// A nested pipeline's results as values (array() / scalar()): a one-field result is its
    /// value, any other result its map of fields.
    func subpipelineValues(_ stages: [PipelineStage], scope: PipelineScope) throws(PipelineFailure) -> [Value] {
        let plan: PipelinePlan
        do throws(FirestoreError) {
            plan = try PipelinePlan(stages, database: database, nested: true)
        } catch {
            throw .request(error)
        }
        var inner = scope
        for (k, v) in scope.row.variables { inner.variables[k] = v }
        var executor = PipelineExecutor(run: self)
        let rows = try executor.execute(plan, enclosing: inner)
        return rows.map { row in
            if row.fields.count == 1 { return row.fields.entries[0].value }
            return .map(row.fields)
        }
    }
}
