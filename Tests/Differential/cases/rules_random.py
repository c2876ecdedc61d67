"""Random rules expressions (a fixed seed): integer, float, string, list, map and boolean
expressions built from the language's operators and methods, nested a few levels, each
evaluated in `allow get: if debug(E) != null` — so what is compared is the verdict (an error
denies) and the value debug() printed. The hand-written rules cases probe one rule each;
these cross arithmetic edges, conversions, string and collection methods at scale."""
import random

from cases.steps import case, get, rules

CASES = []
rng = random.Random(112026)

INTS = ["0", "1", "-1", "7", "-7", "3", "42", "9223372036854775807", "-9223372036854775807", "1000000"]
FLOATS = ["0.0", "1.5", "-2.25", "0.1", "1e10", "3.0", "-0.0", "1e-5"]
STRINGS = ["''", "'a'", "'abc'", "'Héllo'", "'a,b,,c'", "'  pad  '", "'✓x'", "'ABC'", "'123'", "'1.5'"]

Q_0 = ["'abcdef'", "'Héllo✓'"]
Q_1 = ["'abc'", "'héllo'"]
Q_2 = ["','", "''", "'-'"]
Q_3 = ["','", "'b'"]
Q_4 = ["','", "''", "'a'"]
Q_5 = ["'a.*'", "'[A-Z]+'", "'.*,.*'", "''", "'(a|b)c'"]
Q_6 = ["'12'", "'-3'", "'7'"]
Q_7 = ["'2.5'", "'-1e3'", "'7'"]


def lit(pool):
    return rng.choice(pool)


def int_expr(d):
    if d <= 0 or rng.random() < 0.3:
        return lit(INTS)
    r = rng.randrange(9)
    if r == 0:
        return f"({int_expr(d - 1)} {rng.choice(['+', '-', '*'])} {int_expr(d - 1)})"
    if r == 1:
        return f"({int_expr(d - 1)} {rng.choice(['/', '%'])} {rng.choice(['2', '3', '-4', '7'])})"
    if r == 2:
        return f"{str_expr(d - 1)}.size()"
    if r == 3:
        return f"{list_expr(d - 1)}.size()"
    if r == 4:
        return f"int({rng.choice([float_expr(d - 1), lit(Q_6)])})"
    if r == 5:
        return f"math.abs({int_expr(d - 1)})"
    if r == 6:
        return f"-{int_expr(d - 1)}"
    if r == 7:
        return f"math.{rng.choice(['floor', 'ceil', 'round'])}({float_expr(d - 1)})"
    return f"({bool_expr(d - 1)} ? {int_expr(d - 1)} : {int_expr(d - 1)})"


def float_expr(d):
    if d <= 0 or rng.random() < 0.3:
        return lit(FLOATS)
    r = rng.randrange(7)
    if r == 0:
        return f"({float_expr(d - 1)} {rng.choice(['+', '-', '*', '/'])} {rng.choice([float_expr(d - 1), int_expr(d - 1)])})"
    if r == 1:
        return f"float({rng.choice([int_expr(d - 1), lit(Q_7)])})"
    if r == 2:
        return f"math.sqrt({rng.choice(['4', '2.0', '0.25', '10'])})"
    if r == 3:
        return f"math.pow({lit(['2', '2.0', '10', '0.5'])}, {lit(['2', '3', '0.5', '-1'])})"
    if r == 4:
        return f"math.abs({float_expr(d - 1)})"
    if r == 5:
        return f"({int_expr(d - 1)} / {lit(['2.0', '0.5', '4.0'])})"
    return f"-{float_expr(d - 1)}"


def str_expr(d):
    if d <= 0 or rng.random() < 0.3:
        return lit(STRINGS)
    r = rng.randrange(9)
    if r == 0:
        return f"({str_expr(d - 1)} + {str_expr(d - 1)})"
    if r == 1:
        return f"{str_expr(d - 1)}.{rng.choice(['lower', 'upper', 'trim'])}()"
    if r == 2:
        return f"{str_expr(d - 1)}.replace({lit(STRINGS)}, {lit(STRINGS)})"
    if r == 3:
        return f"string({rng.choice([int_expr(d - 1), float_expr(d - 1), bool_expr(d - 1), 'null'])})"
    if r == 4:
        return f"{lit(Q_0)}[{rng.randrange(0, 4)}:{rng.randrange(2, 7)}]"
    if r == 5:
        return f"{lit(Q_1)}[{rng.randrange(0, 3)}]"
    if r == 6:
        return f"{list_of_strings(d - 1)}.join({lit(Q_2)})"
    if r == 7:
        return f"{str_expr(d - 1)}.split({lit(Q_3)})[0]"
    return f"({bool_expr(d - 1)} ? {str_expr(d - 1)} : {str_expr(d - 1)})"


