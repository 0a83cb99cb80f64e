"""Issue 28's dashboard speed, measured in Debian's Chromium (Playwright, headless) on loopback.

For the seeded user (bench/run dashboard: 200 habits over ten years, 50 tasks, a year of health
data), in interleaved rounds:
  - the floor: the same browser loading a static file of the same server (a text asset), from
    navigation start to its load event;
  - Today, first visit (a new browser profile: empty cache, no service worker, signed in by the
    session cookie alone): navigation start to the Today view in the page (the app's
    `lifelog:rendered` User Timing mark) and to its largest contentful paint, and the bytes on
    the wire (compressed, headers included, every request the page made, the API's JSON too);
  - Today, a repeat visit in the same profile: the same figures;
  - the event stream: a habit logged (and un-logged) through the API with a bearer token, 100
    writes, from each write's answer to the change visible in the open Today page.
Prints the figures beside their targets; exits 1 if a target is missed.
"""
import json
import os
import statistics
import sys
import time

import requests
from playwright.sync_api import sync_playwright

BASE = os.environ.get("BASE_URL", "http://127.0.0.1:8089")
EMAIL = os.environ["DASHBOARD_EMAIL"]
PASSWORD = os.environ.get("DASHBOARD_PASSWORD", "synthetic benchmark password")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ROUNDS = int(os.environ.get("ROUNDS", "5"))
WRITES = int(os.environ.get("WRITES", "100"))

RENDERED = """() => new Promise((resolve) => {
  const look = () => {
    const mark = performance.getEntriesByName('lifelog:rendered').find((m) => m.detail === 'today');
    if (mark) resolve(mark.startTime); else setTimeout(look, 5);
  };
  look();
})"""

PAINTS = """() => new Promise((resolve) => {
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  new PerformanceObserver((list) => {
    const entries = list.getEntries();
    resolve({ fcp: fcp ? fcp.startTime : null, lcp: entries[entries.length - 1].startTime });
  }).observe({ type: 'largest-contentful-paint', buffered: true });
  setTimeout(() => resolve({ fcp: fcp ? fcp.startTime : null, lcp: null }), 2000);
})"""

UNTIL = """([id, done]) => new Promise((resolve) => {
  const check = () => {
    const item = document.querySelector(`li.habit[data-habit="${id}"]`);
    if (item && item.classList.contains('done') === done) resolve(performance.timeOrigin + performance.now());
    else requestAnimationFrame(check);
  };
  check();
})"""


def wire_bytes(page):
    """Counts every response's bytes on the wire (compressed body and headers) from now on."""
    session = page.context.new_cdp_session(page)
    counted = {"bytes": 0, "requests": 0}

    def finished(event):
        counted["bytes"] += event.get("encodedDataLength", 0)
        counted["requests"] += 1
    session.on("Network.loadingFinished", finished)
    session.send("Network.enable")
    return counted


def static_floor(browser, asset):
    context = browser.new_context()
    page = context.new_page()
    page.goto(BASE + asset, wait_until="load")
    nav = page.evaluate("() => performance.getEntriesByType('navigation')[0].toJSON()")
    context.close()
    return nav["loadEventEnd"]


def visit(page, reload=False):
    counted = wire_bytes(page)
    if reload:
        page.reload(wait_until="commit")
    else:
        page.goto(BASE + "/", wait_until="commit")
    rendered = page.evaluate(RENDERED)
    page.wait_for_load_state("load")
    paints = page.evaluate(PAINTS)
    page.wait_for_timeout(300)  # requests still finishing (the service worker's, the briefing's)
    if os.environ.get("WATERFALL"):
        for entry in page.evaluate("() => performance.getEntriesByType('resource').map((r) => [r.name, r.startTime, r.responseEnd])"):
            print(f"    {entry[1]:7.0f} → {entry[2]:7.0f} ms  {entry[0].replace(BASE, '')}")
    return {"rendered": rendered, "lcp": paints["lcp"], "fcp": paints["fcp"], "bytes": counted["bytes"], "requests": counted["requests"]}


def sign_in_state(browser):
    context = browser.new_context()
    page = context.new_page()
    page.goto(BASE + "/")
    page.get_by_label("Email").fill(EMAIL)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_selector("main .view-today", timeout=60000)
    state = context.storage_state()
    context.close()
    return state


