#!/usr/bin/python3
"""The analyst's page in a real browser: headless Chromium driven through chromedriver's WebDriver
HTTP API (no client library). A campaign with finished, running and pending runs is served by
`sgai sweep serve`; the page's counts must equal COUNT queries on the campaign database, and
clicking Suggest then Accept must add exactly the suggested runs there as queued. At most 20 s.
When chromedriver refuses the session, the failure shows chromedriver's answer and the last lines
of its log and Chromium's own (Chromium logs to chromedriver's standard error).
Usage (from the repository root): SGAI=build/tools/sgai sweep_page_test.py [SCREENSHOT.png]
SWEEP_PAGE_CHROMIUM names another browser binary (cli.sweep_page_diagnostics gives a broken one)."""
import base64
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

T0 = time.monotonic()
SGAI = os.path.realpath(os.environ["SGAI"])
# SWEEP_PAGE_CAMPAIGN and SWEEP_PAGE_RUNS choose another campaign (docs/sweep.md's screenshot)
CAMPAIGN = os.environ.get("SWEEP_PAGE_CAMPAIGN", "deploy/campaigns/quickstart-backfill.json")
RUNS = int(os.environ.get("SWEEP_PAGE_RUNS", "6"))
procs = []


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(method, url, body=None, timeout=10):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read() or b"null")


def tail(path, lines=30):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError as e:
        return "(%s)" % e


def new_session(wd, caps, tmp):
    """A WebDriver session; on chromedriver's refusal, fails with its answer and both logs."""
    try:
        return http("POST", wd + "/session", caps, timeout=30)["value"]["sessionId"]
    except urllib.error.HTTPError as e:
        body = e.read().decode(errors="replace")
        try:
            body = json.loads(body)["value"].get("message", body)
        except (ValueError, AttributeError, KeyError):
            pass
        err = tail(os.path.join(tmp, "chromedriver.err"))
        fail("chromedriver refused the session: HTTP %d: %s\n--- chromedriver's log with Chromium's own lines "
             "(--enable-chrome-logs), last lines ---\n%s%s"
             % (e.code, body, tail(os.path.join(tmp, "chromedriver.log")),
                "--- chromedriver's standard error ---\n" + err if err.strip() else ""))


def wait_for(what, check, seconds=8):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            v = check()
            if v:
                return v
        except Exception:  # not up yet
            pass
        time.sleep(0.1)
    fail("timed out waiting for " + what)


def main():
    tmp = tempfile.mkdtemp()
    try:
        run(tmp)
    finally:
        for p in procs:
            p.terminate()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(tmp, ignore_errors=True)


