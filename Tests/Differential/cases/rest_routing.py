"""How REST requests are routed and read: methods, verbs, paths, encodings, query strings,
content types, resource names in bodies, project and database ids, CORS."""
from cases.steps import case, docs, get, http, name, patch, seed, to_fields, OWNER

CASES = []


def add(label, *steps):
    CASES.append(case(label, *steps))


D = "/v1/projects/$P/databases/(default)/documents"
add("root", http("GET", "/"))
add("unknown path", http("GET", "/nope"))
add("v1 without documents", http("GET", "/v1/projects/$P/databases/(default)"))
add("v1 project only", http("GET", "/v1/projects/$P"))
add("unknown verb", docs("POST", ":frobnicate", {}))
add("verb with GET", docs("GET", ":runQuery"))
add("listen verb", docs("POST", ":listen", {}))
add("write verb", docs("POST", ":write", {}))
add("partitionQuery", docs("POST", ":partitionQuery", {"structuredQuery": {"from": [{"collectionId": "c"}]}}))
add("executePipeline", docs("POST", ":executePipeline", {}))
add("PUT on document", docs("PUT", "/c/a", {"fields": {}}))
add("HEAD on document", seed({"c/a": {"x": 1}}), docs("HEAD", "/c/a"))
add("OPTIONS preflight", http("OPTIONS", D + "/c/a", headers={"Origin": "http://example.com", "Access-Control-Request-Method": "PATCH",
                                                                  "Access-Control-Request-Headers": "content-type,authorization"},
                                compare_headers=["access-control-allow-origin", "access-control-allow-methods",
                                                 "access-control-allow-headers", "access-control-allow-credentials"]))
add("CORS on error", http("GET", D + "/c/missing", headers={"Origin": "http://example.com"},
                          compare_headers=["access-control-allow-origin", "access-control-allow-credentials"]))
add("CORS on success", seed({"c/a": {"x": 1}}), http("GET", D + "/c/a", headers={"Origin": "http://example.com"},
                                                     compare_headers=["access-control-allow-origin", "access-control-allow-credentials"]))
add("POST on document path", docs("POST", "/c/a", {"fields": {}}))
add("DELETE on collection path", seed({"c/a": {"x": 1}}), docs("DELETE", "/c"))
add("GET on database path", seed({"c/a": {"x": 1}}), http("GET", "/v1/projects/$P/databases/(default)/documents"))
add("encoded slash in id", seed({"c/a/b/d": {"x": 1}}), docs("GET", "/c/a%2Fb"))
add("encoded slash in id PATCH", docs("PATCH", "/c/a%2Fb%2Fd", {"fields": {}}), get("c/a/b/d"))
add("encoded parentheses database", http("GET", "/v1/projects/$P/databases/%28default%29/documents/c/a"))
add("encoded percent in id", seed({"c/a%b": {"x": 1}}), docs("GET", "/c/a%25b"))
add("double slash", docs("GET", "//c/a"))
add("trailing slash on document", seed({"c/a": {"x": 1}}), docs("GET", "/c/a/"))
add("named database", http("PATCH", "/v1/projects/$P/databases/other/documents/c/a", {"fields": to_fields({"x": 1})}),
    http("GET", "/v1/projects/$P/databases/other/documents/c/a"), get("c/a"))
