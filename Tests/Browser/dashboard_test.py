"""The dashboard in a real Chromium (Debian's), driven by Playwright for Python (issue 28).

Each flow asserts what a person sees. The server is started here (so the last flow can stop it),
on a throwaway database given in DATABASE_URL. Screenshots of each page at 1280x800 and 390x844,
light and dark, go to SCREENSHOTS (docs/screenshots); axe-core checks every page in both schemes.
Prints 'N passed, N failed' last; exits 1 on any failure.
"""
import json
import os
import signal
import subprocess
import sys
import time
import traceback
import uuid
from datetime import date, timedelta

import requests
from playwright.sync_api import sync_playwright, expect

BIN = os.environ["LIFELOG_BIN"]
PORT = int(os.environ["LIFELOG_PORT"])
BASE = f"http://127.0.0.1:{PORT}"
API = f"{BASE}/api/v1"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SHOTS = os.environ.get("SCREENSHOTS", "")
LOG = os.environ.get("LIFELOG_BROWSER_LOG", "/tmp/lifelog-browser-server.log")
PASSWORD = "correct horse battery"
results = []
server = None


def start_server():
    global server
    env = dict(os.environ, HOST="127.0.0.1", PORT=str(PORT), LIFELOG_REMINDERS="false", SHUTDOWN_GRACE_SECONDS="3",
               REGISTRATIONS_PER_ADDRESS="100000", PROJECTOR_POLL_MS="200")
    server = subprocess.Popen([BIN, "serve"], env=env, stdout=open(LOG, "a"), stderr=subprocess.STDOUT)
    for _ in range(240):
        try:
            if requests.get(f"{BASE}/readyz", timeout=2).status_code == 200:
                return
        except requests.RequestException:
            pass
        if server.poll() is not None:
            raise RuntimeError(f"the server exited; see {LOG}")
        time.sleep(0.5)
    raise RuntimeError("the server was not ready in 120 s")


def stop_server():
    if server and server.poll() is None:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)


def flow(name):
    def wrap(fn):
        def run(*args):
            started = time.monotonic()
            try:
                fn(*args)
                results.append((name, True, time.monotonic() - started, ""))
                print(f"ok   {name} ({time.monotonic() - started:.1f} s)", flush=True)
            except Exception as error:  # noqa: BLE001 - a failing flow is reported, the others still run
                results.append((name, False, time.monotonic() - started, repr(error)))
                print(f"FAIL {name}: {error}", flush=True)
                traceback.print_exc()
        return run
    return wrap


# ---- The API, as a phone or a script would use it, to arrange what a flow needs ----

def bearer_login(email):
    answer = requests.post(f"{API}/auth/login", json={"email": email, "password": PASSWORD}, timeout=30)
    answer.raise_for_status()
    return answer.json()["access_token"]


def call(token, method, path, body=None):
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": str(uuid.uuid4())}
    answer = requests.request(method, f"{API}{path}", json=body, headers=headers, timeout=30)
    if answer.status_code >= 400:
        raise AssertionError(f"{method} {path}: {answer.status_code} {answer.text[:300]}")
    return answer.json() if answer.text else None


def today_of(token):
    return call(token, "GET", "/today")["date"]


# ---- Pages ----

def new_page(browser, scheme="light", width=1280, height=800):
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme, locale="en-US", accept_downloads=True)
    page = context.new_page()
    page.on("dialog", lambda d: (_ for _ in ()).throw(AssertionError(f"a dialog opened: {d.message}")))
    return context, page


def sign_in(page, email):
    page.goto(BASE + "/")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("link", name="Today")).to_be_visible()


def nav(page, name):
    page.get_by_role("navigation", name="Sections").get_by_role("link", name=name).click()
    expect(page.locator(f"main .view-{name.lower()}")).to_be_visible()


AXE = None


