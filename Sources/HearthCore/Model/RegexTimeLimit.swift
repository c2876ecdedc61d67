import Foundation

/// A time limit on regular-expression matching. Rules (`matches`, `split`, `replace`) and the
/// pipeline's `regex_*` functions run patterns that come from outside with
/// `NSRegularExpression`, i.e. ICU, a backtracking engine: a pattern such as `(a+)+b`
/// against 26 `a`s and a `!` takes over a second, doubling with each further `a` (spotted
/// reading the code, reproduced through the `rules-eval` fuzz target:
/// Fuzz/regressions/rules-eval/). Production uses RE2, linear in
/// the input, so it answers; here a search that runs past the limit is stopped and reported
/// as an error instead of holding a thread for hours — a deliberate difference
/// (docs/reliability.md#findings): no pattern an app relies on comes near the limit.
extension NSRegularExpression {
    /// How long one search may run: far above any linear match on a 1 MiB field (a few
    /// milliseconds), and short enough that a request or rule with several searches stays
    /// under a second (with 1 s, one rules evaluation with four searches took 2.5 s of CPU).
    public static let matchTimeLimit: Duration = .milliseconds(250)

    /// Runs the search over `range` of `s` (every match, as `matches(in:)` would) and says
    /// whether it finished within `matchTimeLimit`. ICU calls the progress block while it
    /// backtracks (`.reportProgress`), so a runaway search is stopped there. Callers check
    /// first and then match as before: what passes costs at most twice a quick search.
    public func finishesWithinTimeLimit(in s: String, options: NSRegularExpression.MatchingOptions = [], range: NSRange) -> Bool {
        let deadline = ContinuousClock.now + Self.matchTimeLimit
        var exceeded = false
        enumerateMatches(in: s, options: options.union(.reportProgress), range: range) { _, _, stop in
            if ContinuousClock.now > deadline {
                exceeded = true
                stop.pointee = true
            }
        }
        return !exceeded
    }
}