def run(tmp):
    d = os.path.join(tmp, "c")
    db = os.path.join(d, "campaign.sqlite")
    # RUNS finished runs, 2 accepted by hand (pending), and one shown as running
    subprocess.run([SGAI, "sweep", "run", CAMPAIGN, "--dir", d, "--runs", str(RUNS), "--jobs", "2"], check=True,
                   stdout=subprocess.DEVNULL)
    con = sqlite3.connect(db)
    points = 1
    for (size,) in con.execute("SELECT size FROM parameters"):
        points *= size
    free = sorted(set(range(points)) - {r[0] for r in con.execute("SELECT point FROM runs")})
    subprocess.run([SGAI, "sweep", "accept", CAMPAIGN, "--dir", d, "--point", str(free[0]), "--point", str(free[1])],
                   check=True, stdout=subprocess.DEVNULL)
    taken = {r[0] for r in con.execute("SELECT point FROM runs")}
    with con:
        con.execute("UPDATE runs SET status = 'running', started_at = queued_at WHERE point = ?", (free[1],))

    def count(status):
        return con.execute("SELECT COUNT(*) FROM runs WHERE status = ?", (status,)).fetchone()[0]

    serve = subprocess.Popen([SGAI, "sweep", "serve", CAMPAIGN, "--dir", d, "--port", "0"], stdout=subprocess.PIPE,
                             text=True)
    procs.append(serve)
    line = serve.stdout.readline()
    if "http://127.0.0.1:" not in line:
        fail("sgai sweep serve said: " + line)
    page = line[line.index("http://"):].split()[0]
    dport = free_port()
    err = open(os.path.join(tmp, "chromedriver.err"), "w")
    driver = subprocess.Popen(["chromedriver", "--port=%d" % dport,
                               "--enable-chrome-logs", "--log-path=" + os.path.join(tmp, "chromedriver.log")],
                              stdout=subprocess.DEVNULL, stderr=err)
    procs.append(driver)
    wd = "http://127.0.0.1:%d" % dport
    wait_for("chromedriver", lambda: http("GET", wd + "/status")["value"]["ready"])
    caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
        "binary": os.environ.get("SWEEP_PAGE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium",
        "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1400,1100", "--enable-logging=stderr", "--v=0"]}}}}
    session = new_session(wd, caps, tmp)
    s = wd + "/session/" + session
    try:
        http("POST", s + "/url", {"url": page})

        def find(css):
            return http("POST", s + "/element", {"using": "css selector", "value": css})["value"]

        def text(css):
            e = find(css)
            return http("GET", s + "/element/" + list(e.values())[0] + "/text")["value"]

        def script(js):
            return http("POST", s + "/execute/sync", {"script": js, "args": []})["value"]

        wait_for("the page's first state", lambda: script("return document.body.dataset.loaded") == "1")
        shown = {k: int(text("#count-" + k)) for k in ("done", "running", "pending", "failed")}
        want = {"done": count("done"), "running": count("running"), "pending": count("queued"),
                "failed": count("failed")}
        if shown != want:
            fail("the page shows %s, the database holds %s" % (shown, want))
        if want["done"] != RUNS or want["running"] != 1 or want["pending"] != 1:
            fail("unexpected campaign state %s" % want)
        # suggest 3 runs, then accept them all
        script("document.getElementById('runs').value = 3")
        http("POST", s + "/element/" + list(find("#suggest").values())[0] + "/click", {})
        rows = wait_for("the suggestion", lambda: script(
            "return [...document.querySelectorAll('#suggestions tbody tr')].map(r => +r.dataset.point)"))
        stored = {r[0] for r in con.execute("SELECT point FROM suggestions")}
        if len(rows) != 3 or set(rows) != stored or stored & taken:
            fail("suggested %s on the page, %s in the database (taken: %s)" % (rows, stored, taken))
        if len(sys.argv) > 1:  # the page with its suggestion, for docs/sweep.md
            png = base64.b64decode(http("GET", s + "/screenshot")["value"])
            with open(sys.argv[1], "wb") as f:
                f.write(png)
        before = count("queued")
        http("POST", s + "/element/" + list(find("#accept").values())[0] + "/click", {})
        wait_for("the acceptance", lambda: script("return document.body.dataset.accepted") == "3")
        queued = {r[0] for r in con.execute("SELECT point FROM runs WHERE status = 'queued' AND origin = 'suggestion'")}
        if count("queued") != before + 3 or not set(rows) <= queued or len(queued) != 1 + 3:
            fail("after accept: %d queued (was %d), suggestion runs %s, rows %s" % (count("queued"), before, queued, rows))
        if con.execute("SELECT COUNT(*) FROM suggestions").fetchone()[0] != 0:
            fail("accepted suggestions are still suggested")
        wait_for("the refreshed counts", lambda: int(text("#count-pending")) == count("queued"))
        # the API refuses what is not a request: 400 with one message, the database unchanged
        before = con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        for path, body in (("/api/accept", {"points": [10 ** 9]}), ("/api/accept", {"nothing": 1}),
                           ("/api/suggest", {"runs": -1, "exploitation": 0.5}),
                           ("/api/suggest", {"runs": 2, "exploitation": 7})):
            try:
                http("POST", page.rstrip("/") + path, body)
                fail("%s accepted %s" % (path, body))
            except urllib.error.HTTPError as e:
                answer = json.loads(e.read())
                if e.code != 400 or not answer.get("error"):
                    fail("%s %s: %d %s" % (path, body, e.code, answer))
        if con.execute("SELECT COUNT(*) FROM runs").fetchone()[0] != before:
            fail("a refused request changed the runs")
    finally:
        http("DELETE", s)
    elapsed = time.monotonic() - T0
    print("the browser test took %.1f s" % elapsed)
    if elapsed > 20:
        fail("over 20 s")


main()
print("ok: sweep_page")
