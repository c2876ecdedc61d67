#!/usr/bin/env python3
"""Runs check.js in headless Chromium against a running `hearth serve`, for each SDK
version and connection mode asked, and prints one line per check and a summary.

The page is served from its own port (another origin, so CORS is exercised). The SDK
builds are NOT part of this repository: pass --sdk DIR holding <version>/firebase-app.js
and <version>/firebase-firestore.js.

  python3 run.py --sdk /tmp/sdk --port 8080 --versions 10 11 12 --modes default longpoll autodetect-off
Needs: selenium (pip), chromium and chromium-driver (Debian).
"""
import argparse, functools, http.server, os, sys, threading, time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

HERE = os.path.dirname(os.path.abspath(__file__))


class Handler(http.server.SimpleHTTPRequestHandler):
    sdk = None

    def translate_path(self, path):
        path = path.split('?', 1)[0]
        if path.startswith('/sdk/'):
            return os.path.join(self.sdk, path[len('/sdk/'):])
        return os.path.join(HERE, path.lstrip('/'))

    def log_message(self, *args):
        pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--sdk', required=True)
    ap.add_argument('--port', type=int, default=8080, help='the port of hearth serve')
    ap.add_argument('--web-port', type=int, default=0)
    ap.add_argument('--versions', nargs='+', default=['12'])
    ap.add_argument('--modes', nargs='+', default=['default', 'longpoll', 'autodetect-off'])
    ap.add_argument('--timeout', type=float, default=300)
    ap.add_argument('--console', action='store_true', help="print the browser console's errors")
    ap.add_argument('--only', default='', help='run only the checks whose name contains this')
    ap.add_argument('--debug', action='store_true', help="the SDK's debug log (with --console)")
    args = ap.parse_args()

    Handler.sdk = os.path.abspath(args.sdk)
    web = http.server.ThreadingHTTPServer(('127.0.0.1', args.web_port), Handler)
    threading.Thread(target=web.serve_forever, daemon=True).start()
    origin = 'http://127.0.0.1:%d' % web.server_address[1]

    options = webdriver.ChromeOptions()
    options.binary_location = '/usr/bin/chromium'
    for flag in ('--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'):
        options.add_argument(flag)
    options.set_capability('goog:loggingPrefs', {'browser': 'ALL'})
    driver = webdriver.Chrome(service=Service('/usr/bin/chromedriver'), options=options)
    passed = failed = 0
    try:
        for version in args.versions:
            for mode in args.modes:
                run = 'r%d%s%s' % (int(time.time() * 1000) % 10**9, version, mode[:2])
                url = '%s/index.html?v=%s&mode=%s&port=%d&run=%s' % (origin, version, mode, args.port, run)
                if args.only:
                    url += '&only=' + args.only
                if args.debug:
                    url += '&debug=1'
                driver.get(url)
                deadline = time.time() + args.timeout
                while time.time() < deadline and not driver.execute_script('return window.__done === true'):
                    time.sleep(0.5)
                results = driver.execute_script('return window.__results || []')
                if not driver.execute_script('return window.__done === true'):
                    results.append({'name': 'page finished in time', 'ok': False, 'detail': 'timeout'})
                for r in results:
                    status = 'PASS' if r['ok'] else 'FAIL'
                    passed += r['ok']
                    failed += not r['ok']
                    detail = '' if r['ok'] else ' -- ' + r['detail'].splitlines()[0][:300] if r['detail'] else ''
                    print('%s sdk=%s mode=%s %s%s' % (status, version, mode, r['name'], detail), flush=True)
                if args.console and (not args.debug or any(not r['ok'] for r in results)):
                    for entry in driver.get_log('browser'):
                        if entry['level'] in ('SEVERE', 'WARNING') or args.debug:
                            print('  console: ' + entry['message'][:400], flush=True)
    finally:
        driver.quit()
        web.shutdown()
    print('%d passed, %d failed' % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
