"""Security rules verdicts over REST, with what debug() printed: operators, types, errors and
their propagation, request and resource, get()/exists(), list proofs and batched writes.
Each case loads its rules into its own project, then makes requests as mock users."""
from cases.steps import case, commit, delete_write, docs, get, http, name, query, rules, run_query, seed, update, OWNER

CASES = []


def ruleset(body, functions=""):
    return ("rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n" + functions
            + body + "\n  }\n}\n")


def cond(label, expression, auth=None, data=None, path="c/a"):
    """`allow get: if EXPRESSION` on c/{id}, then a get with debug() output captured."""
    steps = [rules(ruleset("    match /c/{id} {\n      allow get: if " + expression + ";\n    }"))]
    if data:
        steps.append(seed(data))
    steps.append(get(path, auth=auth, debug=True))
    CASES.append(case(f"rules {label}", *steps))


ALICE = {"uid": "alice"}
# Values as debug() prints them, and operators.
for label, e in [
    ("debug int", "debug(1) == 1"), ("debug negative int", "debug(-5) == -5"), ("debug float", "debug(1.5) > 1"),
    ("debug float integral", "debug(2.0) == 2"), ("debug large float", "debug(1e300) > 0"), ("debug small float", "debug(1e-7) > 0"),
    ("debug string", "debug('héllo \"q\" \\\\ ✓') != ''"), ("debug empty string", "debug('') == ''"),
    ("debug bytes", "debug(b'\\x00\\xff') != null"), ("debug bool", "debug(true)"), ("debug null", "debug(null) == null"),
    ("debug list", "debug([1, 'a', [true]]) != null"), ("debug map", "debug({'b': 1, 'a': {'c': [2]}}) != null"),
    ("debug set", "debug([1, 2, 2].toSet()) != null"), ("debug path", "debug(/databases/$(database)/documents/c/x) != null"),
    ("debug path literal", "debug(path('a/b')) != null"), ("debug timestamp", "debug(timestamp.value(1)) != null"),
    ("debug timestamp nanos", "debug(timestamp.value(1500)) != null"), ("debug duration", "debug(duration.value(90, 's')) != null"),
    ("debug latlng", "debug(latlng.value(1.5, -2)) != null"), ("debug request.path", "debug(request.path) != null"),
    ("debug request.method", "debug(request.method) == 'get'"), ("debug resource missing", "debug(resource) == null"),
    ("debug auth null", "debug(request.auth) == null"), ("debug map diff", "debug({'a': 1, 'b': 2}.diff({'a': 2, 'c': 3}).affectedKeys()) != null"),
    ("debug twice", "debug(1) == 1 && debug(2) == 2"), ("debug in short-circuit", "false && debug(1) == 1"),
    ("debug of error", "debug(1 / 0) == 0"), ("debug nested", "debug(debug(3) + 1) == 4"),
    ("is precedence", "'a' is string == true"), ("is precedence 2", "1 is int == 'x' is string"),
    ("not of error", "!(1 / 0 == 0)"), ("not of error or true", "!(1 / 0 == 0) || true"), ("error or true", "(1 / 0 == 0) || true"),
    ("error and false", "(1 / 0 == 0) && false"), ("false and error", "false && (1 / 0 == 0)"), ("error and true", "(1 / 0 == 0) && true"),
    ("ternary error condition", "(1 / 0 == 0) ? true : true"), ("ternary non-bool", "1 ? true : false"),
    ("int overflow", "9223372036854775807 + 1 > 0"), ("int division", "debug(7 / 2) == 3"), ("int modulo negative", "debug(-7 % 3) == -1"),
    ("float division by zero", "debug(1.0 / 0) > 0"), ("int and float equal", "1 == 1.0"), ("string compare", "'a' < 'b'"),
    ("list compare", "[1, 2] < [1, 3]"), ("null compare", "null < 1"), ("in list", "2 in [1, 2]"), ("in map", "'a' in {'a': 1}"),
    ("size", "debug('héllo'.size()) == 5"), ("string index", "debug('abc'[1]) == 'b'"), ("list slice", "debug([1, 2, 3][1:3]) == [2, 3]"),
    ("string matches", "'abc'.matches('a.c')"), ("string split", "debug('a,b'.split(',')) == ['a', 'b']"),
    ("int of string", "debug(int('42')) == 42"), ("int of bad string", "int('x') == 0"), ("float of string", "debug(float('1.5')) == 1.5"),
    ("string of float", "debug(string(1.0)) == '1.0'"), ("math", "debug(math.abs(-2)) == 2 && math.floor(1.5) == 1"),
    ("hash", "debug(hashing.md5(b'abc')) != null"), ("timestamp fields", "debug(timestamp.value(86400000).date()) != null"),
    ("undefined property", "request.nope == 1"), ("undefined variable", "nope == 1"), ("function not found", "nope() == 1"),
    ("map get default", "debug({'a': 1}.get('b', 7)) == 7"), ("list has all", "[1, 2, 3].hasAll([1, 3])"),
    ("set operations", "debug([1, 2].toSet().union([3].toSet())) != null"), ("keys", "debug({'b': 1, 'a': 2}.keys()) != null"),
    ("path equality", "/databases/$(database)/documents/c/a == request.path"), ("path binding", "debug(request.path[4]) == 'a'"),
    ("auth uid", "debug(request.auth.uid) == 'alice'"), ("auth token", "debug(request.auth.token.sign_in_provider) != null"),
    ("auth firebase", "debug(request.auth.token.firebase) != null"),
]:
    cond(label, e, auth=ALICE if "auth" in label else None)
