"""Nothing acknowledged is lost, in every area (issue 29): rounds of concurrent writes across
every area's main kinds, over HTTP, interrupted either by SIGKILL of the server (then a restart)
or by PostgreSQL stopped and started under a server that keeps running; then every write without
a 2xx is sent again with its Idempotency-Key, and what is stored is checked against what was sent.

Per round, on a fresh database of its own:
  - a few users (writes of different users interleave on the server, each user's on its own
    streams), each with a device key, two numeric habits and a boolean one, an expense category,
    two savings goals and the tasks the round will complete;
  - REQUESTS POSTs, each with its own Idempotency-Key, shuffled and sent by THREADS threads at
    once: habit logs (numeric and boolean, each to a date of its own, so a day's total is one
    log's value), task creations, task completions, finance transactions, savings deposits and
    health batches (samples and workouts, sent with the device key); beside them, one thread per
    user changes the profile (PATCH /api/v1/me) one change after the other, each with If-Match
    (PATCH takes no Idempotency-Key; If-Match makes a retry of a change that was stored a 412
    that stores nothing, and the retry then reads /me to see its change there);
  - at a random moment (after 10 to 90 % of the POSTs were answered 2xx) the server is killed
    with SIGKILL and started again, or (10 to 60 %) PostgreSQL is stopped for DOWN seconds, every
    other time as a crash (immediate mode), and started again while the load goes on;
  - every write without a 2xx (no answer, a 503, or not sent before the kill) is sent again
    with its key until it gets one (bounded), and 20 acknowledged ones are replayed;
  - checks, each a failure when it does not hold: every write is read back through the API
    with exactly the fields it sent (habit logs by day total, tasks, transactions, deposits by
    listing, health samples and workouts through GET /api/v1/export, the profile through GET
    /me); each is stored once (the events table counted per type through psql against what was
    sent, the read models' rows likewise, each profile change's name in exactly one event); no
    answer 5xx other than 503; every 503 with Retry-After; no 4xx to a write; after an outage
    GET /me answers 200 again without a restart of the server, which stays alive; replays answer
    the first answer's id.

Driven by bench/kill/run, which owns the PostgreSQL cluster and builds the server; this script
starts and kills the server itself (its pid in WORK/server.pid) and talks HTTP on loopback only.
Python 3 standard library only. Exit status 0 when every round passed, 1 otherwise.
"""
import argparse
import collections
import datetime
import decimal
import http.client
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

CLIENT_TIMEOUT = 30.0
CRASH_TEXT = re.compile(r"Fatal error|Precondition failed|Assertion failed|Program crashed|SIGILL|SIGSEGV|SIGABRT|SIGBUS|SIGTRAP")
PASSWORD = "correct horse battery staple"
T0 = time.monotonic()


def now():
    return time.monotonic() - T0


