#!/usr/bin/env python3
"""Drives hearth's web console in headless Chromium against a running `hearth serve` (started
with the documented apps' seeds and rules), with the official Python client (gRPC) and plain
REST on the side, and prints one line per check and a summary; exit status 1 on a failure.

  python3 console_browser_check.py --console http://127.0.0.1:4000/ui/ --emulator 127.0.0.1:8080 \
      [--screenshots DIR] [--large 100000]

Checks: the tree shows the seed's collections; a field edited in the console reads back
through REST with its type; a document written through gRPC appears live; a request denied by
the rules shows its verdict, the allow lines evaluated and debug() output; a 100,000-document
collection opens at once and pages by cursor; the query panel reports a needed composite index
with its JSON; the rules panel shows coverage and a file that does not compile with its errors
in place; the listeners panel shows an open Listen stream and its target; snapshots, export
and import, and the clock work from the database panel. With --screenshots, a PNG of each panel goes there.
Needs: selenium and google-cloud-firestore (pip), chromium and chromium-driver (Debian).
"""
import argparse, base64, json, os, sys, tempfile, time, urllib.request, urllib.error

from google.cloud import firestore
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

APP = "demo-bucketlist"
APP_DB = f"projects/{APP}/databases/(default)"
LARGE = "demo-large"
LARGE_DB = f"projects/{LARGE}/databases/(default)"

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"PASS {name}", flush=True)
    else:
        failed += 1
        print(f"FAIL {name}" + (f" -- {detail}" if detail else ""), flush=True)


def rest(emulator, method, path, body=None, token="owner"):
    """A REST call to the emulator; returns (status, json)."""
    req = urllib.request.Request(f"http://{emulator}{path}", method=method,
                                 data=json.dumps(body).encode() if body is not None else None)
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def user_token(uid):
    """An unsigned JWT (alg none), as the emulators accept for a signed-in user."""
    enc = lambda o: base64.urlsafe_b64encode(json.dumps(o).encode()).rstrip(b"=").decode()
    return f'{enc({"alg": "none", "typ": "JWT"})}.{enc({"sub": uid, "user_id": uid, "iss": "https://securetoken.google.com/" + APP, "aud": APP})}.'


class Console:
    def __init__(self, driver, base, shots):
        self.d, self.base, self.shots = driver, base.rstrip("/") + "/", shots

    def open(self, fragment=""):
        self.d.get(self.base + fragment)
        self.wait_css("#live.on", timeout=20)

    def goto(self, fragment):
        self.d.execute_script("location.hash = arguments[0]", fragment)

    def wait(self, predicate, timeout=15, what="condition"):
        try:
            # An element the page re-renders between finding and reading it is stale: look again.
            return WebDriverWait(self.d, timeout, poll_frequency=0.05,
                                 ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: predicate())
        except TimeoutException:
            raise AssertionError(f"timed out waiting for {what}")

    def wait_css(self, css, timeout=15, text=None):
        def found():
            for el in self.d.find_elements(By.CSS_SELECTOR, css):
                if text is None or text in el.text:
                    return el
            return None
        return self.wait(found, timeout, f"{css}" + (f" containing {text!r}" if text else ""))

    def css(self, css):
        return self.d.find_elements(By.CSS_SELECTOR, css)

    def click(self, css, script=None):
        """Clicks the first element matching `css` (or runs `script` on it), looking again when
        a live update redrew it between finding and clicking."""
        def attempt():
            try:
                el = self.wait_css(css)
                if script:
                    self.d.execute_script(script, el)
                else:
                    el.click()
                return True
            except StaleElementReferenceException:
                return False
        self.wait(attempt, what=f"clicking {css}")

    def texts(self, css):
        """The texts of the elements matching `css`, read in the page (no stale references)."""
        return self.d.execute_script("return [...document.querySelectorAll(arguments[0])].map((e) => e.innerText)", css)

    def dialog_ok(self):
        self.wait_css("dialog[open] button.primary").click()
        self.wait(lambda: not self.css("dialog[open]"), what="the dialog to close")

    def shot(self, name):
        if self.shots:
            self.d.execute_script("document.getElementById('toast').hidden = true")
            time.sleep(0.3)  # let the last rows paint
            self.d.save_screenshot(os.path.join(self.shots, f"{name}.png"))


