"""The emulator's own endpoints: clearing databases, loading and reading security rules."""
from cases.steps import case, docs, get, http, rules, seed, OWNER

CASES = []


def add(label, *steps):
    CASES.append(case(f"emulator {label}", *steps))


CLEAR = "/emulator/v1/projects/$P/databases/(default)/documents"
GOOD = "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    match /{document=**} {\n      allow read, write: if true;\n    }\n  }\n}\n"
add("clear database", seed({"c/a": {"x": 1}, "d/b": {"y": 1}}), http("DELETE", CLEAR), get("c/a"), get("d/b"))
add("clear subtree", seed({"c/a": {"x": 1}, "c/a/s/b": {"y": 1}, "c/b": {"z": 1}}), http("DELETE", CLEAR + "/c/a"), get("c/a/s/b"), get("c/b"))
add("clear collection", seed({"c/a": {"x": 1}, "d/b": {"y": 1}}), http("DELETE", CLEAR + "/c"), get("c/a"), get("d/b"))
add("clear other database only", seed({"c/a": {"x": 1}}), http("DELETE", "/emulator/v1/projects/$P/databases/other/documents"), get("c/a"))
add("clear with GET", http("GET", CLEAR))
add("clear with POST", http("POST", CLEAR, {}))
add("clear unknown project path", http("DELETE", "/emulator/v1/projects/$P"))
add("rules load clean", rules(GOOD))
add("rules load and read back", rules(GOOD), http("GET", "/emulator/v1/projects/$P:securityRules"))
add("rules read when none", http("GET", "/emulator/v1/projects/$P:securityRules"))
add("rules syntax error", rules(GOOD.replace("if true", "if foo bar")))
add("rules two syntax errors", rules(GOOD.replace("allow read, write: if true;", "allow read: if (;\n      allow write: if );")))
add("rules warning unused function", rules(GOOD.replace("    match /{document=**}", "    function f() { return true; }\n    match /{document=**}")))
add("rules warning unused variable", rules(GOOD.replace("if true", "if let x = 1 in true") if False else
                                           GOOD.replace("    match /{document=**}", "    function f(a) { return true; }\n    match /{document=**}").replace("if true", "if f(1)")))
add("rules warning invalid function", rules(GOOD.replace("if true", "if nope()")))
add("rules warning unknown variable", rules(GOOD.replace("if true", "if nope == 1")))
add("rules warning old version", rules(GOOD.replace("rules_version = '2';\n", "")))
add("rules error duplicate function", rules(GOOD.replace("    match /{document=**}", "    function f() { return true; }\n    function f() { return false; }\n    match /{document=**}").replace("if true", "if f()")))
add("rules ignore errors", http("PUT", "/emulator/v1/projects/$P:securityRules",
                                {"ignore_errors": True, "rules": {"files": [{"name": "firestore.rules", "content": GOOD.replace("if true", "if foo bar")}]}}),
    http("GET", "/emulator/v1/projects/$P:securityRules"))
add("rules empty request", http("PUT", "/emulator/v1/projects/$P:securityRules", {}))
add("rules no files", http("PUT", "/emulator/v1/projects/$P:securityRules", {"rules": {"files": []}}))
add("rules two files", http("PUT", "/emulator/v1/projects/$P:securityRules",
                            {"rules": {"files": [{"name": "a.rules", "content": GOOD}, {"name": "b.rules", "content": GOOD}]}}))
DENY = GOOD.replace("if true", "if false")
TERNARY = GOOD.replace("if true", "if 1 ? true : false")


def files(*named):
    return http("PUT", "/emulator/v1/projects/$P:securityRules",
                {"rules": {"files": [{"name": n, "content": c} for n, c in named]}})


add("rules two files first enforced", files(("a.rules", GOOD), ("b.rules", DENY)), get("c/a"))
add("rules two files first denies", files(("b.rules", DENY), ("a.rules", GOOD)), get("c/a"),
    http("GET", "/emulator/v1/projects/$P:securityRules"))