cond("resource data", "debug(resource.data) != null && resource.data.n == 1", data={"c/a": {"n": 1, "m": {"x": [1, 2]}}})
cond("resource id and name", "debug(resource.id) == 'a' && debug(resource.__name__) != null", data={"c/a": {"n": 1}})
cond("resource timestamp field", "debug(resource.data.t) != null", data={"c/a": {"t": {"timestampValue": "2024-01-02T03:04:05.123456Z"}}})
cond("resource reference field", "debug(resource.data.r) != null", data={"c/a": {"r": {"referenceValue": "$DOCS/x/y"}}})
cond("resource geopoint field", "debug(resource.data.g) != null", data={"c/a": {"g": {"geoPointValue": {"latitude": 1.5, "longitude": 2}}}})
cond("resource bytes field", "debug(resource.data.b) != null", data={"c/a": {"b": {"bytesValue": "AP8="}}})
cond("resource double field", "debug(resource.data.d) != null", data={"c/a": {"d": 2.0}})
cond("get other document", "debug(get(/databases/$(database)/documents/o/b).data.x) == 1", data={"o/b": {"x": 1}})
cond("get missing document", "get(/databases/$(database)/documents/o/zz).data.x == 1")
cond("exists", "debug(exists(/databases/$(database)/documents/o/b))", data={"o/b": {"x": 1}})
cond("exists missing", "debug(exists(/databases/$(database)/documents/o/zz))")
cond("get with string path", "get('/databases/' + database + '/documents/o/b').data.x == 1", data={"o/b": {"x": 1}})
cond("eleven gets", " && ".join(f"exists(/databases/$(database)/documents/o/d{i})" for i in range(11)),
     data={f"o/d{i}": {"i": i} for i in range(11)})


def verdicts(label, body, *steps, functions=""):
    CASES.append(case(f"rules {label}", rules(ruleset(body, functions)), *steps))


OWNED = "    match /posts/{id} {\n      allow read: if resource.data.owner == request.auth.uid;\n      allow create: if request.resource.data.owner == request.auth.uid;\n      allow update: if resource.data.owner == request.auth.uid && request.resource.data.owner == resource.data.owner;\n      allow delete: if resource.data.owner == request.auth.uid;\n    }"
P1 = {"posts/p1": {"owner": "alice", "n": 1}, "posts/p2": {"owner": "bob", "n": 2}}
verdicts("owner reads own", OWNED, seed(P1), get("posts/p1", auth=ALICE, debug=True))
verdicts("owner reads other", OWNED, seed(P1), get("posts/p2", auth=ALICE))
verdicts("signed out reads", OWNED, seed(P1), get("posts/p1"))
verdicts("read missing document", OWNED, get("posts/zz", auth=ALICE))
verdicts("create own", OWNED, docs("POST", "/posts?documentId=p3", {"fields": {"owner": {"stringValue": "alice"}}}, auth=ALICE))
verdicts("create for other", OWNED, docs("POST", "/posts?documentId=p3", {"fields": {"owner": {"stringValue": "bob"}}}, auth=ALICE))
verdicts("update own", OWNED, seed(P1), docs("PATCH", "/posts/p1?updateMask.fieldPaths=n", {"fields": {"n": {"integerValue": "5"}}}, auth=ALICE))
verdicts("update changes owner", OWNED, seed(P1), docs("PATCH", "/posts/p1", {"fields": {"owner": {"stringValue": "bob"}}}, auth=ALICE))
verdicts("patch missing is create", OWNED, docs("PATCH", "/posts/p9", {"fields": {"owner": {"stringValue": "alice"}}}, auth=ALICE))
verdicts("delete own", OWNED, seed(P1), docs("DELETE", "/posts/p1", auth=ALICE))
verdicts("delete missing", OWNED, docs("DELETE", "/posts/zz", auth=ALICE))
verdicts("batch one denied", OWNED, seed(P1), commit([update("posts/p5", {"owner": "alice"}), update("posts/p6", {"owner": "bob"})], auth=ALICE),
         get("posts/p5", auth=OWNER))
