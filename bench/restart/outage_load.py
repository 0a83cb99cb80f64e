"""Mixed load against a running lifelog server while PostgreSQL is stopped and started again
(issue 24, items 1 and 2), and the checks of bench/restart/run.

Driven by bench/restart/run, which owns the cluster and the server process; this script talks
HTTP on loopback, runs a small webhook receiver of its own, and asks run's commands to stop and
start PostgreSQL (and, after a crash, the server). Python 3 standard library only.

Every request is recorded (when sent, when answered or that it got no answer, its status) in
WORK/requests.jsonl; the cycles' timings in WORK/cycles.json; the verdict on stdout.
"""
import argparse
import collections
import datetime
import http.client
import http.server
import json
import os
import random
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid

CLIENT_TIMEOUT = 60.0        # seconds; a request that long without an answer is a hang
RECOVERY_LIMIT = 30.0        # (b): GET /me must answer 200 this soon after PostgreSQL is back
RECOVERY_GIVE_UP = 60.0      # how long a cycle waits for that before it goes on
CRASH_TEXT = re.compile(
    r"Fatal error|Precondition failed|Assertion failed|Program crashed|Current stack trace|"
    r"SIGILL|SIGSEGV|SIGABRT|SIGBUS|SIGTRAP|Illegal instruction|Segmentation fault|Aborted \(core|"
    r"Trace/breakpoint trap|Bus error|exited with status")

T0 = time.monotonic()


def now():
    return time.monotonic() - T0


# --------------------------------------------------------------------------------------------
# HTTP


class Answer:
    __slots__ = ("status", "body", "retry_after", "error")

    def __init__(self, status=None, body=None, retry_after=None, error=None):
        self.status, self.body, self.retry_after, self.error = status, body, retry_after, error


class Client:
    def __init__(self, base):
        self.base = base
        self.records = []
        self.lock = threading.Lock()
        self.seq = 0

    def call(self, method, path, token=None, body=None, key=None, api_key=None, op=None,
             timeout=CLIENT_TIMEOUT, record=True, phase="load"):
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if token:
            headers["Authorization"] = "Bearer " + token
        if api_key:
            headers["X-API-Key"] = api_key
        if key:
            headers["Idempotency-Key"] = key
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        sent = now()
        answer = Answer()
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                answer.status = response.status
                answer.retry_after = response.headers.get("Retry-After")
                raw = response.read()
        except urllib.error.HTTPError as error:
            answer.status = error.code
            answer.retry_after = error.headers.get("Retry-After") if error.headers else None
            try:
                raw = error.read()
            except Exception:
                raw = b""
        except (socket.timeout, TimeoutError):
            raw, answer.error = b"", "timeout"
        except urllib.error.URLError as error:
            reason = error.reason
            raw = b""
            answer.error = "timeout" if isinstance(reason, (socket.timeout, TimeoutError)) else type(reason).__name__
        except (http.client.HTTPException, OSError) as error:
            raw, answer.error = b"", type(error).__name__
        done = now()
        try:
            answer.body = json.loads(raw) if raw else None
        except ValueError:
            answer.body = None
        if record:
            with self.lock:
                self.seq += 1
                self.records.append({
                    "n": self.seq, "phase": phase, "op": op or method, "method": method,
                    "path": path.split("?")[0], "key": key, "sent": round(sent, 4),
                    "answered": round(done, 4) if answer.status is not None else None,
                    "latency": round(done - sent, 4), "status": answer.status,
                    "retry_after": answer.retry_after, "error": answer.error,
                })
        return answer


# --------------------------------------------------------------------------------------------
# The webhook receiver: reminders and event webhooks land here (and are only counted).


class Receiver:
    def __init__(self):
        self.counts = collections.Counter()
        lock = threading.Lock()
        counts = self.counts

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                kind = "?"
                try:
                    kind = json.loads(body).get("type", "?")
                except Exception:
                    pass
                with lock:
                    counts[kind] += 1
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


# --------------------------------------------------------------------------------------------
# The server process and its log