def axe_check(page, label):
    global AXE
    if AXE is None:
        from axe_playwright_python.sync_playwright import Axe
        AXE = Axe()
    result = AXE.run(page)
    bad = [v for v in result.response["violations"] if v.get("impact") in ("serious", "critical")]
    if bad:
        raise AssertionError(f"axe on {label}: " + "; ".join(f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes'][:3]]}" for v in bad))


def shot(page, name):
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=False)


# ---- The flows ----

def main():
    start_server()
    email = f"ana-{uuid.uuid4().hex[:8]}@example.com"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-dev-shm-usage"])
        context, page = new_page(browser)

        @flow("register")
        def register():
            page.goto(BASE + "/")
            expect(page.get_by_role("button", name="Sign in")).to_be_visible()
            expect(page.get_by_label("Email")).to_be_visible()
            expect(page.get_by_label("Password")).to_be_visible()
            shot(page, "sign-in-1280-light")
            page.get_by_role("button", name="Create account").click()
            page.get_by_label("Your name").fill("Ana")
            page.get_by_label("Email").fill(email)
            page.get_by_label("Password").fill(PASSWORD)
            page.get_by_label("Time zone").fill("Europe/Belgrade")
            page.get_by_role("button", name="Create account").click()
            expect(page.get_by_role("heading", name="Today")).to_be_visible()
            for link in ["Today", "Habits", "Tasks", "Finance", "Savings", "Health", "Settings"]:
                expect(page.get_by_role("link", name=link, exact=True)).to_be_visible()
            expect(page.get_by_role("button", name="Sign out")).to_be_visible()
        register()

        token = bearer_login(email)
        day = today_of(token)

        @flow("sign in")
        def sign_in_flow():
            page.get_by_role("button", name="Sign out").click()
            expect(page.get_by_role("button", name="Sign in")).to_be_visible()
            sign_in(page, email)
            expect(page.get_by_role("heading", name="Today")).to_be_visible()
        sign_in_flow()

        @flow("check off a habit: the streak and Today change")
        def habit():
            call(token, "POST", "/habits", {"name": "Read", "emoji": "📚", "kind": "boolean", "schedule": {"type": "daily"}})
            item = page.locator("li.habit", has_text="Read")
            expect(item).to_be_visible(timeout=5000)  # arrived through the stream, no reload
            expect(item).to_contain_text("Streak 0")
            box = item.get_by_role("checkbox", name="Read")
            box.check()
            expect(item).to_contain_text("Streak 1")
            expect(item).to_contain_text("Done")
            expect(box).to_be_checked()
        habit()

        @flow("a numeric habit")
        def numeric():
            call(token, "POST", "/habits", {"name": "Water", "kind": "numeric", "target": 8, "unit": "glasses", "schedule": {"type": "daily"}})
            item = page.locator("li.habit", has_text="Water")
            expect(item).to_be_visible(timeout=5000)
            item.get_by_label("Value for Water").fill("5")
            item.get_by_role("button", name="Log Water").click()
            expect(item).to_contain_text("5 of 8 glasses")
            item.get_by_label("Value for Water").fill("3")
            item.get_by_role("button", name="Log Water").click()
            expect(item).to_contain_text("8 of 8 glasses")
            expect(item).to_contain_text("Streak 1")
        numeric()

        @flow("complete a task")
        def task():
            call(token, "POST", "/tasks", {"title": "Pay rent", "priority": 3, "due_date": day})
            item = page.locator("li.task", has_text="Pay rent")
            expect(item).to_be_visible(timeout=5000)
            item.get_by_role("checkbox", name="Pay rent").check()
            expect(item).to_have_class("item task done")
            nav(page, "Tasks")
            page.get_by_role("link", name="Done", exact=True).click()
            expect(page.locator("li.task", has_text="Pay rent").get_by_role("checkbox", name="Pay rent")).to_be_checked()
        task()

        @flow("add an expense: the month's summary and the budget bar change")
        def expense():
            food = call(token, "POST", "/finance/categories", {"name": "Food", "emoji": "🛒", "kind": "expense"})
            call(token, "PUT", f"/finance/categories/{food['id']}/budget", {"amount": "100.00", "currency": "EUR", "from_month": day[:7]})
            nav(page, "Finance")
            expect(page.get_by_text("No transactions this month.")).to_be_visible()
            form = page.locator("form", has=page.get_by_role("heading", name="Add a transaction"))
            form.get_by_label("Amount").fill("30.00")
            form.get_by_label("Category").select_option(label="🛒 Food")
            form.get_by_role("button", name="Add").click()
            budget = page.locator("li.budget", has_text="Food")
            expect(budget).to_contain_text("30.00 of 100.00 EUR · 30.0% used", timeout=5000)
            expect(page.locator(".figures").first).to_contain_text("30.00 EUR")
        expense()

        @flow("a deposit clears an overdue savings payment")
        def savings():
            year, month = int(day[:4]), int(day[5:7])
            start = f"{year - 1 if month <= 2 else year}-{(month - 2 - 1) % 12 + 1:02d}"
            goal = call(token, "POST", "/savings/goals", {"name": "Trip", "emoji": "✈️", "currency": "EUR", "target_amount": "1200"})
            call(token, "PUT", f"/savings/goals/{goal['id']}/plan", {"amount": "50.00", "anchor_day": 1, "every_months": 1, "start_month": start})
            nav(page, "Savings")
            overdue = page.locator("section", has=page.get_by_role("heading", name="Overdue payments"))
            expect(overdue).to_be_visible()
            first = overdue.locator("li.payment").first
            count = overdue.locator("li.payment").count()
            first.get_by_role("button", name="Pay 50.00 EUR").click()
            expect(overdue.locator("li.payment")).to_have_count(count - 1, timeout=5000)
        savings()

        @flow("set a savings plan in the page: the calendar follows it, and it ends")
        def plan():
            goal = call(token, "POST", "/savings/goals", {"name": "Bike", "currency": "EUR"})
            nav(page, "Savings")
            page.get_by_role("link", name="Bike").click()
            form = page.locator("form", has=page.get_by_role("heading", name="Plan", exact=True))
            calendar = page.locator("section", has=page.get_by_role("heading", name="Payment calendar"))
            expect(calendar).to_contain_text("Nothing here yet")
            form.get_by_label("Amount each time").fill("25.00")
            form.get_by_label("Day of the month").select_option("last")
            form.get_by_role("button", name="Save the plan").click()
            expect(calendar.locator("li.item").first).to_contain_text("0.00 / 25.00 EUR", timeout=5000)
            assert call(token, "GET", f"/savings/goals/{goal['id']}")["plan"]["anchor_day"] == "last"
            page.locator("form", has=page.get_by_role("heading", name="Plan", exact=True)).get_by_role("button", name="End the plan").click()
            expect(page.locator("form", has=page.get_by_role("heading", name="Plan", exact=True)).get_by_role("button", name="End the plan")).to_have_count(0, timeout=5000)
        plan()

        @flow("an invitation to a shared goal, accepted in the page")
        def invitation():
            friend = f"bo-{uuid.uuid4().hex[:8]}@example.com"
            requests.post(f"{API}/auth/register", json={"email": friend, "password": PASSWORD, "name": "Bo", "timezone": "Europe/Belgrade"},
                          timeout=30).raise_for_status()
            other = bearer_login(friend)
            shared = call(other, "POST", "/savings/goals", {"name": "Flat", "currency": "EUR"})
            call(other, "POST", f"/savings/goals/{shared['id']}/members", {"email": email})
            nav(page, "Today")
            nav(page, "Savings")
            received = page.locator("section", has=page.get_by_role("heading", name="Invitations to you"))
            expect(received).to_contain_text("Bo (" + friend + ") invites you")
            received.get_by_role("button", name="Accept Flat").click()
            goals = page.locator("section", has=page.get_by_role("heading", name="Goals"))
            expect(goals.get_by_role("link", name="Flat")).to_be_visible(timeout=5000)
            expect(page.get_by_role("heading", name="Invitations to you")).to_have_count(0)
            # The owner sees the member, no longer the invitation.
            assert [m["email"] for m in call(other, "GET", f"/savings/goals/{shared['id']}/members")["items"]] == [friend, email]
            assert call(other, "GET", f"/savings/goals/{shared['id']}/invitations")["items"] == []
        invitation()

        @flow("archive a habit, find it under Archived, restore it")
        def archive():
            call(token, "POST", "/habits", {"name": "Stretch", "kind": "boolean", "schedule": {"type": "daily"}})
            nav(page, "Habits")
            page.locator("li.habit", has_text="Stretch").get_by_role("button", name="Archive Stretch").click()
            archived = page.locator("section", has=page.get_by_role("heading", name="Archived"))
            expect(archived.get_by_role("button", name="Restore Stretch")).to_be_visible(timeout=5000)
            expect(page.locator("li.habit", has_text="Stretch")).to_have_count(0)
            archived.get_by_role("button", name="Restore Stretch").click()
            expect(page.locator("li.habit", has_text="Stretch")).to_be_visible(timeout=5000)
            expect(page.get_by_role("heading", name="Archived")).to_have_count(0)
        archive()

        @flow("a morning check-in on Today, kept while a change from elsewhere redraws the page")
        def check_in():
            nav(page, "Today")
            form = page.locator("form.checkin")
            form.get_by_label("Good", exact=True).check()
            form.get_by_label("A note about how you feel").fill("slept well")
            # The phone adds a habit meanwhile: the live stream draws Today again, around the half-filled form.
            call(token, "POST", "/habits", {"name": "Drink water", "kind": "boolean", "schedule": {"type": "daily"}})
            expect(page.locator("li.habit", has_text="Drink water")).to_be_visible(timeout=5000)
            expect(form.get_by_label("Good", exact=True)).to_be_checked()
            expect(form.get_by_label("A note about how you feel")).to_have_value("slept well")
            form.get_by_role("button", name="Save how I feel").click()
            expect(form).to_contain_text("Today you feel: Good")
            page.reload()
            expect(page.locator("form.checkin").get_by_label("Good", exact=True)).to_be_checked(timeout=5000)
        check_in()

        @flow("a health batch sent with a device key appears on the open Health page (the stream)")
        def health():
            key = call(token, "POST", "/devices", {"name": "Watch", "kind": "watch"})["api_key"]
            nav(page, "Health")
            expect(page.get_by_text("No health data yet").first).to_be_visible()
            start = f"{day}T08:00:00+01:00"
            batch = {"samples": [{"uuid": str(uuid.uuid4()), "metric": "steps", "value": 4321, "unit": "count", "start": start,
                                  "end": f"{day}T08:30:00+01:00", "source": {"name": "Watch", "kind": "watch"}}],
                     "sleep": [], "workouts": [], "deletions": []}
            answer = requests.post(f"{API}/ingest/health", json=batch, headers={"X-API-Key": key}, timeout=30)
            assert answer.status_code == 200, answer.text
            series = page.locator("section", has=page.get_by_role("heading", name="Daily figures"))
            expect(series).to_contain_text("Steps", timeout=5000)
            series.get_by_text("The values the chart draws").first.click()
            expect(series).to_contain_text("4321")
        health()

        @flow("the XSS habit name shows as text")
        def xss():
            name = "<img src=x onerror=alert(1)>"
            call(token, "POST", "/habits", {"name": name, "kind": "boolean", "schedule": {"type": "daily"}})
            nav(page, "Today")
            item = page.locator("li.habit", has_text=name)
            expect(item).to_be_visible(timeout=5000)
            assert page.locator("main img").count() == 0
            expect(item.get_by_role("checkbox", name=name)).to_be_visible()
        xss()

        @flow("keyboard-only check-off")
        def keyboard():
            call(token, "POST", "/habits", {"name": "Meditate", "kind": "boolean", "schedule": {"type": "daily"}})
            item = page.locator("li.habit", has_text="Meditate")
            expect(item).to_be_visible(timeout=5000)
            page.locator("body").click(position={"x": 1, "y": 300})
            page.keyboard.press("Home")
            box = item.get_by_role("checkbox", name="Meditate")
            for _ in range(60):
                page.keyboard.press("Tab")
                if box.evaluate("el => el === document.activeElement"):
                    break
            assert box.evaluate("el => el === document.activeElement"), "Tab never reached Meditate's checkbox"
            page.keyboard.press("Space")
            expect(box).to_be_checked()
            expect(item).to_contain_text("Streak 1")
        keyboard()

        @flow("screenshots and axe on every page, light and dark")
        def pages():
            for scheme in ("light", "dark"):
                for width, height in ((1280, 800), (390, 844)):
                    ctx, pg = new_page(browser, scheme, width, height)
                    sign_in(pg, email)
                    for name in ["Today", "Habits", "Tasks", "Finance", "Savings", "Health", "Settings"]:
                        if name != "Today":
                            pg.get_by_role("link", name=name, exact=True).click()
                        expect(pg.locator(f"main .view-{name.lower()}")).to_be_visible()
                        pg.wait_for_timeout(150)
                        shot(pg, f"{name.lower()}-{width}-{scheme}")
                        if width == 1280:
                            axe_check(pg, f"{name} ({scheme})")
                    ctx.close()
            ctx, pg = new_page(browser, "dark", 390, 844)
            pg.goto(BASE + "/")
            expect(pg.get_by_role("button", name="Sign in")).to_be_visible()
            axe_check(pg, "sign in (dark)")
            shot(pg, "sign-in-390-dark")
            ctx.close()
        pages()

        @flow("switch the language to sr and see the page in Serbian")
        def serbian():
            nav(page, "Settings")
            page.get_by_label("Language").select_option("sr")
            page.get_by_role("button", name="Save").first.click()
            try:
                expect(page.get_by_role("link", name="Navike")).to_be_visible(timeout=5000)
                expect(page.get_by_role("link", name="Podešavanja")).to_be_visible()
                expect(page.get_by_role("button", name="Odjavi se", exact=True)).to_be_visible()
                page.get_by_role("link", name="Danas").click()
                expect(page.get_by_role("heading", name="Danas")).to_be_visible()
                expect(page.get_by_role("heading", name="Navike")).to_be_visible()
                shot(page, "today-1280-light-sr")
            finally:
                call(token, "PATCH", "/me", {"language": "en"})
                page.reload()
                expect(page.get_by_role("link", name="Habits")).to_be_visible()
        serbian()

        @flow("a cross-site POST is refused")
        def cross_site():
            # A page of another site, in the same browser profile, submits a form to sign the user out everywhere.
            other = context.new_page()
            # Another site's page (answered by Playwright itself, nothing leaves the machine).
            other.route("http://evil.test/", lambda route: route.fulfill(status=200, content_type="text/html", body="<!doctype html><title>evil</title><p>hi</p>"))
            other.goto("http://evil.test/")
            with other.expect_navigation() as navigation:
                other.evaluate("""url => { const f = document.createElement('form'); f.method = 'POST'; f.action = url;
                                  document.body.append(f); f.submit(); }""", f"{BASE}/api/v1/auth/browser/logout?everywhere=true")
            assert navigation.value.status == 403, navigation.value.status
            other.close()
            # The session was not ended: the page still works after a reload.
            page.reload()
            expect(page.get_by_role("link", name="Habits")).to_be_visible()
            forged = requests.post(f"{API}/auth/browser/logout", headers={"Origin": "https://evil.example"}, timeout=10)
            assert forged.status_code == 403, forged.status_code
        cross_site()

        @flow("sign out, and nothing private behind the back button")
        def sign_out():
            nav(page, "Habits")
            nav(page, "Today")
            expect(page.locator("li.habit", has_text="Read")).to_be_visible()
            page.get_by_role("button", name="Sign out").click()
            expect(page.get_by_role("button", name="Sign in")).to_be_visible()
            page.go_back()
            page.wait_for_timeout(800)
            body = page.locator("body").inner_text()
            assert "Read" not in body and "Pay rent" not in body and "Meditate" not in body, body[:500]
            expect(page.get_by_role("button", name="Sign in")).to_be_visible()
            page.reload()
            expect(page.get_by_role("button", name="Sign in")).to_be_visible()
        sign_out()

        @flow("download my data, then delete my account")
        def your_data():
            other = f"bo-{uuid.uuid4().hex[:8]}@example.com"
            requests.post(f"{API}/auth/register", json={"email": other, "password": PASSWORD, "name": "Bo", "timezone": "Europe/Belgrade"},
                          timeout=30).raise_for_status()
            bo = bearer_login(other)
            call(bo, "POST", "/habits", {"name": "Stretch", "kind": "boolean", "schedule": {"type": "daily"}})
            bo_context, bo_page = new_page(browser)
            try:
                sign_in(bo_page, other)
                nav(bo_page, "Settings")
                with bo_page.expect_download() as info:
                    bo_page.get_by_role("button", name="Download my data").click()
                with open(info.value.path()) as file:
                    lines = [json.loads(line) for line in file.read().splitlines()]
                assert lines[0]["format"] == "lifelog-export" and lines[-1]["type"] == "end", (lines[0], lines[-1])
                assert any(line.get("type") == "habit" and line.get("name") == "Stretch" for line in lines), lines
                # A wrong password erases nothing and says so beside the field.
                bo_page.get_by_label("Your password, to confirm").fill("not my password")
                bo_page.get_by_role("button", name="Delete my account").click()
                expect(bo_page.get_by_text("is not your current password")).to_be_visible()
                assert requests.get(f"{API}/me", headers={"Authorization": f"Bearer {bo}"}, timeout=30).status_code == 200
                bo_page.get_by_label("Your password, to confirm").fill(PASSWORD)
                bo_page.get_by_role("button", name="Delete my account").click()
                expect(bo_page.get_by_text("Your account was erased.")).to_be_visible()
                expect(bo_page.get_by_role("button", name="Sign in")).to_be_visible()
                # Gone for every client: the old token, the password, and nothing behind the back button.
                assert requests.get(f"{API}/me", headers={"Authorization": f"Bearer {bo}"}, timeout=30).status_code == 401
                assert requests.post(f"{API}/auth/login", json={"email": other, "password": PASSWORD}, timeout=30).status_code == 401
                bo_page.go_back()
                bo_page.wait_for_timeout(800)
                assert "Stretch" not in bo_page.locator("body").inner_text()
            finally:
                bo_context.close()
        your_data()

        @flow("the server stopped: the kept Today with its 'last refreshed' line")
        def offline():
            sign_in(page, email)
            expect(page.locator("li.habit", has_text="Read")).to_be_visible()
            page.wait_for_timeout(500)  # the service worker has the page's files
            stop_server()
            page.reload()
            expect(page.get_by_text("Last refreshed")).to_be_visible(timeout=15000)
            expect(page.get_by_text("The server cannot be reached")).to_be_visible()
            expect(page.locator("li.habit", has_text="Read")).to_be_visible()
            box = page.locator("li.habit", has_text="Read").get_by_role("checkbox")
            expect(box).to_be_disabled()
            shot(page, "offline-1280-light")
        offline()

        browser.close()
    stop_server()


if __name__ == "__main__":
    try:
        main()
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        results.append(("setup", False, 0, "the run stopped"))
    finally:
        stop_server()
    passed = sum(1 for r in results if r[1])
    failed = len(results) - passed
    print(json.dumps([{"flow": n, "passed": ok, "seconds": round(s, 1), "error": e} for n, ok, s, e in results]), file=sys.stderr)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
