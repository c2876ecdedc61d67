"""Rules operators at their edges, as the official emulator reports them: slices of lists and
strings at and past their bounds (which index it names, the illegal range), each operator
given operands it does not take (the "Expected:" list a denial's report quotes), and the
increment/decrement operators the language refuses (where the error is placed)."""
from cases.steps import case, get, rules

CASES = []


def ruleset(condition):
    return ("rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n"
            "    match /c/{id} {\n      allow get: if " + condition + ";\n    }\n  }\n}\n")


def evaluated(expression):
    CASES.append(case(f"rules operator {expression}", rules(ruleset("debug(" + expression + ") != null")), get("c/a", debug=True)))


def refused(condition):
    CASES.append(case(f"rules syntax {condition}", rules(ruleset(condition))))


for e in ["[1,2,3][0:0]", "[1,2,3][1:1]", "[1,2,3][3:3]", "[1,2,3][2:5]", "[1,2,3][3:4]", "[1,2,3][4:5]", "[1,2,3][2:1]",
          "[1,2,3][-1:2]", "[1,2,3][0:3]", "[1][1:3]", "[1][1:1]", "[][0:0]", "'abc'[0:0]", "'abc'[3:3]", "'abc'[2:5]",
          "'abc'[4:5]", "'abc'[2:1]", "'abc'[-1:2]", "'abc'[1:1]", "'héllo✓'[1:6]",
          "[1] - [2]", "'a' - 'b'", "[1] * 2", "'a' * 2", "[1] / 2", "'a' % 2", "true + 1", "null + 1", "1 + 'a'", "[1] + [2]",
          "[1] > [2]", "[1] <= [2]", "true >= false", "null < 1", "-'a'", "!1", "1 - -7",
          # `in` on a map: a key that is not a string is an error, not false.
          "1 in {'a': 1}", "1.5 in {'a': 1}", "true in {'a': 1}", "null in {'a': 1}", "[1] in {'a': 1}",
          "'a' in {'a': 1}", "'b' in {'a': 1}", "!(1 in {'a': 1})", "1 in {}", "1 in [1]", "'a' in ['a']"]:
    evaluated(e)
for c in ["debug(--7) != null", "1-- == 1", "(1--) == 1", "++7 == 1", "-- 7 == 1", "(1)-- == 1", "1++ > 0", "--(7) == 1",
          "true && --7 == 1", "[--7] == [1]", "1-- 7", "1 -- 7 == 1", "a--", "--a == 1", "1+++2 == 1", "debug(1--7) != null",
          "- -7 == 7"]:
    refused(c)