verdicts("batch allowed", OWNED, commit([update("posts/p5", {"owner": "alice"}), delete_write("posts/zz")], auth=ALICE))
verdicts("batchGet one denied", OWNED, seed(P1), docs("POST", ":batchGet", {"documents": [name("posts/p1"), name("posts/p2")]}, auth=ALICE))
verdicts("query constrained", OWNED, seed(P1), run_query(query("posts", where={"fieldFilter": {"field": {"fieldPath": "owner"}, "op": "EQUAL", "value": {"stringValue": "alice"}}}), auth=ALICE))
verdicts("query unconstrained", OWNED, seed(P1), run_query(query("posts"), auth=ALICE))
verdicts("list unconstrained", OWNED, seed(P1), get("posts", auth=ALICE))
verdicts("aggregation constrained", OWNED, seed(P1), docs("POST", ":runAggregationQuery", {"structuredAggregationQuery": {
    "structuredQuery": query("posts", where={"fieldFilter": {"field": {"fieldPath": "owner"}, "op": "EQUAL", "value": {"stringValue": "alice"}}}),
    "aggregations": [{"alias": "n", "count": {}}]}}, auth=ALICE))
verdicts("other collection denied", OWNED, get("other/x", auth=ALICE))
verdicts("getAfter in batch", "    match /a/{id} {\n      allow create: if getAfter(/databases/$(database)/documents/b/$(id)).data.ok == true;\n    }\n    match /b/{id} {\n      allow create: if true;\n    }",
         commit([update("a/x", {"v": 1}), update("b/x", {"ok": True})], auth=ALICE), commit([update("a/y", {"v": 1})], auth=ALICE))
verdicts("request.resource with transform", "    match /t/{id} {\n      allow write: if debug(request.resource.data.n) == 2;\n    }",
         seed({"t/a": {"n": 1}}), commit([update("t/a", {}, mask=[], transforms=[{"fieldPath": "n", "increment": {"integerValue": "1"}}])], auth=ALICE, debug=True))
verdicts("request.resource server time", "    match /t/{id} {\n      allow write: if debug(request.resource.data.t == request.time);\n    }",
         commit([update("t/a", {}, mask=[], transforms=[{"fieldPath": "t", "setToServerValue": "REQUEST_TIME"}])], auth=ALICE, debug=True))
verdicts("diff affected keys", "    match /t/{id} {\n      allow update: if debug(request.resource.data.diff(resource.data).affectedKeys()).hasOnly(['n']);\n    }",
         seed({"t/a": {"n": 1, "m": 1}}), docs("PATCH", "/t/a?updateMask.fieldPaths=n", {"fields": {"n": {"integerValue": "2"}}}, auth=ALICE, debug=True),
         docs("PATCH", "/t/a?updateMask.fieldPaths=m", {"fields": {"m": {"integerValue": "2"}}}, auth=ALICE))
verdicts("wildcard recursive", "    match /r/{rest=**} {\n      allow read: if debug(rest) != null;\n    }", get("r/a/b/c", auth=ALICE, debug=True))
verdicts("functions and let", "    match /f/{id} {\n      allow read: if check(id);\n    }",
         get("f/ok", auth=ALICE, debug=True), get("f/no", auth=ALICE),
         functions="    function check(x) {\n      let y = debug(x + '!');\n      return y == 'ok!';\n    }\n")
verdicts("overlapping matches", "    match /m/{id} {\n      allow read: if false;\n    }\n    match /m/{doc=**} {\n      allow read: if true;\n    }", get("m/a", auth=ALICE))
verdicts("two allows denied", "    match /m/{id} {\n      allow read: if 1 / 0 == 0;\n      allow get: if false;\n    }", get("m/a", auth=ALICE))
verdicts("named database", "    match /c/{id} {\n      allow read: if database == 'other';\n    }",
         http("GET", "/v1/projects/$P/databases/other/documents/c/a", auth=ALICE), get("c/a", auth=ALICE))


# The compiler's type warnings: only the load's answer (its issues) is compared.
def warns(label, expression, match="/c/{id}"):
    CASES.append(case(f"rules types {label}", rules(ruleset(
        "    match " + match + " {\n      allow get: if " + expression + ";\n    }"))))