class Server:
    """The server process (through run's pid and exit files) and its log, which a thread follows
    so that crash text is timed when it appears (the process lives on for seconds after a crash
    while Swift's backtracer writes its report)."""

    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.crash_lines = []     # (label, time, line), every crash line seen
        self.unscanned = []       # (time, line) not yet handed to scan_log
        self.crash_times = []     # per crashed process: when its first crash line appeared
        self.restart_times = []   # when the harness had a crashed server running again
        self.crashed = False      # the current process has written crash text
        self.restarts = 0
        self.follow_stop = threading.Event()
        threading.Thread(target=self.follow, daemon=True).start()

    def follow(self):
        offset, partial = 0, b""
        while True:
            try:
                with open(self.args.log, "rb") as log:
                    log.seek(offset)
                    chunk = log.read()
            except OSError:
                chunk = b""
            t = now()
            if chunk:
                offset += len(chunk)
                lines = (partial + chunk).split(b"\n")
                partial = lines.pop()
                for raw in lines:
                    line = raw.decode("utf-8", "replace").strip()
                    if CRASH_TEXT.search(line) and "exited with status 0 " not in line:
                        with self.lock:
                            self.unscanned.append((t, line))
                            if not self.crashed:
                                self.crashed = True
                                self.crash_times.append(t)
            if self.follow_stop.is_set():
                return
            time.sleep(0.05)

    def pid(self):
        try:
            return int(open(self.args.pid_file).read().strip())
        except (OSError, ValueError):
            return None

    def exit_status(self):
        try:
            return open(self.args.exit_file).read().strip()
        except OSError:
            return None

    def alive(self):
        pid = self.pid()
        if pid is None or self.exit_status() is not None:
            return False
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        try:   # a zombie is not alive (it should not happen: its parent waits for it)
            with open("/proc/%d/stat" % pid) as stat:
                if stat.read().split(") ")[-1].startswith("Z"):
                    return False
        except OSError:
            return False
        return True

    def scan_log(self, label):
        """Crash lines that appeared since the last scan, as (time, line)."""
        time.sleep(0.1)   # let the follower catch up
        with self.lock:
            found, self.unscanned = self.unscanned, []
            self.crash_lines.extend((label, t, line) for t, line in found)
        return found

    def restart(self):
        self.restarts += 1
        ok = subprocess.run(self.args.restart_server_cmd, shell=True).returncode == 0
        with self.lock:
            self.crashed = False
            self.restart_times.append(now())
        return ok

    def crash_windows(self):
        """(first crash line, server running again or None) per crash."""
        with self.lock:
            return [(c, self.restart_times[i] if i < len(self.restart_times) else None)
                    for i, c in enumerate(self.crash_times)]


# --------------------------------------------------------------------------------------------
# Users and what the load sends


def hhmm(minutes_ahead):
    t = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(minutes=minutes_ahead)
    return t.strftime("%H:%M")


def today():
    return datetime.datetime.now(datetime.timezone.utc).date().isoformat()


def must(answer, what, ok=(200, 201)):
    if answer.status not in ok:
        raise SystemExit("restart: setup failed: %s answered %s %s %s"
                         % (what, answer.status, answer.error or "", json.dumps(answer.body)[:300]))
    return answer.body


class User:
    def __init__(self, n):
        self.n = n
        self.email = None
        self.token = None
        self.token_at = 0.0
        self.api_key = None
        self.bool_habit = None
        self.num_habit = None
        self.category = None
        self.completable = collections.deque()
        self.lock = threading.Lock()
        self.patches = 0


PASSWORD = "correct horse battery"


def setup_user(client, n, tag, receiver, webhook_problems):
    user = User(n)
    user.email = "restart-%s-%d@example.com" % (tag, n)
    a = client.call("POST", "/api/v1/auth/register", phase="setup", op="register",
                    body={"email": user.email, "password": PASSWORD, "name": "Restart %d" % n, "timezone": "UTC"})
    user.token = must(a, "register")["access_token"]
    user.token_at = time.monotonic()
    t = user.token
    a = client.call("POST", "/api/v1/devices", t, {"name": "Restart watch", "kind": "watch"}, key="setup-device",
                    phase="setup")
    user.api_key = must(a, "POST /devices")["api_key"]
    a = client.call("PATCH", "/api/v1/me", t, phase="setup", body={"reminders": {
        "morning_time": hhmm(1), "evening_time": hhmm(2),
        "enabled_kinds": ["morning_digest", "evening_nudge", "task_due", "habit"],
        "webhook_url": "%s/reminders/%d" % (receiver.url, n)}})
    must(a, "PATCH /me (reminders, webhook_url)")
    a = client.call("POST", "/api/v1/webhooks", t, phase="setup", key="setup-webhook", body={
        "url": "%s/events/%d" % (receiver.url, n),
        "events": ["habit.completed", "task.completed", "health.recovery_scored"]})
    must(a, "POST /webhooks")
    a = client.call("POST", "/api/v1/habits", t, key="setup-habit-bool", phase="setup", body={
        "name": "Stretch", "emoji": "🧘", "kind": "boolean", "schedule": {"type": "daily"}, "reminder_time": hhmm(2)})
    user.bool_habit = must(a, "POST /habits (boolean)")["id"]
    a = client.call("POST", "/api/v1/habits", t, key="setup-habit-num", phase="setup", body={
        "name": "Water", "kind": "numeric", "target": 3, "unit": "glasses", "schedule": {"type": "daily"},
        "reminder_time": hhmm(3)})
    user.num_habit = must(a, "POST /habits (numeric)")["id"]
    a = client.call("POST", "/api/v1/finance/categories", t, key="setup-category", phase="setup",
                    body={"name": "Food", "kind": "expense"})
    user.category = must(a, "POST /finance/categories")["id"]
    for i in range(25):
        a = client.call("POST", "/api/v1/tasks", t, key="setup-task-%d" % i, phase="setup", body={
            "title": "setup-%d-%d" % (n, i), "due_date": today(), "due_time": hhmm(1 + i % 4), "priority": 1 + i % 3})
        user.completable.append(must(a, "POST /tasks (setup)")["id"])
    return user