add("rules two files second broken", files(("a.rules", GOOD), ("c.rules", "garbage")), get("c/a"),
    http("GET", "/emulator/v1/projects/$P:securityRules"))
add("rules two files second warns", files(("a.rules", GOOD), ("t.rules", TERNARY)))
add("rules two files same name", files(("a.rules", GOOD), ("a.rules", DENY)), get("c/a"))
for label, source in [("word", "garbage"), ("word after version", "rules_version = '2'; garbage"),
                      ("word after function", "rules_version = '2';\nfunction f() { return true; }\ngarbage"),
                      ("service alone", "service"), ("number", "42"), ("match at top", "match /x/{y} {}"),
                      ("string", "'str'"), ("version alone", "rules_version = '2';"),
                      ("word after service", GOOD + "garbage")]:
    add(f"rules syntax {label}", rules(source))
add("export database name malformed", http("POST", "/emulator/v1/projects/$P:export",
                                           {"database": "projects/$P/databases", "export_directory": "/tmp/hearth-differential-export"}))
add("export database name relative", http("POST", "/emulator/v1/projects/$P:export",
                                          {"database": "nope", "export_directory": "/tmp/hearth-differential-export"}))
# firebase-tools' own bodies (v15.28.1: hubExport.ts exportFirestore, firestoreEmulator.ts updateRules).
add("export firebase-tools body", seed({"c/a": {"x": 1}}),
    http("POST", "/emulator/v1/projects/$P:export", {"database": "projects/$P/databases/(default)", "export_directory": "/tmp",
                                                      "export_name": "hearth-differential-suite-export"}))
add("export firebase-tools body directory missing",
    http("POST", "/emulator/v1/projects/$P:export", {"database": "projects/$P/databases/(default)",
                                                      "export_directory": "/tmp/hearth-differential-no-such-directory",
                                                      "export_name": "firestore_export"}))
add("rules hot reload firebase-tools body", http("PUT", "/emulator/v1/projects/$P:securityRules",
    {"ignore_errors": True, "rules": {"files": [{"name": "security.rules", "content": GOOD}]}}))
add("rules bad json", http("PUT", "/emulator/v1/projects/$P:securityRules", "{nope"))
add("rules empty content", rules(""))
add("rules POST", http("POST", "/emulator/v1/projects/$P:securityRules", {"rules": {"files": [{"name": "f", "content": GOOD}]}}))
add("rules then owner bypasses", rules(GOOD.replace("if true", "if false")), seed({"c/a": {"x": 1}}), get("c/a", auth=OWNER))
add("rules deny unauthenticated", rules(GOOD.replace("if true", "if request.auth != null")), get("c/a"))
add("rules allow mocked user", rules(GOOD.replace("if true", "if request.auth.uid == 'alice'")), get("c/a", auth={"uid": "alice"}))
add("rules deny other mocked user", rules(GOOD.replace("if true", "if request.auth.uid == 'alice'")), get("c/a", auth={"uid": "bob"}))
add("rules token claims", rules(GOOD.replace("if true", "if request.auth.token.admin == true && request.auth.token.email == 'a@b.c'")),
    get("c/a", auth={"uid": "u", "admin": True, "email": "a@b.c"}), get("c/a", auth={"uid": "u", "admin": False}))
add("rules token without sub", rules(GOOD.replace("if true", "if request.auth.uid == 'alice'")),
    get("c/a", auth="Bearer eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJ1c2VyX2lkIjoiYWxpY2UifQ."))
add("rules broken then request", http("PUT", "/emulator/v1/projects/$P:securityRules",
                                      {"ignoreErrors": True, "rules": {"files": [{"name": "f", "content": GOOD.replace("if true", "if (")}]}}),
    get("c/a"), get("c/a", auth=OWNER))
add("rules replaced", rules(GOOD.replace("if true", "if false")), get("c/a"), rules(GOOD), get("c/a"))