def stream_latencies(browser, state):
    """From each write's answer to the change in the open page; returns (latencies, state)."""
    context = browser.new_context(storage_state=state)
    page = context.new_page()
    page.goto(BASE + "/")
    page.evaluate(RENDERED)
    page.wait_for_selector(".live-status.on", timeout=30000)
    token = requests.post(f"{BASE}/api/v1/auth/login", json={"email": EMAIL, "password": PASSWORD}, timeout=30).json()["access_token"]
    headers = {"Authorization": f"Bearer {token}"}
    today = requests.get(f"{BASE}/api/v1/today", headers=headers, timeout=30).json()
    habits = [h for h in today["habits"] if h["due_today"] and not h["completed_today"] and h["kind"] == "boolean"][:10]
    if not habits:
        raise SystemExit("no boolean habit is due and open today")
    latencies = []
    for n in range(WRITES):
        habit = habits[(n // 2) % len(habits)]
        done = n % 2 == 0
        key = {"Idempotency-Key": f"bench-{time.time_ns()}"}
        if done:
            answer = requests.post(f"{BASE}/api/v1/habits/{habit['id']}/logs", json={"date": today["date"]}, headers=headers | key, timeout=30)
        else:
            answer = requests.delete(f"{BASE}/api/v1/habits/{habit['id']}/logs/{today['date']}", headers=headers | key, timeout=30)
        answered = time.time() * 1000
        if answer.status_code >= 300:
            raise SystemExit(f"write {n}: {answer.status_code} {answer.text[:200]}")
        seen = page.evaluate(UNTIL, [habit["id"], done])
        latencies.append(max(0.0, seen - answered))
    state = context.storage_state()
    context.close()
    return latencies, state


def pct(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(p * len(ordered) + 0.5)) - 1))]


def main():
    index = requests.get(BASE + "/", timeout=30).text
    start = index.index("/assets/")
    asset = index[start:index.index("/", start + len("/assets/")) + 1] + "LICENSES.txt"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-dev-shm-usage"])
        state = sign_in_state(browser)
        floors, firsts, repeats = [], [], []
        for round_ in range(ROUNDS):
            floors.append(static_floor(browser, asset))
            # A new profile per round (empty cache, no service worker), signed in by its cookie;
            # the cookie turns over at each refresh, so each round starts from the last one's.
            context = browser.new_context(storage_state=state)
            page = context.new_page()
            firsts.append(visit(page))
            repeats.append(visit(page, reload=True))
            state = context.storage_state()
            context.close()
            print(f"round {round_ + 1}: floor {floors[-1]:.0f} ms; first visit: Today in the page {firsts[-1]['rendered']:.0f} ms, "
                  f"LCP {firsts[-1]['lcp'] or 0:.0f} ms, {firsts[-1]['bytes'] / 1000:.1f} KB in {firsts[-1]['requests']} responses; "
                  f"repeat: {repeats[-1]['rendered']:.0f} ms, LCP {repeats[-1]['lcp'] or 0:.0f} ms, {repeats[-1]['bytes'] / 1000:.1f} KB "
                  f"in {repeats[-1]['requests']} responses", flush=True)
        latencies, state = stream_latencies(browser, state)
        browser.close()

    def shown(visit_):  # the later of the view in the page and its largest paint
        return max(visit_["rendered"], visit_["lcp"] or 0)
    first_ms = statistics.median(shown(v) for v in firsts)
    repeat_ms = statistics.median(shown(v) for v in repeats)
    first_kb = max(v["bytes"] for v in firsts) / 1000
    floor_ms = statistics.median(floors)
    results = {
        "floor_static_ms": round(floor_ms, 1),
        "today_first_visit_ms_median": round(first_ms, 1), "today_first_visit_ms_max": round(max(shown(v) for v in firsts), 1),
        "today_repeat_visit_ms_median": round(repeat_ms, 1),
        "today_first_visit_kb_max": round(first_kb, 1), "today_repeat_visit_kb_max": round(max(v["bytes"] for v in repeats) / 1000, 1),
        "stream_ms_p50": round(pct(latencies, 0.50), 1), "stream_ms_p99": round(pct(latencies, 0.99), 1), "stream_ms_max": round(max(latencies), 1),
        "writes": len(latencies), "rounds": ROUNDS,
    }
    print(json.dumps(results))
    checks = [
        ("Today, first visit, navigation start to rendered (median)", first_ms, 500, "ms"),
        ("Today, first visit, transferred (compressed, every response)", first_kb, 150, "KB"),
        ("a change in the page after the write's answer (p99)", pct(latencies, 0.99), 1000, "ms"),
    ]
    failed = False
    for name, value, target, unit in checks:
        ok = value <= target
        failed |= not ok
        print(f"{'met ' if ok else 'MISSED'} {name}: {value:.1f} {unit} (target ≤ {target} {unit}; the static floor {floor_ms:.1f} ms)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