add("database id invalid characters", http("GET", "/v1/projects/$P/databases/Bad_DB/documents/c/a"))
add("database id too short", http("GET", "/v1/projects/$P/databases/ab/documents/c/a"))
add("database id uppercase", http("GET", "/v1/projects/$P/databases/ABC/documents/c/a"))
add("project id uppercase", http("GET", "/v1/projects/DEMO-X/databases/(default)/documents/c/a"))
add("project id with dot", http("GET", "/v1/projects/demo.x/databases/(default)/documents/c/a"))
add("project id empty", http("GET", "/v1/projects//databases/(default)/documents/c/a"))
add("query string repeated key", seed({"c/a": {"x": 1, "y": 2}}), get("c/a", "mask.fieldPaths=x&mask.fieldPaths=y&mask.fieldPaths=x"))
add("query string unknown parameter", seed({"c/a": {"x": 1}}), get("c/a", "bogus=1"))
add("query string empty value", seed({"c/a": {"x": 1}}), get("c/a", "mask.fieldPaths="))
add("query string no value", seed({"c/a": {"x": 1}}), get("c/a", "mask.fieldPaths"))
add("query string plus as space", seed({"c/a": {"a b": 1}}), get("c/a", "mask.fieldPaths=%60a+b%60"))
add("query string bad percent", seed({"c/a": {"x": 1}}), get("c/a", "mask.fieldPaths=%zz"))
add("query string key", seed({"c/a": {"x": 1}}), get("c/a", "key=abc"))
add("query string alt json", seed({"c/a": {"x": 1}}), get("c/a", "alt=json"))
add("query string prettyPrint false", seed({"c/a": {"x": 1}}), get("c/a", "prettyPrint=false"))
add("query string fields selector", seed({"c/a": {"x": 1}}), get("c/a", "fields=name"))
add("pageSize not a number", seed({"c/a": {"x": 1}}), get("c", "pageSize=abc", timeout=3))
add("content type form", docs("POST", ":commit", "writes=1", headers={"Content-Type": "application/x-www-form-urlencoded"}))
add("content type text", docs("POST", ":commit", '{"writes": []}', headers={"Content-Type": "text/plain"}))
add("content type missing", docs("POST", ":commit", '{"writes": []}', headers={"Content-Type": None}))
add("content type json charset", docs("POST", ":commit", '{"writes": []}', headers={"Content-Type": "application/json; charset=utf-8"}))
add("create form content type", docs("POST", "/c?documentId=f", '{"fields": {"x": {"integerValue": "1"}}}',
                                     headers={"Content-Type": "application/x-www-form-urlencoded"}), get("c/f"))
add("create form content type auto id", docs("POST", "/c", '{"fields": {}}', headers={"Content-Type": "application/x-www-form-urlencoded"}))
add("runQuery form content type", seed({"c/a": {"x": 1}}), docs("POST", ":runQuery", '{"structuredQuery": {"from": [{"collectionId": "c"}]}}',
                                                                headers={"Content-Type": "application/x-www-form-urlencoded"}))
add("PATCH form content type", docs("PATCH", "/c/a", '{"fields": {}}', headers={"Content-Type": "application/x-www-form-urlencoded"}))
add("body null", docs("POST", ":commit", "null"))
add("body array", docs("POST", ":commit", "[]"))
add("body empty", docs("POST", ":commit", ""))
add("body trailing garbage", docs("POST", ":commit", '{"writes": []} x'))
add("body duplicate keys", docs("POST", ":commit", '{"writes": [], "writes": []}'))
add("body snake case", docs("POST", ":batchGet", {"documents": [], "read_time": "2001-01-01T00:00:00Z"}))
add("body database mismatch", docs("POST", ":batchGet", {"database": "projects/other/databases/(default)", "documents": []}, timeout=3))
add("body database equal", docs("POST", ":batchGet", {"database": "projects/$P/databases/(default)", "documents": []}))
add("body parent mismatch", docs("POST", ":runQuery", {"parent": "projects/other/databases/(default)/documents",
                                                      "structuredQuery": {"from": [{"collectionId": "c"}]}}, timeout=3))
add("body name wrong type", docs("PATCH", "/c/a", {"name": 5, "fields": {}}, timeout=3))
add("expect 100-continue", docs("PATCH", "/c/a", {"fields": to_fields({"x": 1})}, headers={"Expect": "100-continue"}), get("c/a"))
add("authorization basic", seed({"c/a": {"x": 1}}), get("c/a", auth="Basic abc"))
add("authorization bare bearer", seed({"c/a": {"x": 1}}), get("c/a", auth="Bearer"))
add("authorization garbage token", seed({"c/a": {"x": 1}}), get("c/a", auth="Bearer abc.def"))
add("authorization owner", seed({"c/a": {"x": 1}}), get("c/a", auth=OWNER))
add("authorization user without rules", seed({"c/a": {"x": 1}}), get("c/a", auth={"uid": "alice"}))
add("raw backquote in query", seed({"c/a": {"a.b": 1}}), get("c/a", "mask.fieldPaths=`a.b`", timeout=3))