for i, e in enumerate([
    "1 ? true : false", "1.5 ? true : false", "'a' ? true : false", "null ? true : false", "[1] ? true : false",
    "{'a': 1} ? true : false", "/databases/x ? true : false", "b'ab' ? true : false", "(1) && true", "!(1)",
    "1 && true", "true && 1", "!1", "1 || false", "request.auth != null && 1", "1", "'a'",
    "request ? true : false", "request.auth.uid ? true : false", "resource.data ? true : false",
    "id ? true : false", "database ? true : false", "id == 1", "1 == database", "'a' == id",
    "1 == 'a'", "1 == 1.5", "'a' == null", "null == null", "[1] == {'a': 1}", "[1] == [1]", "1 == true",
    "1 != 'a'", "1.0 == 'a'", "{'a':1} == 'a'", "/databases/x == 'a'", "(1 < 2) == 1", "!true == 1",
    "(1 is int) == 1", "(1 == 1) == true", "'a' is string == true", "1 < 'a'", "[1] < [2]", "1 > null",
    "1 + 1 ? true : false", "(1 + 1) ? true : false", "1 - 1 ? true : false", "1 * 2 ? true : false",
    "1 / 2 ? true : false", "1 % 2 ? true : false", "-1 ? true : false", "-(1) ? true : false",
    "-1.5 ? true : false", "1 < 2 ? true : false", "(1 + 1) == 'a'", "-1 == 'a'", "1 * 2 == 'a'",
    "1 - 1 == 'a'", "'a' - 1 == 2", "'a' * 2 == 2", "-'a' == 1", "null + 1 == 2", "[1] + [2] == [1, 2]",
    "{'a':1} + {} == {}", "/databases/x + 'a' == 'b'", "request.time - request.time == 1", "1 == -'a'",
    "'a' in 'abc'", "'a' in 1", "'a' in [1]", "'a' in {'a': 1}", "'a' in request", "'a' in null", "'x' in 1 + 1",
    "1 in request.auth.token", "'abc'.length == 1", "null.a == 1", "[1].a == 1", "'a'.size", "{'a':1}.a ? true : false",
    "'abc'[0] ? true : false", "[1][0] ? true : false", "{'a':1}['a'] ? true : false", "[1][0] == 'x'",
    "exists('/x')", "exists(1)", "get(1) != null", "exists(/databases/x) ? true : false", "get(/databases/x) ? true : false",
    "get('/databases/' + database + '/documents/o/b').data.x == 1", "debug(1) ? true : false",
    "int('1') ? true : false", "float(1) ? true : false", "string(1) ? true : false", "path('x') ? true : false",
    "'a'.lower() ? true : false", "'a'.matches('a') ? true : false", "'a'.split('a') ? true : false",
    "'abc'.size() ? true : false", "[1,2].size() ? true : false", "'a'.size() == 'x'", "'a'.size() + 1 == 2",
    "{'a':1}.keys() ? true : false", "[1].hasAny([1]) ? true : false", "request.time.year() ? true : false",
    "math.abs(1) ? true : false", "math.floor(1.5) ? true : false", "duration.value(1, 's') ? true : false",
    "duration.value(1,'s') == 1", "timestamp.date(2020,1,1) ? true : false", "timestamp.value(1) ? true : false",
    "(true ? 1 : 'a') ? true : false", "true ? 1 : 2", "1 < 'a' ? 1 : 2", "1 is int == 'x' is string",
    "debug(1 && true)", "debug('abc'.length) == 1", "debug('abc'[0]) == 1", "int('abc'[0]) == 1", "['abc'[0]] == [1]",
    "('abc'[0]) == 'a'", "'abc'[0] == 'a'", "'abc'[0:1] == 'a'", "debug(1) && true", "[1 && true] == []",
    "{'a': 1 && true} == {}", "int(1 && true) == 1", "exists(debug('x'))", "'abc'[0]",
]):
    warns(f"{i:03d} {e}", e)
for e in ["1. == 1", "1.a == 1", "1.e5 == 1", "[1.][0] == 1", "1.0.a == 1", "1.lower() == 'a'"]:
    warns(f"number then dot {e}", e)
warns("recursive wildcard as bool", "rest ? true : false", "/c/{rest=**}")
warns("recursive wildcard compared", "rest == 'a'", "/c/{rest=**}")


# Function bodies and their lets are type-checked too, once, called or not.
def warns_in(label, function, condition):
    CASES.append(case(f"rules types function {label}", rules(ruleset(
        "    match /c/{id} {\n      allow get: if " + condition + ";\n    }", functions="    " + function + "\n"))))


warns_in("unused body", "function f() { return 1 && true; }", "true")
warns_in("used body", "function f() { return 1 && true; }", "f()")
warns_in("used twice", "function f() { return 1 && true; }", "f() || f()")
warns_in("let used", "function f() { let y = 1; return y && true; }", "f()")
warns_in("let compared", "function f() { let y = 1; return y == 'a'; }", "f()")
warns_in("parameter compared", "function f(x) { return x == 'a'; }", "f(1)")
warns_in("body compares", "function f(x) { return 1 == 'a'; }", "f(1)")
warns_in("result used", "function f() { return 1; }", "f() && true")