class Load:
    """Mixed requests at a bounded rate across a small pool of threads. Each POST has its own
    Idempotency-Key, and what it sends is kept so the retry phase can send it again exactly."""

    OPS = [("habit_log_num", 12), ("habit_log_bool", 4), ("task", 14), ("finance", 14), ("today", 12),
           ("habits", 9), ("health_daily", 5), ("briefing", 4), ("ingest", 10), ("patch_me", 5),
           ("complete", 4), ("tasks_list", 3), ("me", 4)]

    def __init__(self, client, users, rate, threads, tag):
        self.client, self.users, self.rate, self.tag = client, users, rate, tag
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.next_slot = time.monotonic()
        self.counter = 0
        self.posts = {}        # key -> (user, kind, path, body, api) for the retry phase
        self.sample_seq = collections.Counter()
        self.threads = [threading.Thread(target=self.worker, args=(i,), daemon=True) for i in range(threads)]
        self.names = [o for o, _ in self.OPS]
        self.weights = [w for _, w in self.OPS]
        self.base_time = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) - datetime.timedelta(hours=3)

    def start(self):
        for t in self.threads:
            t.start()

    def finish(self):
        self.stop.set()
        for t in self.threads:
            t.join(CLIENT_TIMEOUT + 5)

    def slot(self):
        # The next send time; never in the past (no catch-up burst after a stall).
        with self.lock:
            t = max(self.next_slot, time.monotonic())
            self.next_slot = t + 1.0 / self.rate
            self.counter += 1
            return t, self.counter

    def worker(self, i):
        rng = random.Random(i * 7919 + 17)
        while not self.stop.is_set():
            t, n = self.slot()
            delay = t - time.monotonic()
            if delay > 0 and self.stop.wait(delay):
                return
            user = self.users[rng.randrange(len(self.users))]
            op = rng.choices(self.names, self.weights)[0]
            try:
                self.send(op, user, n, rng)
            except Exception as error:  # a bug here must not silently stop a thread
                print("restart: load thread error: %r" % error, file=sys.stderr)

    def post(self, user, kind, path, body, n, api=False):
        key = "%s-%s-%d" % (self.tag, kind, n)
        with self.lock:
            self.posts[key] = (user, kind, path, body, api)
        if api:
            return self.client.call("POST", path, body=body, key=key, api_key=user.api_key, op=kind)
        return self.client.call("POST", path, user.token, body, key=key, op=kind)

    def send(self, op, user, n, rng):
        c, t = self.client, user.token
        if op == "habit_log_num":
            self.post(user, op, "/api/v1/habits/%s/logs" % user.num_habit, {"value": 1}, n)
        elif op == "habit_log_bool":
            self.post(user, op, "/api/v1/habits/%s/logs" % user.bool_habit, {}, n)
        elif op == "task":
            key = "%s-task-%d" % (self.tag, n)
            body = {"title": key, "priority": 1 + n % 3}
            if n % 4 == 0:
                body.update({"due_date": today(), "due_time": hhmm(2)})
            self.post(user, op, "/api/v1/tasks", body, n)
        elif op == "finance":
            key = "%s-finance-%d" % (self.tag, n)
            body = {"kind": "expense", "amount": "%d.%02d" % (1 + n % 40, n % 100), "currency": "EUR", "note": key}
            if n % 2:
                body["category_id"] = user.category
            self.post(user, op, "/api/v1/finance/transactions", body, n)
        elif op == "complete":
            with user.lock:
                task = user.completable.popleft() if user.completable else None
            if task is None:
                return self.send("today", user, n, rng)
            self.post(user, op, "/api/v1/tasks/%s/complete" % task, None, n)
        elif op == "ingest":
            samples = []
            for _ in range(5):
                with self.lock:
                    self.sample_seq[user.n] += 1
                    s = self.sample_seq[user.n]
                start = self.base_time + datetime.timedelta(seconds=2 * s)
                samples.append({"uuid": "%s-u%d-s%d" % (self.tag, user.n, s), "metric": "steps", "value": 10 + s % 50,
                                "unit": "count", "start": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
                                "end": (start + datetime.timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                                "source": {"name": "Restart Watch", "kind": "watch"}})
            self.post(user, op, "/api/v1/ingest/health", {"samples": samples}, n, api=True)
        elif op == "today":
            c.call("GET", "/api/v1/today", t, op=op)
        elif op == "habits":
            c.call("GET", "/api/v1/habits", t, op=op)
        elif op == "health_daily":
            c.call("GET", "/api/v1/health/daily?metrics=steps", t, op=op)
        elif op == "briefing":
            c.call("GET", "/api/v1/health/briefing", t, op=op)
        elif op == "tasks_list":
            c.call("GET", "/api/v1/tasks?filter=today", t, op=op)
        elif op == "me":
            c.call("GET", "/api/v1/me", t, op=op)
        elif op == "patch_me":
            with user.lock:
                user.patches += 1
                k = user.patches
            body = {"name": "Restart %d #%d" % (user.n, k)}
            if k % 3 == 0:
                body["reminders"] = {"evening_time": hhmm(1 + k % 3)}
            c.call("PATCH", "/api/v1/me", t, body, op=op)


# --------------------------------------------------------------------------------------------
# Verification (e)


def list_all(client, path, token, problems):
    items, cursor = [], None
    for _ in range(1000):
        sep = "&" if "?" in path else "?"
        page = path + sep + "limit=100" + ("&cursor=" + urllib.request.quote(cursor) if cursor else "")
        for attempt in range(30):
            a = client.call("GET", page, token, phase="verify", op="list")
            if a.status == 200:
                break
            time.sleep(0.5)
        else:
            problems.append("GET %s kept failing (%s %s)" % (page, a.status, a.error))
            return None
        items.extend(a.body.get("items", []))
        cursor = a.body.get("next_cursor")
        if not cursor:
            return items
    problems.append("GET %s: more than 1000 pages" % path)
    return None


def retry_until_2xx(client, load, key, deadline_s=30):
    """Sends the POST again with its key until 2xx. A retry that itself gets no answer within the
    client timeout is not tried again (the run would last minutes per hung key): it is reported."""
    user, kind, path, body, api = load.posts[key]
    end = time.monotonic() + deadline_s
    last = None
    while time.monotonic() < end:
        if api:
            a = client.call("POST", path, body=body, key=key, api_key=user.api_key, op=kind, phase="retry")
        else:
            a = client.call("POST", path, user.token, body, key=key, op=kind, phase="retry")
        last = a
        if a.status is not None and 200 <= a.status < 300:
            return True, a
        if a.status in (400, 401, 403, 404, 413, 422) or a.error == "timeout":
            return False, a
        wait = 0.5
        if a.retry_after:
            try:
                wait = min(float(a.retry_after), 1.0)
            except ValueError:
                pass
        time.sleep(wait)
    return False, last


def count_check(label, expected_keys, stored_keys, acknowledged, failures, lines):
    """Stored must equal sent: each key once. A key that never got a 2xx, not even on retry (its
    retry hung), and is not stored is counted apart from a loss of something acknowledged."""
    expected = set(expected_keys)
    counts = collections.Counter(stored_keys)
    missing = expected - set(counts)
    lost = sorted(k for k in missing if k in acknowledged)
    never = sorted(k for k in missing if k not in acknowledged)
    doubled = sorted(k for k, v in counts.items() if v > 1)
    unknown = sorted(set(counts) - expected)
    ok = not missing and not doubled and not unknown and len(stored_keys) == len(expected)
    lines.append("  %-34s sent %5d distinct, stored %5d: lost %d, doubled %d, unexpected %d%s  %s"
                 % (label, len(expected), len(stored_keys), len(lost), len(doubled), len(unknown),
                    ", never acknowledged and not stored %d" % len(never) if never else "", "ok" if ok else "FAIL"))
    if not ok:
        failures.append("(e) %s: lost (acknowledged, not stored) %s, never acknowledged and not stored %s, doubled %s, "
                        "unexpected %s" % (label, lost[:5], never[:5], doubled[:5], unknown[:5]))


def projector_status(cmd):
    """`lifelog projections status`: its text, and the async projectors' lag in events."""
    r = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    lag = {}
    for row in r.stdout.splitlines()[1:]:
        cols = re.split(r"\s{2,}", row.strip())
        if len(cols) >= 4 and cols[1] == "async":
            try:
                lag[cols[0]] = int(cols[3])
            except ValueError:
                pass
    return (r.stdout + r.stderr).rstrip(), lag


def verify(client, load, users, failures, lines, status_cmd=None):
    """Every POST without a 2xx again with its key until 2xx; then stored == sent, per user."""
    answered = {}
    for r in client.records:
        if r["key"] and r["key"] in load.posts and r["status"] is not None and 200 <= r["status"] < 300:
            answered[r["key"]] = True
    pending = [k for k in load.posts if k not in answered]
    lines.append("(e) %d POSTs sent with an Idempotency-Key, %d without a 2xx: retried with the same key"
                 % (len(load.posts), len(pending)))
    gave_up = []
    lock = threading.Lock()
    queue = collections.deque(pending)

    def work():
        while True:
            with lock:
                if not queue:
                    return
                key = queue.popleft()
            ok, a = retry_until_2xx(client, load, key)
            if not ok:
                with lock:
                    gave_up.append(("%s %s" % (key, re.sub(r"[0-9a-f]{8}-[0-9a-f-]{27}", "{id}", load.posts[key][2])),
                                    a.status if a else None, a.error if a else None,
                                    json.dumps(a.body)[:200] if a and a.body else ""))
    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if gave_up:
        failures.append("(e) %d POSTs never got a 2xx on retry, e.g. %s" % (len(gave_up), gave_up[:3]))
        for g in gave_up[:10]:
            lines.append("    never 2xx: %s -> %s %s %s" % g)

    # The async projectors must catch up once the database is back (a stalled one never does).
    if status_cmd:
        end = time.monotonic() + 20
        while True:
            text, lag = projector_status(status_cmd)
            behind = {k: v for k, v in lag.items() if v > 0}
            if (lag and not behind) or time.monotonic() > end:
                break
            time.sleep(1)
        if not lag:
            failures.append("(e) could not read the projectors' status: " + text[-300:])
            lines.append("    could not read the projectors' status: " + text[-300:])
        elif behind:
            failures.append("(e) async projectors still behind 20 s after the load stopped: %s" % behind)
            lines.append("  async projectors still behind 20 s after the load stopped (lifelog projections status):")
            lines.extend("    " + row for row in text.splitlines())
        else:
            lines.append("  async projectors: all %d caught up (lag 0)" % len(lag))

    acknowledged = {r["key"] for r in client.records
                    if r["key"] and r["status"] is not None and 200 <= r["status"] < 300}
    problems = []
    for user in users:
        keys_of = collections.defaultdict(list)
        for key, (u, kind, path, body, api) in load.posts.items():
            if u is user:
                keys_of[kind].append(key)
        # Tasks: one stored task per key (the title is the key).
        tasks = list_all(client, "/api/v1/tasks?filter=all", user.token, problems)
        if tasks is not None:
            stored = [t["title"] for t in tasks if t["title"].startswith(load.tag + "-task-")]
            count_check("user %d tasks" % user.n, keys_of["task"], stored, acknowledged, failures, lines)
        # Finance transactions: the note is the key.
        txs = list_all(client, "/api/v1/finance/transactions", user.token, problems)
        if txs is not None:
            stored = [t.get("note", "") for t in txs if t.get("note", "").startswith(load.tag + "-finance-")]
            count_check("user %d finance transactions" % user.n, keys_of["finance"], stored, acknowledged, failures, lines)
        # The numeric habit: each log adds 1, so the day totals add up to the number of keys.
        a = client.call("GET", "/api/v1/habits/%s/logs" % user.num_habit, user.token, phase="verify", op="list")
        if a.status == 200:
            total = sum(float(i.get("value", 0)) for i in a.body.get("items", []))
            sent = len(keys_of["habit_log_num"])
            ok = abs(total - sent) < 1e-9
            lines.append("  %-34s sent %5d logs of 1, stored total %7g  %s"
                         % ("user %d numeric habit logs" % user.n, sent, total, "ok" if ok else "FAIL"))
            if not ok:
                failures.append("(e) user %d numeric habit: %d logs of 1 sent, total %g stored" % (user.n, sent, total))
        else:
            problems.append("GET habit logs: %s %s" % (a.status, a.error))
        # Health: every sample uuid once (read after the projectors caught up).
        sent_samples = sum(len(load.posts[k][3]["samples"]) for k in keys_of["ingest"])
        stored_samples = None
        for _ in range(10):
            a = client.call("GET", "/api/v1/health/daily?metrics=steps&from=%s" %
                            (datetime.datetime.now(datetime.timezone.utc).date() - datetime.timedelta(days=2)).isoformat(),
                            user.token, phase="verify", op="list")
            if a.status == 200:
                stored_samples = sum(d.get("samples", 0) for d in a.body.get("days", []) if d.get("metric") == "steps")
                if stored_samples >= sent_samples:
                    break
            time.sleep(0.5)
        ok = stored_samples == sent_samples
        lines.append("  %-34s sent %5d distinct, stored %5s  %s"
                     % ("user %d health samples (steps)" % user.n, sent_samples, stored_samples, "ok" if ok else "FAIL"))
        if not ok:
            failures.append("(e) user %d health samples: sent %d, stored %s" % (user.n, sent_samples, stored_samples))
    for p in problems:
        failures.append("(e) could not verify: " + p)
        lines.append("    could not verify: " + p)


# --------------------------------------------------------------------------------------------
# Main


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--base", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--pid-file", required=True)
    p.add_argument("--exit-file", required=True)
    p.add_argument("--stop-cmd", required=True)
    p.add_argument("--start-cmd", required=True)
    p.add_argument("--expected-admin-url", required=True)
    p.add_argument("--restart-server-cmd", required=True)
    p.add_argument("--cycles", type=int, default=10)
    p.add_argument("--down", type=float, default=5)
    p.add_argument("--up", type=float, default=4)
    p.add_argument("--rate", type=float, default=30)
    p.add_argument("--threads", type=int, default=16)
    p.add_argument("--users", type=int, default=3)
    p.add_argument("--wait-ms", type=int, default=2000)
    p.add_argument("--restart-on-crash", type=int, default=1)
    p.add_argument("--status-cmd", default=None, help="prints `lifelog projections status`")
    args = p.parse_args()
    limit = args.wait_ms / 1000.0 + 3.0

    server = Server(args)
    client = Client(args.base)
    receiver = Receiver()
    tag = "r%d" % (int(time.time()) % 100000)
    users = [setup_user(client, n, tag, receiver, []) for n in range(args.users)]
    probe_user = users[0]
    print("restart: %d users set up (habits, tasks, a category, a device key, reminders and event webhooks to %s)"
          % (len(users), receiver.url), file=sys.stderr)

    load = Load(client, users, args.rate, args.threads, tag)
    load_start = now()
    load.start()
    cycles = []
    failures = []

    def relogin_if_old():
        for u in users:
            if time.monotonic() - u.token_at > 600:
                a = client.call("POST", "/api/v1/auth/login", body={"email": u.email, "password": PASSWORD},
                                phase="probe", op="login", record=False)
                if a.status == 200:
                    u.token, u.token_at = a.body["access_token"], time.monotonic()

    def wait_for_me(deadline):
        """Polls GET /me until 200; returns (seconds, last status) or (None, last) when it gave up."""
        begin = time.monotonic()
        last = None
        while time.monotonic() - begin < deadline:
            a = client.call("GET", "/api/v1/me", probe_user.token, op="probe", phase="probe")
            last = a.status if a.status is not None else a.error
            if a.status == 200:
                return time.monotonic() - begin, last
            if not server.alive():
                return None, "server dead"
            time.sleep(0.1)
        return None, last

    for c in range(1, args.cycles + 1):
        cycle = {"cycle": c, "begin": now()}
        time.sleep(args.up)
        cycle["alive_before_stop"] = server.alive()
        cycle["stop_begin"] = now()
        cycle["stop_wall"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")
        r = subprocess.run(args.stop_cmd, shell=True, capture_output=True, text=True)
        cycle["stop_done"] = now()
        if r.returncode != 0:
            print("restart: stopping PostgreSQL failed: %s" % r.stderr, file=sys.stderr)
        time.sleep(args.down)
        cycle["start_begin"] = now()
        cycle["start_wall"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")
        r = subprocess.run(args.start_cmd, shell=True, capture_output=True, text=True)
        cycle["start_done"] = now()
        if r.returncode != 0 or r.stdout.strip() != args.expected_admin_url:
            failures.append("cycle %d: PostgreSQL did not come back on the same address (%r, %s)"
                            % (c, r.stdout.strip(), r.stderr.strip()[-300:]))
        seconds, last = wait_for_me(RECOVERY_GIVE_UP)
        cycle["recovered"] = seconds
        cycle["recovery_last"] = last
        time.sleep(0.2)   # let a crash that follows the recovery show
        cycle["alive"] = server.alive()
        cycle["exit_status"] = server.exit_status()
        cycle["crash_lines"] = [line for _, line in server.scan_log("cycle %d" % c)]
        cycle["pid"] = server.pid()
        cycle["end"] = now()
        cycles.append(cycle)
        print("restart: cycle %d: stop %.1fs, down %.0fs, start %.1fs, GET /me 200 after %s, server %s"
              % (c, cycle["stop_done"] - cycle["stop_begin"], args.down, cycle["start_done"] - cycle["start_begin"],
                 "%.2f s" % seconds if seconds is not None else "never (%s)" % last,
                 "alive" if cycle["alive"] else "DEAD (exit status %s)" % cycle["exit_status"]), file=sys.stderr)
        if not cycle["alive"] or seconds is None:
            if not cycle["alive"] and args.restart_on_crash:
                print("restart: restarting the dead server to go on (a failure all the same)", file=sys.stderr)
                if not server.restart():
                    print("restart: the server did not come back; no more cycles", file=sys.stderr)
                    break
                cycle["server_restarted"] = True
            elif cycle["alive"] and seconds is None:
                print("restart: the server is alive but does not recover; no more cycles", file=sys.stderr)
                break
            else:
                break
        relogin_if_old()

    # A last stretch of load on a healthy database, then stop the load.
    tail_begin = now()
    time.sleep(args.up)
    load.finish()
    load_end = now()
    tail_alive = server.alive()
    tail_crash = server.scan_log("after the cycles")

    # (e) needs a server: restart a dead one for the count (reported separately).
    verify_lines = []
    restarted_for_verify = False
    if not server.alive():
        if server.restart():
            restarted_for_verify = True
    if server.alive():
        relogin_if_old()
        seconds, last = wait_for_me(RECOVERY_GIVE_UP)
        if seconds is None:
            failures.append("(e) GET /me did not answer 200 before the retry phase (%s)" % last)
        verify(client, load, users, failures, verify_lines, args.status_cmd)
    else:
        failures.append("(e) not verified: the server could not be started again")
    final_alive = server.alive()
    final_crash = server.scan_log("retry phase")

    # ---------------------------------------------------------------- the records and the verdict
    records = client.records
    with open(os.path.join(args.work, "requests.jsonl"), "w") as out:
        for r in records:
            out.write(json.dumps(r) + "\n")
    with open(os.path.join(args.work, "cycles.json"), "w") as out:
        json.dump({"t0": "monotonic seconds from the script's start", "cycles": cycles,
                   "load": [load_start, load_end]}, out, indent=1, default=str)

    def cycle_of(t):
        for cy in reversed(cycles):
            if t >= cy["begin"]:
                return cy
        return None

    def when(t):
        cy = cycle_of(t)
        if cy is None:
            return "before the cycles"
        if t < cy["stop_begin"]:
            return "c%d stop%+.2fs" % (cy["cycle"], t - cy["stop_begin"])
        if t < cy.get("start_done", float("inf")):
            return "c%d stop+%.2fs (PostgreSQL down)" % (cy["cycle"], t - cy["stop_begin"])
        return "c%d start+%.2fs" % (cy["cycle"], t - cy["start_done"])

    def describe(r):
        cy = cycle_of(r["sent"])
        rel = ("stop%+.2fs" % (r["sent"] - cy["stop_begin"])) if cy else "before cycles"
        if cy and r["sent"] >= cy["start_done"]:
            rel += " (start%+.2fs)" % (r["sent"] - cy["start_done"])
        return "%-6s %-38s c%-2s %-28s %7.2fs  %s" % (
            r["method"], re.sub(r"[0-9a-f]{8}-[0-9a-f-]{27}", "{id}", r["path"]), cy["cycle"] if cy else "-", rel,
            r["latency"], r["status"] if r["status"] is not None else "no answer: %s" % r["error"])

    live = [r for r in records if r["phase"] in ("load", "probe")]
    rows = []
    # A cycle's requests: those sent from its start to the next cycle's; the tail holds the rest.
    starts = [cy["begin"] for cy in cycles] + [tail_begin]
    bounds = [(cy["cycle"], starts[i], starts[i + 1], cy) for i, cy in enumerate(cycles)] + [("tail", tail_begin, float("inf"), None)]
    for label, b, e, cy in bounds:
        rs = [r for r in live if b <= r["sent"] < e]
        ok = sum(1 for r in rs if r["status"] is not None and 200 <= r["status"] < 300)
        s503 = sum(1 for r in rs if r["status"] == 503)
        none = sum(1 for r in rs if r["status"] is None)
        other = len(rs) - ok - s503 - none
        rows.append((label, len(rs), ok, s503, other, none, max((r["latency"] for r in rs), default=0.0),
                     ("%.2f" % cy["recovered"] if cy["recovered"] is not None else "never") if cy else "-",
                     ("yes" if cy["alive"] else "NO (%s)" % cy["exit_status"]) if cy else ("yes" if tail_alive else "NO"),
                     ", ".join(when(c).split(" ", 1)[1].replace("PostgreSQL down", "pg down")
                               for c, _ in server.crash_windows() if b <= c < e) or "-"))

    print()
    print("PostgreSQL restarts under load: %d cycles, %.0f s down, load ~%.0f req/s on %d threads, %d users, "
          "DATABASE_WAIT_MS %d" % (len(cycles), args.down, args.rate, args.threads, args.users, args.wait_ms))
    print()
    print("%-6s %8s %6s %6s %6s %9s %10s %12s  %-13s %s" % ("cycle", "requests", "2xx", "503", "other", "no answer",
                                                            "max lat s", "200 after s", "server alive", "crashed at"))
    for row in rows:
        print("%-6s %8d %6d %6d %6d %9d %10.2f %12s  %-13s %s" % row)
    print()
    statuses = collections.Counter((r["status"] if r["status"] is not None else "no answer: " + str(r["error"]))
                                   for r in live)
    print("all statuses (load and probes): %s" % ", ".join("%s: %d" % (k, v) for k, v in
                                                           sorted(statuses.items(), key=lambda kv: str(kv[0]))))
    deliveries = dict(receiver.counts)
    print("webhook receiver got: %s" % (", ".join("%s: %d" % kv for kv in sorted(deliveries.items())) or "nothing"))

    # (a)
    dead = [cy for cy in cycles if not cy["alive"] or not cy.get("alive_before_stop", True)]
    crash_lines = server.crash_lines
    windows = server.crash_windows()
    if dead or not tail_alive or crash_lines:
        failures.append("(a) the server died: in cycles %s%s; crash text in its log: %d lines"
                        % ([cy["cycle"] for cy in dead], "" if tail_alive else " and after the cycles", len(crash_lines)))
    # (b)
    slow_recovery = [cy for cy in cycles if cy["recovered"] is None or cy["recovered"] > RECOVERY_LIMIT]
    if slow_recovery:
        failures.append("(b) GET /me not 200 within %.0f s after the restart in cycles %s"
                        % (RECOVERY_LIMIT, [(cy["cycle"], cy["recovered"], cy["recovery_last"]) for cy in slow_recovery]))
    # (c): split into those a crash explains (in flight while the server crashed, or sent while it
    # was down) and hangs of a live server.
    def crash_affected(r):
        b, e = r["sent"], r["sent"] + r["latency"]
        # A request already waiting longer than the limit when the crash began was hanging before it.
        return any(b <= (end if end is not None else float("inf")) and e >= c and c - b <= limit for c, end in windows)
    slow = sorted((r for r in live if r["status"] is None or r["latency"] > limit), key=lambda r: -r["latency"])
    hangs = [r for r in slow if not crash_affected(r)]
    crashed_ones = [r for r in slow if crash_affected(r)]
    max_latency = max((r["latency"] for r in live), default=0.0)
    if slow:
        failures.append("(c) %d requests without an HTTP answer within %.1f s (max latency %.2f s): %d while the server "
                        "was alive, %d in flight or sent while it was crashing or down"
                        % (len(slow), limit, max_latency, len(hangs), len(crashed_ones)))
    # (d)
    s500 = [r for r in live if r["status"] is not None and r["status"] >= 500 and r["status"] != 503]
    s503_bare = [r for r in live if r["status"] == 503 and not r["retry_after"]]
    if s500:
        failures.append("(d) %d answers 5xx other than 503 (%s)" % (len(s500), dict(collections.Counter(r["status"] for r in s500))))
    if s503_bare:
        failures.append("(d) %d answers 503 without Retry-After" % len(s503_bare))

    # What the crashed thread was doing: the first frame in lifelog's own sources, per crash.
    reports = []
    try:
        text = open(args.log, encoding="utf-8", errors="replace").read()
        for block in text.split("*** Program crashed")[1:]:
            crashed = block.split(" crashed:", 1)[1] if " crashed:" in block else ""
            section = crashed.split("\n\n")[1] if "\n\n" in crashed else crashed
            frames = re.findall(r"0x[0-9a-f]+ (.+?) in lifelog at (/\S*/Sources/\S+)", section)
            frames = [(re.sub(r" \+ \d+$", "", f), path) for f, path in frames]
            own = ["%s (%s)" % (f, path.split("/Sources/")[-1]) for f, path in frames if "/.build/" not in path]
            lib = ["%s (%s)" % (f, path.split("/.build/checkouts/")[-1]) for f, path in frames if "/.build/" in path]
            reports.append((lib[0] if lib else "?", own[0] if own else "?"))
    except OSError:
        pass

    print()
    print("(a) server alive after every cycle: %s; crash text in the log: %d lines%s"
          % ("yes" if not dead and tail_alive else "NO", len(crash_lines),
             "; the harness restarted the server %d times" % server.restarts if server.restarts else ""))
    messages = collections.Counter(re.sub(r"0x[0-9a-f]+|\d{4,}", "…", line) for _, _, line in crash_lines
                                   if "exited with status" not in line and "start-server" not in line)
    for message, n in messages.most_common(8):
        print("    %3d x %s" % (n, message[:200]))
    for i, (c, end) in enumerate(windows):
        lib, own = reports[i] if i < len(reports) else ("?", "?")
        print("    crash %d: first crash text at %s; crashed in %s, called from %s" % (i + 1, when(c), lib, own))
    print("(b) GET /me 200 after each restart: %s" % ", ".join(
        "c%d %s" % (cy["cycle"], "%.2fs" % cy["recovered"] if cy["recovered"] is not None else "never") for cy in cycles))
    print("(c) max latency %.2f s (limit %.1f s); %d requests slower or without an answer: %d while the server was alive, "
          "%d explained by a crash" % (max_latency, limit, len(slow), len(hangs), len(crashed_ones)))
    header = "    method path                                   cycle sent                            latency  status"
    if hangs:
        print("  while the server was alive (hangs):")
        print(header)
        for r in hangs[:40]:
            print("    " + describe(r))
        if len(hangs) > 40:
            print("    … %d more" % (len(hangs) - 40))
    if crashed_ones:
        print("  in flight while the server crashed, or sent while it was down: %s; the longest:"
              % ", ".join("%s %d" % kv for kv in collections.Counter(
                  r["error"] or str(r["status"]) for r in crashed_ones).most_common()))
        print(header)
        for r in crashed_ones[:10]:
            print("    " + describe(r))
    if slow:
        with open(os.path.join(args.work, "slow.txt"), "w") as out:
            for r in slow:
                out.write(("crash " if crash_affected(r) else "hang  ") + describe(r) + "\n")
        print("    (every one in %s)" % os.path.join(args.work, "slow.txt"))
    print("(d) 5xx other than 503: %d; 503 without Retry-After: %d" % (len(s500), len(s503_bare)))
    for r in s500[:10]:
        print("    " + describe(r))
    if restarted_for_verify:
        print("(e) the server was dead after the cycles; restarted it to count what is stored")
    for line in verify_lines:
        print(line)
    if final_crash or not final_alive:
        failures.append("(a) the server died during the retry phase" if not final_alive else
                        "(a) crash text in the log during the retry phase")
    print()
    if failures:
        print("FAIL")
        for f in failures:
            print("  " + f)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