def run(args):
    client = firestore.Client(project=APP)  # gRPC to FIRESTORE_EMULATOR_HOST, as the owner
    large = firestore.Client(project=LARGE)

    # A 100,000-document collection in a project of its own, written through gRPC.
    t0 = time.time()
    for start in range(0, args.large, 500):
        batch = large.batch()
        for i in range(start, min(start + 500, args.large)):
            batch.set(large.collection("big").document(f"d{i:06d}"), {"n": i, "even": i % 2 == 0})
        batch.commit()
    print(f"  wrote {args.large:,} documents through gRPC in {time.time() - t0:.1f} s", flush=True)

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1440,900"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    c = Console(driver, args.console, args.screenshots)
    watch = None
    try:
        # 1. The tree shows the seed's projects and collections.
        c.open(f"#data?database={APP_DB}&path=")
        c.wait_css(f'#database-tree a[data-database="{APP_DB}"]')
        names = [el.text for el in c.wait_css("#collection-list") and c.css("#collection-list li")]
        check("the tree shows the seed's collections", {"goals", "progress_updates", "threads_users"} <= set(names), names)
        check("every documented app's project is in the tree", len(c.css("#database-tree details")) >= 5)

        # 2. Edit a field in the console, read it back through REST.
        c.goto(f"#data?database={APP_DB}&path=goals/g-alice-10k")
        c.wait_css("#document-body .field .key", text="title")
        c.click('#document-body .field[data-path=\'["title"]\'] .row', "arguments[0].querySelector('.edit-field').click()")
        box = c.wait_css("dialog[open] textarea.value-input")
        box.clear()
        box.send_keys("Run a half marathon")
        c.dialog_ok()
        c.wait_css("#document-body .v-string", text="Run a half marathon")
        status, doc = rest(args.emulator, "GET", f"/v1/{APP_DB}/documents/goals/g-alice-10k")
        check("an edited string field reads back through REST", doc.get("fields", {}).get("title") == {"stringValue": "Run a half marathon"}, doc)
        c.click('#document-body .field[data-path=\'["updateCount"]\'] .row', "arguments[0].querySelector('.edit-field').click()")
        box = c.wait_css("dialog[open] input.value-input")
        box.clear()
        box.send_keys("9007199254740993")  # 2^53 + 1: only an integer encoding keeps it
        c.dialog_ok()
        c.wait_css("#document-body .v-integer", text="9007199254740993")
        status, doc = rest(args.emulator, "GET", f"/v1/{APP_DB}/documents/goals/g-alice-10k")
        check("an edited integer keeps its type and all 64 bits", doc["fields"].get("updateCount") == {"integerValue": "9007199254740993"}, doc["fields"].get("updateCount"))
        # Add a nested field with the type-aware editor, then delete it.
        c.click("#add-field")
        c.wait_css("#new-field-name").send_keys("meta.where")
        Select(c.wait_css("dialog[open] select.type-select")).select_by_value("geopoint")
        lat, lng = c.css("dialog[open] input.value-input")[:2]
        lat.clear(); lat.send_keys("48.85"); lng.clear(); lng.send_keys("2.35")
        c.dialog_ok()
        c.wait_css("#document-body .v-geopoint")
        status, doc = rest(args.emulator, "GET", f"/v1/{APP_DB}/documents/goals/g-alice-10k")
        check("a nested geopoint added in the console reads back through REST",
              doc["fields"].get("meta") == {"mapValue": {"fields": {"where": {"geoPointValue": {"latitude": 48.85, "longitude": 2.35}}}}}, doc["fields"].get("meta"))
        c.shot("data")
        c.click('#document-body .field[data-path=\'["meta"]\'] .row', "window.confirm = () => true; arguments[0].querySelector('.delete-field').click()")
        c.wait(lambda: not c.css('#document-body .field[data-path=\'["meta"]\']'), what="the deleted field to go")
        status, doc = rest(args.emulator, "GET", f"/v1/{APP_DB}/documents/goals/g-alice-10k")
        check("a field deleted in the console is gone through REST", "meta" not in doc["fields"], doc["fields"].keys())

        # 3. A document written through gRPC appears live in the open collection.
        c.goto(f"#data?database={APP_DB}&path=goals")
        c.wait_css('#document-list li[data-document="goals/g-alice-10k"]')
        before = time.time()
        client.collection("goals").document("g-zz-live").set({"userId": "zed", "title": "Appears live", "updateCount": 0,
                                                               "createdAt": firestore.SERVER_TIMESTAMP})
        c.wait_css('#document-list li[data-document="goals/g-zz-live"]', timeout=10)
        check("a document written through gRPC appears live", True)
        print(f"  it appeared {1000 * (time.time() - before):.0f} ms after the commit was sent", flush=True)

        # 4. A request denied by the rules shows its verdict and the allow lines.
        c.goto("#requests")
        c.wait_css("#request-table")
        status, _ = rest(args.emulator, "PATCH", f"/v1/{APP_DB}/documents/goals/g-alice-10k?updateMask.fieldPaths=title",
                         {"fields": {"title": {"stringValue": "bob was here"}}}, token=user_token("bob"))
        check("bob's update of alice's goal is denied", status == 403, status)
        Select(c.css("#filter-verdict")[0]).select_by_value("deny")
        c.css("#filter-caller")[0].send_keys("bob")
        text = c.wait(lambda: next(iter(c.texts('#request-rows tr.entry[data-verdict="deny"]')), None), what="the denied request")
        check("the denied request is listed as DENY for bob", "DENY" in text and "bob" in text, text)
        c.click('#request-rows tr.entry[data-verdict="deny"]')
        detail = c.wait(lambda: next(iter(c.texts("#request-rows tr.detail")), None), what="the request's detail")
        check("its verdict shows the allow statement evaluated, with its line", "L45" in detail and "allow update: false" in detail, detail)
        c.shot("requests")
        c.click("#request-rows tr.detail a.open-document")
        c.wait_css("#document-column h2", text="g-alice-10k")
        check("the request links through to its document", "path=goals%2Fg-alice-10k" in driver.current_url or "path=goals/g-alice-10k" in driver.current_url, driver.current_url)

        # 5. The 100,000-document collection opens at once and pages by cursor.
        t = time.time()
        c.goto(f"#data?database={LARGE_DB}&path=big")
        c.wait_css('#document-list li[data-document="big/d000000"]', timeout=20)
        opened = time.time() - t
        head = c.wait_css("#documents-column .column-head h2")
        check(f"the {args.large:,}-document collection opens with its count", f"({args.large:,})" in head.text, head.text)
        print(f"  opened in {opened * 1000:.0f} ms", flush=True)
        check("a page holds 50 documents", len(c.css("#document-list li")) == 50)
        c.click("#next-page")
        c.wait_css('#document-list li[data-document="big/d000050"]')
        check("Next shows the following page", c.css("#document-list li")[0].text == "d000050")
        c.click("#previous-page")
        c.wait_css('#document-list li[data-document="big/d000000"]')
        check("Prev comes back", c.css("#document-list li")[-1].text == "d000049")
        jump = c.css("#jump-to-id")[0]
        jump.send_keys(f"d{args.large - 20:06d}", Keys.ENTER)
        c.wait_css(f'#document-list li[data-document="big/d{args.large - 1:06d}"]')
        check("going to an id near the end shows the last page, with Next disabled", not c.css("#next-page")[0].is_enabled())
        c.click("#document-list li:nth-child(4)")
        c.wait_css("#document-body .field .key", text="even")
        c.shot("data-large")

        # 6. The query panel: results and the composite index production would need.
        c.goto("#query")
        Select(c.wait_css("#query-database")).select_by_value(APP_DB)
        coll = c.css("#query-collection")[0]
        coll.clear(); coll.send_keys("goals")
        c.css("#add-filter")[0].click()
        c.css("#query-filters .filter-field")[0].send_keys("category")
        c.css("#query-filters textarea.value-input")[0].send_keys("Fitness")
        c.css("#add-order")[0].click()
        c.css("#query-orders .order-field")[0].send_keys("createdAt")
        Select(c.css("#query-orders .order-direction")[0]).select_by_value("DESCENDING")
        c.css("#run-query")[0].click()
        box = c.wait_css("#index-analysis.needed")
        index_json = c.wait_css("#index-json").text
        check("a query needing a composite index says so, with the index's JSON",
              '"collectionGroup": "goals"' in index_json and '"fieldPath": "category"' in index_json and '"order": "DESCENDING"' in index_json, index_json)
        c.shot("query")
        for el in c.css("#query-filters button.icon, #query-orders button.icon"):
            el.click()
        c.css("#run-query")[0].click()
        c.wait_css("#index-analysis.served")
        count = c.wait_css("#query-count").text
        check("a query production serves runs and lists its documents", int(count.split()[0]) >= 25, count)

        # 7. Rules: load a rules file with debug() for the large project, see a denial's debug output.
        c.goto(f"#rules?project={LARGE}")
        c.wait_css("#no-rules")
        c.css("#edit-rules")[0].click()
        editor = c.wait_css("#rules-editor")
        rules = ("rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n"
                 "    match /big/{id} {\n      allow read: if debug(request.auth) != null && resource.data.even;\n"
                 "      allow write: if false;\n    }\n  }\n}\n")
        driver.execute_script("arguments[0].value = arguments[1]", editor, rules)
        c.css("#deploy-rules")[0].click()
        c.wait_css("#rules-source")
        status, _ = rest(args.emulator, "GET", f"/v1/{LARGE_DB}/documents/big/d000001", token=None)
        check("a signed-out read under the new rules is denied", status == 403, status)
        status, _ = rest(args.emulator, "GET", f"/v1/{LARGE_DB}/documents/big/d000002", token=user_token("carol"))
        check("carol's read of an even document is allowed", status == 200, status)
        c.wait_css('#rules-source .line[data-line="5"][data-hits]', timeout=10)
        c.wait(lambda: c.css('#rules-source .line[data-line="5"]')[0].get_attribute("data-hits") not in ("", "0"), what="coverage of line 5")
        check("the rules source shows coverage per line", True)
        c.css("#edit-rules")[0].click()  # fold the editor away for the picture
        c.shot("rules")
        c.goto("#requests")
        Select(c.wait_css("#filter-verdict")).select_by_value("deny")
        c.css("#filter-caller")[0].clear()
        c.css("#filter-path")[0].send_keys("big/d000001")
        c.click('#request-rows tr.entry[data-verdict="deny"]')
        detail = c.wait(lambda: next(iter(c.texts("#request-rows tr.detail .debug")), None), what="the debug() output")
        check("the denial shows debug() output", "debug()" in detail and "null" in detail.lower(), detail)
        # A file that does not compile shows its errors in place and is not loaded.
        c.goto(f"#rules?project={LARGE}")
        c.wait_css("#rules-source")
        broken = os.path.join(tempfile.mkdtemp(), "broken.rules")
        with open(broken, "w") as f:
            f.write(rules.replace("resource.data.even;", "resource.data.even &&;"))
        c.css("#rules-file")[0].send_keys(broken)
        err = c.wait_css("#rules-compile-error")
        issue = c.wait_css("#rules-source .issue")
        check("a rules file that does not compile shows its error under its line", "not loaded" in err.text and "^" in issue.text, issue.text)
        status, _ = rest(args.emulator, "GET", f"/v1/{LARGE_DB}/documents/big/d000002", token=user_token("carol"))
        check("the previous rules stay in force", status == 200, status)

        # 8. Listeners: an open Listen stream with its target.
        events = []
        watch = client.collection("goals").where(filter=firestore.FieldFilter("userId", "==", "alice")).on_snapshot(lambda *a: events.append(a))
        c.goto("#listeners")
        # The table is redrawn on every change of the streams: read it, then look again.
        text = c.wait(lambda: next((t for t in c.texts("#stream-rows tr[data-kind=Listen] .target") if "userId" in t), None),
                      timeout=15, what="the Listen target")
        check("the listeners panel shows the open Listen stream and its query", "goals" in text and "alice" in text, text)
        c.shot("listeners")
        watch.unsubscribe()
        watch = None
        c.wait(lambda: not c.css("#stream-rows tr[data-kind=Listen]"), timeout=15, what="the Listen stream to close")
        check("a closed Listen stream leaves the panel", True)

        # 9. Faults: one set through the endpoint is listed with its counts; Clear all removes it.
        rest(args.emulator, "POST", "/emulator/v1/projects/demo-console/faults", {"method": "RunQuery", "delay": 1, "times": 5})
        c.goto("#faults")
        row = c.wait(lambda: next((t for t in c.texts("#fault-rows tr[data-fault]") if "RunQuery" in t), None), timeout=15, what="the fault row")
        check("the faults panel lists the injected fault", "delay 1 ms" in row and "5 of 5 left" in row, row)
        c.shot("faults")
        c.css("#clear-faults")[0].click()
        c.wait(lambda: not c.css("#fault-rows tr[data-fault]"), timeout=15, what="the faults to clear")
        check("Clear all removes the faults", rest(args.emulator, "GET", "/emulator/v1/projects/demo-console/faults")[1].get("faults") == [])

        # 10. Database actions: snapshot and restore, the clock.
        c.goto("#database")
        Select(c.wait_css("#actions-database")).select_by_value(APP_DB)
        c.css("#take-snapshot")[0].click()
        snap = c.wait_css("#snapshot-list [data-snapshot]")
        rest(args.emulator, "DELETE", f"/v1/{APP_DB}/documents/goals/g-zz-live")
        driver.execute_script("window.confirm = () => true")
        snap.find_element(By.CSS_SELECTOR, ".restore-snapshot").click()
        c.wait(lambda: rest(args.emulator, "GET", f"/v1/{APP_DB}/documents/goals/g-zz-live")[0] == 200, what="the restore")
        check("restoring a snapshot brings a deleted document back", True)
        folder = tempfile.mkdtemp()
        c.css("#export-directory")[0].send_keys(folder)
        c.css("#export-name")[0].send_keys("console_export")
        c.css("#export-database")[0].click()
        metadata = os.path.join(folder, "console_export", "console_export.overall_export_metadata")
        c.wait(lambda: os.path.exists(metadata), what="the export's metadata file")
        check("export writes the official export layout", os.path.exists(metadata))
        rest(args.emulator, "DELETE", f"/v1/{APP_DB}/documents/goals/g-zz-live")
        check("the import path is filled in from the export", c.css("#import-path")[0].get_attribute("value") == metadata)
        c.css("#import-data")[0].click()
        c.wait(lambda: rest(args.emulator, "GET", f"/v1/{APP_DB}/documents/goals/g-zz-live")[0] == 200, what="the import")
        check("importing the export brings a deleted document back", True)
        t = c.css("#clock-time")[0]
        t.clear(); t.send_keys("2030-01-01T00:00:00Z")
        c.css("#set-clock")[0].click()
        c.wait_css("#clock-now", text="2030-01-01T00:00:00Z")
        check("the clock is set from the console", rest(args.emulator, "GET", "/emulator/v1/clock")[1].get("manual") is True)
        c.shot("database")
        c.css("#release-clock")[0].click()
        c.wait_css("#clock-now", text="(system)")

        # The refused rules file's 400 is expected; anything else is not.
        severe = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"
                  and not (":securityRules" in e["message"] and "400" in e["message"])]
        check("the browser logged no errors", not severe, severe[:3])
    except AssertionError as e:
        check("console flow", False, str(e))
        if args.screenshots:
            driver.save_screenshot(os.path.join(args.screenshots, "failure.png"))
    finally:
        if watch:
            watch.unsubscribe()
        driver.quit()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--console", required=True, help="the console's URL, http://host:port/ui/")
    ap.add_argument("--emulator", required=True, help="host:port of the Firestore APIs")
    ap.add_argument("--screenshots", help="folder for a PNG of each panel")
    ap.add_argument("--large", type=int, default=100_000, help="documents in the large collection")
    args = ap.parse_args()
    if args.screenshots:
        os.makedirs(args.screenshots, exist_ok=True)
    os.environ["FIRESTORE_EMULATOR_HOST"] = args.emulator
    run(args)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