def log(message):
    print("kill: " + message, file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------------
# HTTP


class Answer:
    __slots__ = ("status", "body", "raw", "retry_after", "etag", "replayed", "error", "latency")

    def __init__(self):
        self.status = self.body = self.retry_after = self.etag = self.replayed = self.error = None
        self.raw = b""
        self.latency = 0.0

    @property
    def ok(self):
        return self.status is not None and 200 <= self.status < 300


class Client:
    def __init__(self, base):
        self.base = base

    def call(self, method, path, token=None, api_key=None, body=None, key=None, if_match=None, timeout=CLIENT_TIMEOUT):
        headers = {"Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = "Bearer " + token
        if api_key:
            headers["X-API-Key"] = api_key
        if key:
            headers["Idempotency-Key"] = key
        if if_match:
            headers["If-Match"] = if_match
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        answer = Answer()
        began = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                answer.status = response.status
                h = response.headers
                answer.raw = response.read()
        except urllib.error.HTTPError as error:
            answer.status = error.code
            h = error.headers
            try:
                answer.raw = error.read()
            except Exception:
                answer.raw = b""
        except urllib.error.URLError as error:
            h = None
            answer.error = "timeout" if isinstance(error.reason, (socket.timeout, TimeoutError)) else type(error.reason).__name__
        except (socket.timeout, TimeoutError):
            h, answer.error = None, "timeout"
        except (http.client.HTTPException, OSError) as error:
            h, answer.error = None, type(error).__name__
        if answer.error and answer.status is not None:
            # The head arrived and the body was cut (the kill fell between the two): no answer a
            # client could act on, so it is not an acknowledgement.
            answer.error = "%s after a %d head" % (answer.error, answer.status)
            answer.status, answer.raw = None, b""
        answer.latency = time.monotonic() - began
        if h is not None:
            answer.retry_after = h.get("Retry-After")
            answer.etag = h.get("ETag")
            answer.replayed = h.get("Idempotent-Replayed")
        if answer.raw and answer.status is not None:
            ctype = (h.get("Content-Type") or "") if h is not None else ""
            if "json" in ctype:
                try:
                    answer.body = json.loads(answer.raw)
                except ValueError:
                    answer.body = None
        return answer


# ------------------------------------------------------------------------------------------------
# The server and the database


class Server:
    """`lifelog serve` on a loopback port, started by this script so that SIGKILL hits exactly it."""

    def __init__(self, args, url, port, work):
        self.args, self.url, self.port, self.work = args, url, port, work
        self.process = None
        self.log_path = os.path.join(work, "serve.log")

    def start(self):
        env = dict(os.environ)
        env.update({
            "DATABASE_URL": self.url, "HOST": "127.0.0.1", "PORT": str(self.port),
            "JWT_SECRET": "kill-test-only-secret-0123456789-0123456789", "LOG_LEVEL": self.args.log_level,
            "LIFELOG_DATA_DIR": os.path.join(self.work, "data"), "PROJECTOR_POLL_MS": "200",
        })
        with open(self.log_path, "ab") as out:
            out.write(("=== kill harness: lifelog serve starting at %s\n" % datetime.datetime.now().isoformat()).encode())
            out.flush()
            self.process = subprocess.Popen([self.args.bin, "serve"], env=env, stdout=out, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, start_new_session=True)
        with open(os.path.join(self.args.work, "server.pid"), "w") as pid:
            pid.write(str(self.process.pid))
        began = time.monotonic()
        client = Client("http://127.0.0.1:%d" % self.port)
        while time.monotonic() - began < 90:
            if self.process.poll() is not None:
                raise SystemExit("kill: the server exited with status %s while starting; see %s"
                                 % (self.process.returncode, self.log_path))
            if client.call("GET", "/readyz", timeout=2).status == 200:
                return time.monotonic() - began
            time.sleep(0.1)
        raise SystemExit("kill: the server did not become ready in 90 s; see %s" % self.log_path)

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def kill(self):
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self):
        if not self.alive():
            return
        self.process.terminate()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Database:
    def __init__(self, psql, url):
        self.psql, self.url = psql, url

    def rows(self, sql):
        r = subprocess.run([self.psql, "-qtAX", "-F", "\t", self.url, "-c", sql], capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise RuntimeError("psql: %s" % r.stderr.strip())
        return [line.split("\t") for line in r.stdout.splitlines() if line]

    def event_counts(self):
        return {t: int(n) for t, n in self.rows("SELECT event_type, count(*) FROM events GROUP BY 1")}

    def model_counts(self):
        sql = """SELECT 'habit log days', count(*) FROM rm_habit_logs
          UNION ALL SELECT 'tasks', count(*) FROM rm_tasks
          UNION ALL SELECT 'completed tasks', count(*) FROM rm_tasks WHERE completed
          UNION ALL SELECT 'transactions', count(*) FROM rm_fin_transactions
          UNION ALL SELECT 'savings movements', count(*) FROM rm_savings_movements
          UNION ALL SELECT 'health records', count(*) FROM rm_health_records"""
        return {name: int(n) for name, n in self.rows(sql)}


# ------------------------------------------------------------------------------------------------
# Users, and the writes of a round


def day(offset_days):
    """A UTC date this many days back (the users live in UTC; two days back is never 'future',
    whatever the day's start hour)."""
    return (datetime.datetime.now(datetime.timezone.utc).date() - datetime.timedelta(days=offset_days)).isoformat()


def must(answer, what, ok=(200, 201)):
    if answer.status not in ok:
        raise SystemExit("kill: setup failed: %s answered %s %s %s"
                         % (what, answer.status, answer.error or "", answer.raw[:300]))
    return answer.body


class User:
    def __init__(self, n, tag):
        self.n = n
        self.email = "kill-%s-%d@example.com" % (tag, n)
        self.id = self.token = self.api_key = self.etag = None
        self.num_habits, self.bool_habit, self.category, self.goals = [], None, None, []
        self.open_tasks = []          # created in setup, each completed by one write of the round
        self.habit_days = {}          # habit id -> the days still free, shuffled
        self.sample_seq = 0
        self.patches = []
        self.lock = threading.Lock()


def setup_user(client, n, tag, completions, rng):
    u = User(n, tag)
    a = client.call("POST", "/api/v1/auth/register",
                    body={"email": u.email, "password": PASSWORD, "name": "Kill %s %d" % (tag, n), "timezone": "UTC"})
    body = must(a, "register")
    u.token, u.id = body["access_token"], body["user"]["id"]
    t = u.token
    u.api_key = must(client.call("POST", "/api/v1/devices", t, body={"name": "Kill watch %d" % n, "kind": "watch"},
                                 key="setup-device"), "POST /devices")["api_key"]
    for i in range(2):
        h = must(client.call("POST", "/api/v1/habits", t, key="setup-num-%d" % i, body={
            "name": "Water %d" % i, "kind": "numeric", "target": 8, "unit": "glasses", "schedule": {"type": "daily"},
            "start_date": day(740)}), "POST /habits (numeric)")
        u.num_habits.append(h["id"])
    u.bool_habit = must(client.call("POST", "/api/v1/habits", t, key="setup-bool", body={
        "name": "Stretch", "kind": "boolean", "schedule": {"type": "daily"}, "start_date": day(740)}),
        "POST /habits (boolean)")["id"]
    for h in u.num_habits + [u.bool_habit]:
        days = list(range(2, 730))
        rng.shuffle(days)
        u.habit_days[h] = days
    u.category = must(client.call("POST", "/api/v1/finance/categories", t, key="setup-category",
                                  body={"name": "Groceries", "kind": "expense"}), "POST /finance/categories")["id"]
    for i in range(2):
        g = must(client.call("POST", "/api/v1/savings/goals", t, key="setup-goal-%d" % i, body={
            "name": "Goal %d" % i, "currency": "EUR", "target_amount": "100000.00"}), "POST /savings/goals")
        u.goals.append(g["id"])
    for i in range(completions):
        task = must(client.call("POST", "/api/v1/tasks", t, key="setup-task-%d" % i,
                                body={"title": "to complete %d" % i, "priority": 1 + i % 3}), "POST /tasks (setup)")
        u.open_tasks.append(task["id"])
    me = client.call("GET", "/api/v1/me", t)
    must(me, "GET /me")
    u.etag = me.etag
    return u


class Write:
    """One POST of the round: what it sends, and every answer it got."""
    __slots__ = ("n", "kind", "user", "path", "body", "key", "device", "first", "final", "attempts", "not_sent",
                 "resource", "lock", "retry_latency")

    def __init__(self, n, kind, user, path, body, key, device=False):
        self.n, self.kind, self.user, self.path, self.body, self.key, self.device = n, kind, user, path, body, key, device
        self.first = None        # the answer during the load
        self.final = None        # the first 2xx it got, during the load or on retry
        self.attempts = []       # (phase, status or error, retry_after)
        self.not_sent = False    # the kill came before its turn
        self.resource = None     # what it created or changed (an id, a task id, a habit id and date)
        self.lock = threading.Lock()
        self.retry_latency = None  # the answer time of its first retry

    def send(self, client, phase):
        if self.device:
            a = client.call("POST", self.path, api_key=self.user.api_key, body=self.body, key=self.key)
        else:
            a = client.call("POST", self.path, self.user.token, body=self.body, key=self.key)
        with self.lock:
            self.attempts.append((phase, a.status if a.status is not None else a.error, a.retry_after))
            if phase == "load":
                self.first = a
            if phase == "retry" and self.retry_latency is None:
                self.retry_latency = a.latency
            if a.ok and self.final is None:
                self.final = a
        return a


class Patch:
    """One profile change (PATCH /me with If-Match), sent after the previous one of its user."""
    __slots__ = ("n", "user", "body", "if_match", "attempts", "acked", "stored_by", "problem")

    def __init__(self, n, user, body, if_match):
        self.n, self.user, self.body, self.if_match = n, user, body, if_match
        self.attempts = []
        self.acked = False       # a 200 during the load
        self.stored_by = None    # "answer" (200), or "earlier attempt" (412, and /me shows it)
        self.problem = None


KINDS = [  # kind, share of the POSTs
    ("habit_log", 0.20), ("habit_bool", 0.06), ("task_create", 0.16), ("task_complete", 0.10),
    ("transaction", 0.18), ("deposit", 0.14), ("health", 0.16)]
EVENT_OF = {"habit_log": "habit.logged", "habit_bool": "habit.logged", "task_create": "task.created",
            "task_complete": "task.completed", "transaction": "finance.transaction.recorded",
            "deposit": "savings.movement_added", "health": "health.records_stored", "patch": "user.profile_changed"}


def plan_counts(requests):
    counts = {k: int(requests * share) for k, share in KINDS}
    counts["habit_log"] += requests - sum(counts.values())
    return counts


def plan_writes(users, counts, tag, rng, sample_base):
    writes = []
    n = 0
    for kind, _ in KINDS:
        for i in range(counts[kind]):
            u = users[rng.randrange(len(users))] if kind != "task_complete" else None
            key = "%s-%s-%d" % (tag, kind, i)
            if kind == "habit_log":
                habit = u.num_habits[i % 2]
                date = day(u.habit_days[habit].pop())
                # A value of its own, with up to three decimals: the day's total must be exactly it.
                value = float("%d.%03d" % (1 + rng.randrange(500), rng.randrange(1000)))
                w = Write(n, kind, u, "/api/v1/habits/%s/logs" % habit, {"date": date, "value": value}, key)
                w.resource = (habit, date)
            elif kind == "habit_bool":
                date = day(u.habit_days[u.bool_habit].pop())
                w = Write(n, kind, u, "/api/v1/habits/%s/logs" % u.bool_habit, {"date": date}, key)
                w.resource = (u.bool_habit, date)
            elif kind == "task_create":
                body = {"title": key, "notes": "notes of %s, line one\nline two" % key, "priority": 1 + rng.randrange(3)}
                if rng.random() < 0.6:
                    body["due_date"] = day(rng.randrange(-30, 30))
                    if rng.random() < 0.5:
                        body["due_time"] = "%02d:%02d" % (rng.randrange(24), rng.randrange(60))
                w = Write(n, kind, u, "/api/v1/tasks", body, key)
            elif kind == "task_complete":
                # Spread over the users whose setup made the tasks, one completion per task.
                u = users[i % len(users)]
                task = u.open_tasks[i // len(users)]
                w = Write(n, kind, u, "/api/v1/tasks/%s/complete" % task, None, key)
                w.resource = task
            elif kind == "transaction":
                body = {"kind": "expense", "amount": "%d.%02d" % (1 + rng.randrange(900), rng.randrange(100)),
                        "currency": "EUR", "date": day(2 + rng.randrange(300)), "note": key}
                if rng.random() < 0.5:
                    body["category_id"] = u.category
                w = Write(n, kind, u, "/api/v1/finance/transactions", body, key)
            elif kind == "deposit":
                goal = u.goals[rng.randrange(2)]
                body = {"kind": "deposit", "amount": "%d.%02d" % (1 + rng.randrange(200), rng.randrange(100)),
                        "currency": "EUR", "date": day(2 + rng.randrange(200)), "note": key}
                w = Write(n, kind, u, "/api/v1/savings/goals/%s/transactions" % goal, body, key)
                w.resource = goal
            else:  # health: four samples, and a workout in every third batch, sent with the device key
                samples = []
                for j in range(4):
                    u.sample_seq += 1
                    s = u.sample_seq
                    start = sample_base + datetime.timedelta(seconds=60 * s)
                    metric, unit, value = (("heart_rate", "count/min", 50 + rng.randrange(120)) if j % 2 == 0
                                           else ("steps", "count", 1 + rng.randrange(3000)))
                    samples.append({"uuid": "%s-u%d-s%d" % (tag, u.n, s), "metric": metric, "value": value, "unit": unit,
                                    "start": iso(start), "end": iso(start + datetime.timedelta(seconds=30)),
                                    "source": {"name": "Kill Watch", "kind": "watch"}})
                body = {"samples": samples}
                if i % 3 == 0:
                    u.sample_seq += 1
                    start = sample_base + datetime.timedelta(seconds=60 * u.sample_seq)
                    body["workouts"] = [{"uuid": "%s-u%d-w%d" % (tag, u.n, u.sample_seq), "type": "running",
                                         "start": iso(start), "end": iso(start + datetime.timedelta(seconds=50)),
                                         "active_energy_kcal": 1 + rng.randrange(40), "distance_m": 10 + rng.randrange(200),
                                         "source": {"name": "Kill Watch", "kind": "watch"}}]
                w = Write(n, kind, u, "/api/v1/ingest/health", body, key, device=True)
            writes.append(w)
            n += 1
    rng.shuffle(writes)
    return writes


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


# ------------------------------------------------------------------------------------------------
# Profile changes: one chain per user, each change with If-Match


def resolve_patch(client, p, phase, keep_going):
    """Sends one change until it is known stored: 200, or 412 with /me showing it (an earlier
    attempt stored it). A 503 is retried after its Retry-After (at most 1 s) while keep_going()."""
    while True:
        a = client.call("PATCH", "/api/v1/me", p.user.token, body=p.body, if_match=p.if_match)
        p.attempts.append((phase, a.status if a.status is not None else a.error, a.retry_after))
        if a.status == 200:
            p.stored_by = "answer"
            if phase == "load":
                p.acked = True
            p.user.etag = a.etag
            return True
        if a.status == 412:
            for _ in range(60):
                me = client.call("GET", "/api/v1/me", p.user.token)
                if me.status == 200:
                    break
                time.sleep(0.5)
            if me.status == 200 and me.body.get("name") == p.body["name"]:
                p.stored_by = "earlier attempt"
                p.user.etag = me.etag
                return True
            p.problem = "412, and GET /me shows %r, not this change" % ((me.body or {}).get("name"),)
            return False
        if a.status == 503 and keep_going():
            try:
                wait = min(float(a.retry_after or 1), 1.0)
            except ValueError:
                wait = 1.0
            time.sleep(wait)
            continue
        return False


def patch_chain(client, u, tag, stop, cap, pending):
    while not stop.is_set() and len(u.patches) < cap:
        k = len(u.patches) + 1
        p = Patch(k, u, {"name": "Kill %s user %d change %d" % (tag, u.n, k), "week_start": 1 + k % 7}, u.etag)
        u.patches.append(p)
        if not resolve_patch(client, p, "load", lambda: not stop.is_set()):
            if p.problem is None:
                pending.append(p)
            return
        time.sleep(0.03)


# ------------------------------------------------------------------------------------------------
# One round


class Round:
    def __init__(self, number, mode, crash=False):
        self.number, self.mode, self.crash = number, mode, crash
        self.failures = []
        self.facts = collections.OrderedDict()
        self.lines = []

    def fail(self, message):
        self.failures.append(message)


def list_all(client, path, token, what, r):
    items, cursor = [], None
    for _ in range(1000):
        sep = "&" if "?" in path else "?"
        page = path + sep + "limit=100" + ("&cursor=" + urllib.request.quote(cursor, safe="") if cursor else "")
        a = None
        for _ in range(20):
            a = client.call("GET", page, token)
            if a.status == 200:
                break
            time.sleep(0.5)
        if a.status != 200:
            r.fail("could not read %s: %s %s" % (what, a.status, a.error))
            return None
        items.extend(a.body.get("items", []))
        cursor = a.body.get("next_cursor")
        if not cursor:
            return items
    r.fail("%s: more than 1000 pages" % what)
    return None


def same_number(a, b):
    try:
        return decimal.Decimal(str(a)) == decimal.Decimal(str(b))
    except (decimal.InvalidOperation, TypeError):
        return False


def run_round(args, number, mode, rng, crash=False):
    r = Round(number, mode, crash)
    tag = "%s%d-%d" % (mode[0], number, int(time.time()) % 100000)
    db_name = "kill_%s_%d" % (mode, number)
    admin = Database(args.psql, args.admin)
    admin.rows("DROP DATABASE IF EXISTS %s" % db_name)
    admin.rows("CREATE DATABASE %s" % db_name)
    url = args.admin.rsplit("/", 1)[0] + "/" + db_name
    db = Database(args.psql, url)
    work = os.path.join(args.work, "round-%d-%s" % (number, mode))
    os.makedirs(work, exist_ok=True)
    port = free_port()
    server = Server(args, url, port, work)
    client = Client("http://127.0.0.1:%d" % port)
    round_began = time.monotonic()
    try:
        server.start()
        return drive(args, r, tag, rng, server, client, db, work)
    finally:
        server.stop()
        r.facts["round s"] = time.monotonic() - round_began
        # A crash of its own (a trap, a failed precondition) leaves Swift's report in the log.
        with open(server.log_path, errors="replace") as text:
            crashes = [line.strip() for line in text if CRASH_TEXT.search(line)]
        if crashes:
            r.fail("crash text in the server's log (%s): %s" % (server.log_path, crashes[:3]))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def drive(args, r, tag, rng, server, client, db, work):
    setup_began = time.monotonic()
    counts = plan_counts(args.requests)
    per_user = -(-counts["task_complete"] // args.users)
    with ThreadPoolExecutor(max_workers=args.users) as pool:
        users = list(pool.map(lambda n: setup_user(client, n, tag, per_user, random.Random(rng.random())),
                              range(args.users)))
    sample_base = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0, second=0) - datetime.timedelta(days=2)
    writes = plan_writes(users, counts, tag, rng, sample_base)
    events_before, models_before = db.event_counts(), db.model_counts()
    changed_before = collections.Counter({owner: int(count) for (owner, count) in db.rows(
        "SELECT owner_id::text, count(*) FROM events WHERE event_type = 'user.profile_changed' GROUP BY owner_id")})
    setup_s = time.monotonic() - setup_began

    # ---------------------------------------------------------------- the load, and the disruption
    acked = [0]
    lock = threading.Lock()
    killed = threading.Event()      # no write is sent after the kill (the server is gone)
    load_done = threading.Event()
    pending_patches = []

    def send(w):
        if killed.is_set():
            w.not_sent = True
            return
        a = w.send(client, "load")
        if a.ok:
            with lock:
                acked[0] += 1

    at_share = rng.uniform(0.1, 0.9) if r.mode == "kill" else rng.uniform(0.1, 0.6)
    at = int(len(writes) * at_share)
    chains = [threading.Thread(target=patch_chain, args=(client, u, tag, load_done, args.patches, pending_patches), daemon=True)
              for u in users]
    began = time.monotonic()
    disruption = {}
    with ThreadPoolExecutor(max_workers=args.threads) as pool:
        futures = [pool.submit(send, w) for w in writes]
        for c in chains:
            c.start()
        while True:
            with lock:
                if acked[0] >= at:
                    break
            if all(f.done() for f in futures):
                break
            time.sleep(0.002)
        disruption["at s"] = time.monotonic() - began
        disruption["acked before"] = acked[0]
        if r.mode == "kill":
            if not server.alive():
                r.fail("the server had died before the kill (exit status %s)" % server.process.returncode)
            killed.set()
            server.kill()
            load_done.set()
            for f in futures:
                f.result()
            for c in chains:
                c.join(CLIENT_TIMEOUT + 5)
            restart_began = time.monotonic()
            server.start()
            disruption["back after s"] = time.monotonic() - restart_began
        else:
            t = time.monotonic()
            # Every other outage is a crash of PostgreSQL (immediate mode): what it had committed
            # comes back from the WAL.
            stop = subprocess.run(args.pg_crash if r.crash else args.pg_stop, shell=True, capture_output=True, text=True)
            if stop.returncode != 0:
                r.fail("stopping PostgreSQL failed: %s" % stop.stderr.strip()[-300:])
            time.sleep(args.down)
            start = subprocess.run(args.pg_start, shell=True, capture_output=True, text=True)
            if start.returncode != 0 or start.stdout.strip() != args.admin:
                r.fail("PostgreSQL did not come back on the same address: %r %s" % (start.stdout.strip(), start.stderr.strip()[-300:]))
            started = time.monotonic()
            disruption["down s"] = started - t
            # Recovery without a restart: GET /me 200 again within 30 s, the same process alive.
            back = None
            probes = collections.Counter()
            while time.monotonic() - started < 30:
                a = client.call("GET", "/api/v1/me", users[0].token, timeout=10)
                probes[a.status if a.status is not None else a.error] += 1
                if a.status is not None and a.status >= 500 and (a.status != 503 or not a.retry_after):
                    r.fail("GET /me after PostgreSQL was back answered %s%s" % (a.status, "" if a.retry_after else " without Retry-After"))
                if a.status == 200:
                    back = time.monotonic() - started
                    break
                time.sleep(0.1)
            disruption["probes"] = probes
            disruption["back after s"] = back
            if back is None:
                r.fail("GET /me not 200 within 30 s after PostgreSQL was back")
            for f in futures:
                f.result()
            load_done.set()
            for c in chains:
                c.join(CLIENT_TIMEOUT + 5)
            if not server.alive():
                r.fail("the server died (exit status %s)" % server.process.returncode)
    load_s = time.monotonic() - began

    # ---------------------------------------------------------------- the retries
    retry_began = time.monotonic()
    unanswered = [w for w in writes if w.final is None]
    gave_up = []

    def retry(w):
        end = time.monotonic() + 60
        while time.monotonic() < end:
            a = w.send(client, "retry")
            if a.ok:
                return
            if a.status is not None and a.status != 503:
                break
            time.sleep(min(float(a.retry_after or 0.5), 1.0) if a.status == 503 else 0.5)
        gave_up.append(w)

    with ThreadPoolExecutor(max_workers=args.threads) as pool:
        list(pool.map(retry, unanswered))
    for p in pending_patches:
        if not resolve_patch(client, p, "retry", lambda: True) and p.problem is None:
            p.problem = "no 200 on retry: %s" % (p.attempts[-1:],)
    # Replays of acknowledged writes: the first answer's resource again.
    replays_differing = []
    answered_first = [w for w in writes if w.first is not None and w.first.ok]
    for w in rng.sample(answered_first, min(20, len(answered_first))):
        a = w.send(client, "replay")
        if not a.ok or created_id(w, a) != created_id(w, w.first):
            replays_differing.append((w.key, a.status))
    retry_s = time.monotonic() - retry_began
    if not server.alive():
        r.fail("the server died during the retries (exit status %s)" % server.process.returncode)

    # ---------------------------------------------------------------- what the answers were
    statuses = collections.Counter()
    bad = []
    for w in writes:
        for phase, status, retry_after in w.attempts:
            statuses[status] += 1
            if isinstance(status, int) and status >= 500 and status != 503:
                bad.append("%s %s: %s (%s)" % (phase, w.key, status, w.path))
            elif status == 503 and not retry_after:
                bad.append("%s %s: 503 without Retry-After" % (phase, w.key))
            elif isinstance(status, int) and 400 <= status < 500:
                bad.append("%s %s: %s (%s)" % (phase, w.key, status, w.path))
    for u in users:
        for p in u.patches:
            for phase, status, retry_after in p.attempts:
                statuses[status] += 1
                if isinstance(status, int) and status >= 500 and status != 503:
                    bad.append("%s PATCH /me %d of user %d: %s" % (phase, p.n, u.n, status))
                elif status == 503 and not retry_after:
                    bad.append("%s PATCH /me: 503 without Retry-After" % phase)
                elif isinstance(status, int) and 400 <= status < 500 and status != 412:
                    bad.append("%s PATCH /me %d of user %d: %s" % (phase, p.n, u.n, status))
            if p.problem:
                r.fail("profile change %d of user %d: %s" % (p.n, u.n, p.problem))
    if bad:
        r.fail("%d answers that must not happen (a 5xx other than 503, a 503 without Retry-After, a 4xx): %s"
               % (len(bad), bad[:5]))
    if gave_up:
        r.fail("%d writes never got a 2xx on retry: %s" % (len(gave_up), [(w.key, w.attempts[-1]) for w in gave_up[:5]]))
    if replays_differing:
        r.fail("%d replays did not answer the first answer's resource: %s" % (len(replays_differing), replays_differing[:5]))

    if args.sabotage:
        sabotage(client, writes, users, rng, r)

    # ---------------------------------------------------------------- what is stored
    verify_began = time.monotonic()
    mismatches = collections.Counter()
    lost = collections.Counter()
    doubled = collections.Counter()
    examples = []

    def mismatch(w, what):
        mismatches[w.kind] += 1
        if len(examples) < 8:
            examples.append("%s: %s" % (w.key, what))

    by_user = collections.defaultdict(list)
    for w in writes:
        by_user[w.user.n].append(w)
    for u in users:
        mine = by_user[u.n]
        check_habits(client, u, [w for w in mine if w.kind in ("habit_log", "habit_bool")], r, mismatch, lost, doubled)
        check_tasks(client, u, [w for w in mine if w.kind in ("task_create", "task_complete")], r, mismatch, lost, doubled)
        check_transactions(client, u, [w for w in mine if w.kind == "transaction"], r, mismatch, lost, doubled)
        check_deposits(client, u, [w for w in mine if w.kind == "deposit"], r, mismatch, lost, doubled)
        check_health(client, u, [w for w in mine if w.kind == "health"], r, mismatch, lost, doubled)
        check_profile(client, u, r, mismatch, lost)

    # The async read models: once the projectors have caught up (none set aside), the health days
    # count every sample once, whatever the kill or the outage interrupted.
    lag = projectors_caught_up(args.bin, db.url, 30)
    if lag:
        r.fail("async projectors not caught up 30 s after the retries (lag, set aside): %s" % lag)
    sent_per_metric = collections.Counter(s["metric"] for w in writes if w.kind == "health" for s in w.body["samples"])
    days = {m: int(n) for m, n in db.rows("SELECT metric, sum(samples) FROM rm_health_daily GROUP BY 1")}
    day_lines = []
    for metric, sent in sorted(sent_per_metric.items()):
        day_lines.append("%s %d/%d" % (metric, days.get(metric, 0), sent))
        if days.get(metric, 0) != sent:
            r.fail("health days count %d %s samples, %d sent" % (days.get(metric, 0), metric, sent))

    # The log and the read models, counted through psql against what was sent.
    events_after, models_after = db.event_counts(), db.model_counts()
    kinds = collections.Counter(w.kind for w in writes)
    patches = [p for u in users for p in u.patches]
    expected_events = collections.Counter()
    for kind, n in kinds.items():
        expected_events[EVENT_OF[kind]] += n
    expected_events["user.profile_changed"] += len(patches)
    event_lines = []
    for etype in sorted(set(expected_events) | {t for t in events_after if events_after[t] != events_before.get(t, 0)}):
        delta = events_after.get(etype, 0) - events_before.get(etype, 0)
        ok = delta == expected_events.get(etype, 0)
        event_lines.append("%s %d/%d" % (etype, delta, expected_events.get(etype, 0)))
        if not ok:
            r.fail("events of type %s: %d stored by the round, %d sent" % (etype, delta, expected_events.get(etype, 0)))
    samples = sum(len(w.body["samples"]) + len(w.body.get("workouts", [])) for w in writes if w.kind == "health")
    expected_models = {"habit log days": kinds["habit_log"] + kinds["habit_bool"], "tasks": kinds["task_create"],
                       "completed tasks": kinds["task_complete"], "transactions": kinds["transaction"],
                       "savings movements": kinds["deposit"], "health records": samples}
    model_lines = []
    for name, expected in expected_models.items():
        delta = models_after[name] - models_before[name]
        model_lines.append("%s %d/%d" % (name, delta, expected))
        if delta != expected:
            r.fail("read model rows (%s): %d added by the round, %d sent" % (name, delta, expected))
    # Each profile change in exactly one user.profile_changed event: as many events per user as
    # changes sent (the log's payloads are sealed, so it is counted by owner, not read by name;
    # what each change holds is checked through /me, at its answer or at its 412's read-back).
    changed = collections.Counter({owner: int(count) for (owner, count) in db.rows(
        "SELECT owner_id::text, count(*) FROM events WHERE event_type = 'user.profile_changed' GROUP BY owner_id")})
    sent_by = collections.Counter(p.user.id for p in patches)
    for user_id, sent in sorted(sent_by.items()):
        c = changed.get(user_id, 0) - changed_before.get(user_id, 0)
        if c != sent:
            (doubled if c > sent else lost)["patch"] += abs(c - sent)
            r.fail("profile changes of user %s: %d events, %d sent" % (user_id, c, sent))

    for what, counter in (("lost", lost), ("doubled", doubled), ("content mismatches", mismatches)):
        if counter:
            r.fail("%s: %s" % (what, dict(counter)))
    if examples:
        r.fail("e.g. " + "; ".join(examples))

    # ---------------------------------------------------------------- the round's facts
    sent_load = [w for w in writes if not w.not_sent]
    r.facts.update({
        "writes": len(writes) + len(patches),
        "posts": len(writes),
        "patches": len(patches),
        "at s": disruption.get("at s"),
        "acked before": disruption.get("acked before"),
        "2xx in load": sum(1 for w in sent_load if w.first is not None and w.first.ok) + sum(1 for p in patches if p.acked),
        "no answer": sum(1 for w in sent_load if w.first is not None and w.first.status is None)
        + sum(1 for p in patches if any(s[0] == "load" and not isinstance(s[1], int) for s in p.attempts)),
        "503": statuses.get(503, 0),
        "not sent": sum(1 for w in writes if w.not_sent),
        "retried": len(unanswered) + len(pending_patches),
        "back after s": disruption.get("back after s"),
        "down s": disruption.get("down s"),
        "load s": load_s,
        "retry s": retry_s,
        "lost": sum(lost.values()),
        "doubled": sum(doubled.values()),
        "mismatched": sum(mismatches.values()),
        "5xx not 503": sum(n for s, n in statuses.items() if isinstance(s, int) and s >= 500 and s != 503),
    })
    r.lines.append("    time: setup %.1f s, load %.1f s (the %s at %.2f s), retries %.1f s, checks %.1f s"
                   % (setup_s, load_s, "kill" if r.mode == "kill" else "stop", disruption.get("at s") or 0, retry_s,
                      time.monotonic() - verify_began))
    if "probes" in disruption:
        r.lines.append("    GET /me after PostgreSQL was back, until 200: " + ", ".join(
            "%s: %d" % kv for kv in sorted(disruption["probes"].items(), key=lambda kv: str(kv[0]))))
    waited = sorted(w.retry_latency for w in writes if w.retry_latency is not None and w.first is not None)
    if waited:
        r.lines.append("    first retries of writes sent before the %s: %d, answered in %.2f s at the median, %.2f s at most; "
                       "%d of them after 4.5 s or more (a first attempt's claim on its key is waited for, up to 5 s)"
                       % ("kill" if r.mode == "kill" else "retries", len(waited), waited[len(waited) // 2], waited[-1],
                          sum(1 for x in waited if x >= 4.5)))
    r.lines.append("    sent: " + ", ".join("%s %d" % (k, kinds[k]) for k, _ in KINDS) + ", profile changes %d" % len(patches))
    r.lines.append("    answers: " + ", ".join("%s: %d" % (k, v) for k, v in sorted(statuses.items(), key=lambda kv: str(kv[0]))))
    r.lines.append("    events (stored by the round/sent): " + ", ".join(event_lines))
    r.lines.append("    read-model rows (added/sent): " + ", ".join(model_lines))
    r.lines.append("    async health days, samples counted/sent: " + ", ".join(day_lines)
                   + (", projectors caught up" if not lag else ", projectors BEHIND"))
    return r


def sabotage(client, writes, users, rng, r):
    """The checks' own test (KILL_SABOTAGE=1): after the retries, two writes are stored twice (sent
    again under new keys), the records of two others no longer say what the server stored (a
    transaction's amount, a task's title), and a profile change is made that the round does not
    know of. The round must then fail with losses, doubles, a content mismatch and event counts off."""
    acked = [w for w in writes if w.final is not None]
    log_w = next(w for w in acked if w.kind == "habit_log")
    tx = [w for w in acked if w.kind == "transaction"]
    for w in (log_w, tx[0]):
        a = client.call("POST", w.path, w.user.token, body=w.body, key=w.key + "-again")
        r.lines.append("    sabotage: %s sent again under a new key: %s" % (w.key, a.status))
    tx[1].body["amount"] = "%s1" % tx[1].body["amount"][:-1]
    task = next(w for w in acked if w.kind == "task_create")
    task.key += "-renamed"
    # A profile change the round did not send: one event more than its changes.
    u = users[-1]
    extra = client.call("PATCH", "/api/v1/me", u.token, body={"name": "Kill sabotage extra change"})
    r.lines.append("    sabotage: the records of %s (amount) and %s (title) altered; a profile change sent unrecorded: %s"
                   % (tx[1].key, task.key, extra.status))


def projectors_caught_up(binary, url, seconds):
    """Polls `lifelog projections status` until every async projector has lag 0 and nothing set
    aside; answers what is still behind ({} when all caught up)."""
    end = time.monotonic() + seconds
    behind = {"status": "never read"}
    while time.monotonic() < end:
        env = dict(os.environ, DATABASE_URL=url, LOG_LEVEL="error")
        out = subprocess.run([binary, "projections", "status"], env=env, capture_output=True, text=True, timeout=60)
        rows = [line.split() for line in out.stdout.splitlines()[1:] if line.strip()]
        asynchronous = [row for row in rows if len(row) >= 6 and row[1] == "async"]
        if out.returncode == 0 and asynchronous:
            behind = {row[0]: (row[3], row[-1]) for row in asynchronous if row[3] != "0" or row[-1] != "0"}
            if not behind:
                return {}
        else:
            behind = {"status": (out.returncode, out.stderr.strip()[-200:])}
        time.sleep(0.5)
    return behind


def created_id(w, a):
    """What an answer names: the created resource's id, or for a log or a completion the state
    it changed (compared as a whole would include times that move; the id and the date do not)."""
    b = a.body or {}
    if w.kind in ("task_create", "transaction", "deposit", "task_complete"):
        return b.get("id")
    if w.kind in ("habit_log", "habit_bool"):
        return b.get("id")
    if w.kind == "health":
        return (b.get("received"),)
    return None


# ------------------------------------------------------------------------------------------------
# Reading back, per area


def check_habits(client, u, writes, r, mismatch, lost, doubled):
    by_habit = collections.defaultdict(list)
    for w in writes:
        by_habit[w.resource[0]].append(w)
    for habit in u.num_habits + [u.bool_habit]:
        a = None
        for _ in range(20):
            a = client.call("GET", "/api/v1/habits/%s/logs?from=%s&to=%s" % (habit, day(740), day(0)), u.token)
            if a.status == 200:
                break
            time.sleep(0.5)
        if a.status != 200:
            r.fail("could not read the logs of habit %s: %s" % (habit, a.status))
            continue
        stored = {i["date"]: i["value"] for i in a.body.get("items", [])}
        sent = {w.resource[1]: w for w in by_habit[habit]}
        for date, w in sent.items():
            if date not in stored:
                lost[w.kind] += 1
                mismatch(w, "no log on %s" % date)
                continue
            expected = w.body.get("value", 1)
            if not same_number(stored[date], expected):
                # Two of the same log add up: that is a double, not another value.
                if same_number(stored[date], 2 * decimal.Decimal(str(expected))) and w.kind == "habit_log":
                    doubled[w.kind] += 1
                mismatch(w, "day total %s, sent %s" % (stored[date], expected))
        extra = set(stored) - set(sent)
        if extra:
            r.fail("habit %s has logs on days nobody logged: %s" % (habit, sorted(extra)[:5]))


def check_tasks(client, u, writes, r, mismatch, lost, doubled):
    tasks = list_all(client, "/api/v1/tasks?filter=all", u.token, "tasks of user %d" % u.n, r)
    if tasks is None:
        return
    by_title = collections.defaultdict(list)
    by_id = {}
    for t in tasks:
        by_title[t["title"]].append(t)
        by_id[t["id"]] = t
    for w in writes:
        if w.kind == "task_create":
            found = by_title.get(w.key, [])
            if not found:
                lost[w.kind] += 1
                mismatch(w, "no task titled so")
                continue
            if len(found) > 1:
                doubled[w.kind] += 1
                mismatch(w, "%d tasks titled so" % len(found))
            t = found[0]
            for field in ("title", "notes", "priority", "due_date", "due_time"):
                if t.get(field) != w.body.get(field):
                    mismatch(w, "%s %r, sent %r" % (field, t.get(field), w.body.get(field)))
            if t.get("completed"):
                mismatch(w, "completed, sent as open")
            if w.first is not None and w.first.ok and w.first.body.get("id") != t["id"]:
                mismatch(w, "stored as %s, answered %s" % (t["id"], w.first.body.get("id")))
        else:
            t = by_id.get(w.resource)
            if t is None:
                lost[w.kind] += 1
                mismatch(w, "the completed task is gone")
            elif not t.get("completed") or not t.get("completed_at"):
                lost[w.kind] += 1
                mismatch(w, "task %s not completed" % w.resource)
    completed_ids = {w.resource for w in writes if w.kind == "task_complete"}
    for t in tasks:
        if t["title"].startswith("to complete ") and t.get("completed") and t["id"] not in completed_ids:
            r.fail("task %s completed though no write completed it" % t["id"])


def check_by_note(items, writes, fields, mismatch, lost, doubled, extra_check=None):
    by_note = collections.defaultdict(list)
    for item in items:
        by_note[item.get("note")].append(item)
    for w in writes:
        found = by_note.get(w.key, [])
        if not found:
            lost[w.kind] += 1
            mismatch(w, "not stored")
            continue
        if len(found) > 1:
            doubled[w.kind] += 1
            mismatch(w, "stored %d times" % len(found))
        item = found[0]
        for field in fields:
            sent, got = w.body.get(field), item.get(field)
            if field == "amount":
                if got is None or not same_number(got, sent) or got != sent:
                    mismatch(w, "amount %r, sent %r" % (got, sent))
            elif got != sent:
                mismatch(w, "%s %r, sent %r" % (field, got, sent))
        if w.first is not None and w.first.ok and (w.first.body or {}).get("id") != item.get("id"):
            mismatch(w, "stored as %s, answered %s" % (item.get("id"), (w.first.body or {}).get("id")))
        if extra_check:
            extra_check(w, item)


def check_transactions(client, u, writes, r, mismatch, lost, doubled):
    items = list_all(client, "/api/v1/finance/transactions", u.token, "transactions of user %d" % u.n, r)
    if items is None:
        return
    # An expense's amount is listed as sent (the kind says which way it went).
    check_by_note(items, writes, ("kind", "amount", "currency", "date", "note", "category_id"), mismatch, lost, doubled)


def check_deposits(client, u, writes, r, mismatch, lost, doubled):
    items = []
    for goal in u.goals:
        got = list_all(client, "/api/v1/savings/goals/%s/transactions" % goal, u.token, "movements of goal %s" % goal, r)
        if got is None:
            return
        items.extend(got)

    def same_goal(w, item):
        if item.get("goal_id") != w.resource:
            mismatch(w, "in goal %s, sent to %s" % (item.get("goal_id"), w.resource))
        if item.get("created_by") != u.id:
            mismatch(w, "created_by %s" % item.get("created_by"))
    check_by_note(items, writes, ("kind", "amount", "currency", "date", "note"), mismatch, lost, doubled, same_goal)


def check_health(client, u, writes, r, mismatch, lost, doubled):
    a = None
    for _ in range(20):
        a = client.call("GET", "/api/v1/export", u.token, timeout=120)
        if a.status == 200:
            break
        time.sleep(0.5)
    if a.status != 200:
        r.fail("could not export user %d: %s" % (u.n, a.status))
        return
    stored = collections.defaultdict(list)
    for line in a.raw.decode().splitlines():
        item = json.loads(line)
        if item.get("type") in ("health_sample", "workout"):
            stored[item.get("uuid")].append(item)
    sent_uuids = set()
    for w in writes:
        for s in w.body["samples"]:
            sent_uuids.add(s["uuid"])
            found = stored.get(s["uuid"], [])
            if not found:
                lost[w.kind] += 1
                mismatch(w, "sample %s not stored" % s["uuid"])
                continue
            if len(found) > 1:
                doubled[w.kind] += 1
                mismatch(w, "sample %s stored %d times" % (s["uuid"], len(found)))
            item = found[0]
            for field, want in (("metric", s["metric"]), ("start", s["start"]), ("end", s["end"]),
                                ("source", s["source"]["name"]), ("source_kind", s["source"]["kind"])):
                if item.get(field) != want:
                    mismatch(w, "sample %s: %s %r, sent %r" % (s["uuid"], field, item.get(field), want))
            if not same_number(item.get("value"), s["value"]):
                mismatch(w, "sample %s: value %r, sent %r" % (s["uuid"], item.get("value"), s["value"]))
        for wo in w.body.get("workouts", []):
            sent_uuids.add(wo["uuid"])
            found = stored.get(wo["uuid"], [])
            if not found:
                lost[w.kind] += 1
                mismatch(w, "workout %s not stored" % wo["uuid"])
                continue
            if len(found) > 1:
                doubled[w.kind] += 1
            item = found[0]
            for field, want in (("workout_type", wo["type"]), ("start", wo["start"]), ("end", wo["end"]),
                                ("source", wo["source"]["name"])):
                if item.get(field) != want:
                    mismatch(w, "workout %s: %s %r, sent %r" % (wo["uuid"], field, item.get(field), want))
            for field in ("active_energy_kcal", "distance_m"):
                if not same_number(item.get(field), wo[field]):
                    mismatch(w, "workout %s: %s %r, sent %r" % (wo["uuid"], field, item.get(field), wo[field]))
    extra = set(stored) - sent_uuids
    if extra:
        r.fail("user %d has health items nobody sent: %s" % (u.n, sorted(extra)[:5]))


def check_profile(client, u, r, mismatch, lost):
    if not u.patches:
        return
    a = client.call("GET", "/api/v1/me", u.token)
    if a.status != 200:
        r.fail("could not read /me of user %d: %s" % (u.n, a.status))
        return
    last = [p for p in u.patches if p.stored_by][-1:] or [None]
    last = last[0]
    if last is None:
        return
    for field, want in last.body.items():
        if a.body.get(field) != want:
            lost["patch"] += 1
            r.fail("user %d: /me %s is %r, the last change sent %r" % (u.n, field, a.body.get(field), want))


# ------------------------------------------------------------------------------------------------
# Main


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--admin", required=True, help="the cluster's postgres database URL")
    p.add_argument("--psql", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--pg-stop", required=True)
    p.add_argument("--pg-start", required=True)
    p.add_argument("--pg-crash", required=True)
    p.add_argument("--kill-rounds", type=int, default=3)
    p.add_argument("--outage-rounds", type=int, default=3)
    p.add_argument("--requests", type=int, default=1000)
    p.add_argument("--users", type=int, default=4)
    p.add_argument("--threads", type=int, default=100)
    p.add_argument("--patches", type=int, default=100, help="at most this many profile changes per user and round")
    p.add_argument("--down", type=float, default=3.0)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--log-level", default="error")
    p.add_argument("--sabotage", action="store_true", help="the checks' own test: every round must fail")
    args = p.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    log("seed %d (KILL_SEED=%d repeats the rounds' choices)" % (seed, seed))
    rng = random.Random(seed)
    rounds = []
    plan = [("kill", i + 1, False) for i in range(args.kill_rounds)] + \
        [("outage", args.kill_rounds + i + 1, i % 2 == 1) for i in range(args.outage_rounds)]
    for mode, number, crash in plan:
        log("round %d (%s) …" % (number, mode if not crash else "outage, PostgreSQL crashed"))
        try:
            r = run_round(args, number, mode, random.Random(rng.random()), crash)
        except (Exception, SystemExit) as error:  # a round that could not finish is a failed round
            r = Round(number, mode, crash)
            r.fail("the round stopped: %s" % (error,))
        rounds.append(r)
        f = r.facts
        log("round %d: %s in %.1f s" % (number, "PASS" if not r.failures else "FAIL", f.get("round s", 0)))

    print()
    sizes = [r.facts["writes"] for r in rounds if "writes" in r.facts] or [0]
    print("Nothing acknowledged is lost: %d to %d writes a round (%d POSTs on %d threads, profile changes beside them), "
          "%d users a round, seed %d" % (min(sizes), max(sizes), args.requests, args.threads, args.users, seed))
    print()
    head = ("round", "disruption", "at s", "writes", "2xx first", "no answer", "503", "not sent", "retried", "back s",
            "lost", "doubled", "mismatch", "5xx≠503", "round s", "result")
    fmt = "%-5s %-12s %6s %6s %9s %9s %5s %8s %7s %6s %5s %7s %8s %7s %7s  %s"
    print(fmt % head)
    for r in rounds:
        f = r.facts

        def num(k, spec="%.2f"):
            v = f.get(k)
            return "-" if v is None else (spec % v)
        print(fmt % (r.number, "SIGKILL" if r.mode == "kill" else "pg %s %.0fs" % ("crash" if r.crash else "stop", args.down),
                     num("at s"), num("writes", "%d"),
                     num("2xx in load", "%d"), num("no answer", "%d"), num("503", "%d"), num("not sent", "%d"),
                     num("retried", "%d"), num("back after s"), num("lost", "%d"), num("doubled", "%d"),
                     num("mismatched", "%d"), num("5xx not 503", "%d"), num("round s", "%.1f"),
                     "PASS" if not r.failures else "FAIL"))
    print()
    for r in rounds:
        print("round %d (%s):" % (r.number, "SIGKILL of the server" if r.mode == "kill" else
                                    "PostgreSQL %s for %.0f s" % ("crashed (immediate stop)" if r.crash else "stopped", args.down)))
        for line in r.lines:
            print(line)
        for failure in r.failures:
            print("    FAIL " + failure)
    failed = [r for r in rounds if r.failures]
    print()
    if args.sabotage:
        missed = [r.number for r in rounds if not (r.facts.get("lost", 0) >= 2 and r.facts.get("doubled", 0) >= 2
                                                    and r.facts.get("mismatched", 0) >= 1
                                                    and sum("events of type" in f for f in r.failures) >= 2)]
        print("sabotage: %d of %d rounds caught every planted fault%s"
              % (len(rounds) - len(missed), len(rounds), "" if not missed else "; missed in rounds %s" % missed))
        return 1 if missed else 0
    print("rounds: %d passed, %d failed" % (len(rounds) - len(failed), len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
