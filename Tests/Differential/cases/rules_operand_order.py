"""The order in which the official rules engine evaluates the operands of each binary
operator, seen through debug(): which operand prints first, and whether the other is still
evaluated when one errs."""
from cases.steps import case, get, rules
from cases.rules import ruleset

CASES = []


def cond(label, expression):
    """`allow get: if EXPRESSION` on c/{id}, then a get with debug() output captured."""
    CASES.append(case(f"rules {label}", rules(ruleset("    match /c/{id} {\n      allow get: if " + expression + ";\n    }")),
                      get("c/a", debug=True)))

for label, e in [
    ("==", "debug(1) == debug(2)"), ("!=", "debug(1) != debug(2)"), ("<", "debug(1) < debug(2)"), ("<=", "debug(1) <= debug(2)"),
    (">", "debug(1) > debug(2)"), (">=", "debug(1) >= debug(2)"), ("+", "debug(1) + debug(2) == 3"), ("-", "debug(1) - debug(2) == -1"),
    ("*", "debug(1) * debug(2) == 2"), ("/", "debug(4) / debug(2) == 2"), ("%", "debug(5) % debug(2) == 1"),
    ("in", "debug(1) in debug([1])"), ("is", "debug(1) is int"), ("&&", "debug(true) && debug(true)"), ("||", "debug(false) || debug(true)"),
    ("== left error", "(1 / 0) == debug(2)"), ("== right error", "debug(1) == (1 / 0)"), ("< left error", "(1 / 0) < debug(2)"),
    ("+ left error", "(1 / 0) + debug(2) == 2"), ("in left error", "(1 / 0) in debug([1])"),
    ("call arguments", "string(debug(1)) == debug('1')"), ("function arguments", "timestamp.date(debug(2020), debug(1), debug(2)) != request.time"),
    ("list literal", "[debug(1), debug(2)] != null"), ("map literal", "{'a': debug(1), 'b': debug(2)} != null"),
    ("index", "debug([1, 2])[debug(0)] == 1"), ("ternary", "debug(true) ? debug(1) == 1 : debug(2) == 2"),
    ("both err ==", "(1 / 0) == int('x')"), ("both err +", "(1 / 0) + int('x') == 1"), ("both err list", "[1 / 0, int('x')] != null"),
    ("both err arguments", "timestamp.date(1 / 0, int('x'), 1) == request.time"), ("both err index", "[1][int('x')] == (1 / 0)"),
    ("both err in", "(1 / 0) in int('x')"), ("map keys and values", "{debug('k1'): debug(1), debug('k2'): debug(2)} != null"),
    ("method arguments", "debug('abc').replace(debug('a'), debug('b')) == 'bbc'"), ("slice", "debug([1, 2, 3])[debug(0):debug(2)] == [1, 2]"),
    ("nested ==", "(debug(1) == debug(1)) == (debug(2) == debug(2))"), ("unary not", "!(debug(1) == debug(2))"),
]:
    cond(f"order {label}", e)