def list_of_strings(d):
    return "[" + ", ".join(str_expr(d) for _ in range(rng.randrange(0, 4))) + "]"


def list_expr(d):
    if d <= 0 or rng.random() < 0.25:
        return "[" + ", ".join(rng.choice([lit(INTS[:6]), lit(STRINGS[:5]), "null", "true", "1.0"]) for _ in range(rng.randrange(0, 5))) + "]"
    r = rng.randrange(6)
    if r == 0:
        return f"({list_expr(d - 1)} + {list_expr(d - 1)})"
    if r == 1:
        return f"{list_expr(d - 1)}[{rng.randrange(0, 2)}:{rng.randrange(1, 4)}]"
    if r == 2:
        return f"{list_expr(d - 1)}.removeAll({list_expr(d - 1)})"
    if r == 3:
        return f"{list_expr(d - 1)}.concat({list_expr(d - 1)})"
    if r == 4:
        return f"{map_expr(d - 1)}.keys()"
    return f"{str_expr(d - 1)}.split({lit(Q_4)})"


def map_expr(d):
    if d <= 0 or rng.random() < 0.4:
        keys = rng.sample(["a", "b", "c", "é"], rng.randrange(0, 4))
        return "{" + ", ".join(f"'{k}': {rng.choice([lit(INTS[:5]), lit(STRINGS[:4]), 'null', '[1]'])}" for k in keys) + "}"
    r = rng.randrange(3)
    if r == 0:
        return f"{map_expr(d - 1)}.diff({map_expr(d - 1)}).affectedKeys().size() == 0 ? {map_expr(d - 1)} : {map_expr(d - 1)}"
    if r == 1:
        return f"({map_expr(d - 1)})"
    return map_expr(0)


def bool_expr(d):
    if d <= 0 or rng.random() < 0.2:
        return rng.choice(["true", "false"])
    r = rng.randrange(10)
    if r == 0:
        return f"({int_expr(d - 1)} {rng.choice(['<', '<=', '==', '!=', '>', '>='])} {rng.choice([int_expr(d - 1), float_expr(d - 1)])})"
    if r == 1:
        return f"({str_expr(d - 1)} {rng.choice(['<', '==', '>='])} {str_expr(d - 1)})"
    if r == 2:
        return f"({rng.choice([lit(INTS[:5]), lit(STRINGS[:4]), 'null'])} in {list_expr(d - 1)})"
    if r == 3:
        return f"{str_expr(d - 1)}.matches({lit(Q_5)})"
    if r == 4:
        return f"{list_expr(d - 1)}.{rng.choice(['hasAny', 'hasAll', 'hasOnly'])}({list_expr(d - 1)})"
    if r == 5:
        return f"({bool_expr(d - 1)} {rng.choice(['&&', '||'])} {bool_expr(d - 1)})"
    if r == 6:
        return f"!{bool_expr(d - 1)}"
    if r == 7:
        return f"({rng.choice([int_expr(d - 1), float_expr(d - 1), str_expr(d - 1), list_expr(d - 1), map_expr(d - 1), 'null'])} is {rng.choice(['int', 'float', 'number', 'string', 'list', 'map', 'bool'])})"
    if r == 8:
        return f"({list_expr(d - 1)} == {list_expr(d - 1)})"
    return f"('{rng.choice(['a', 'b', 'z'])}' in {map_expr(d - 1)})"


KINDS = [int_expr, float_expr, str_expr, list_expr, map_expr, bool_expr]


def ruleset(expression):
    return ("rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n"
            "    match /c/{id} {\n      allow get: if debug(" + expression + ") != null;\n    }\n  }\n}\n")


for i in range(150):
    kind = KINDS[i % len(KINDS)]
    expression = kind(rng.randrange(1, 4))
    CASES.append(case(f"rules random {i:03d}", rules(ruleset(expression)), get("c/a", debug=True)))
