/// How deep one expression may be, as production's compiler decides it, and the bound that
/// keeps every recursive walk of a tree (checker, evaluator, coverage, release) within a
/// thread's stack whatever a `PUT …:securityRules` sends.
///
/// Production (observed on the official emulator) rejects an expression with a node 99
/// levels below its top: "Expression is too complex to evaluate safely.", reported at each
/// node on that level. Parentheses count as a level, and so does every operand, argument,
/// list item and map entry; the receiver of `.name`, `[i]`, `[i:j]` and `.f()` does not, so
/// `a.b.c…` chains compile at any length there (the emulator's own stack gives out between
/// 500 and 1,000 links, with a 500 UNKNOWN). Hearth stops those at `maxHeight` nodes with
/// the same compile error: evaluation could not get through them anyway, since a request
/// evaluates at most 1,000 expressions (`EvaluationContext.maxEvaluations`).
enum ExpressionLimits {
    /// The level (0 = the top of the expression) at which a node is an error.
    static let maxNesting: Int32 = 99
    /// Nodes on one path from the top to a leaf. Receiver chains are the only way to get
    /// past `maxNesting` levels, and every walk of the tree recurses this deep at most.
    static let maxHeight: Int32 = 1_000
    static let message = "Expression is too complex to evaluate safely."

    /// Where production reports nesting too deep: each node or parenthesis on level 99,
    /// in source order (nothing below a reported node is reported).
    static func tooDeep(_ root: Expr) -> [SourceLocation] {
        guard root.nesting >= maxNesting else { return [] }
        var found: [SourceLocation] = []
        visit(root, level: 0, &found)
        return found.sorted { $0.offset < $1.offset }
    }

    /// Recurses once per level (so at most `maxNesting` deep) and loops along receivers,
    /// which stay on their parent's level.
    private static func visit(_ start: Expr, level startLevel: Int32, _ found: inout [SourceLocation]) {
        var e = start
        var level = startLevel
        while level + e.nesting >= maxNesting {
            for p in e.parentheses {
                if level == maxNesting { found.append(p); return }
                level += 1
            }
            if level == maxNesting { found.append(e.location); return }
            var receiver: Expr?
            Expr.forEachChild(e.kind) { child, isReceiver in
                if isReceiver { receiver = child } else { visit(child, level: level + 1, &found) }
            }
            guard let next = receiver else { return }
            e = next
        }
    }
}
