"""Two `lifelog serve` instances behind haproxy (issue 30, "More than one server"), and the checks
of bench/multi/run.

Driven by bench/multi/run, which owns the PostgreSQL cluster, applies the migrations and finds
the binary and haproxy; this script starts both instances and haproxy itself (their pids in
WORK/*.pid, so run's trap can stop them), talks HTTP on loopback only, runs a webhook receiver of
its own, and SIGKILLs one instance in the middle of the load. It reuses bench/kill's users, writes
and read-back checks (retry_after_kill.py). Python 3 standard library only.

What it does, in order:
  1. instances a and b on two loopback ports (one DATABASE_URL, one JWT_SECRET, a data folder
     each), haproxy on a third, round-robin, health-checked on /readyz; every answer through the
     proxy says which instance gave it (X-Lifelog-Instance), and a test-only header
     (X-Lifelog-Route: a|b) pins a request to one instance;
  2. USERS users (bench/kill's setup: a device key, habits, a category, goals, tasks to
     complete), each with a reminders webhook and an event webhook (habit.completed,
     task.completed) to the receiver, and tasks due in the next minutes (task_due reminders);
  3. the login throttle: 7 wrong passwords for one account through the proxy (alternating a, b)
     against 7 for another account pinned to instance a: the same answers at the same count;
  4. the live stream (GET /api/v1/events/stream) of user 0 opened through the proxy;
  5. mixed load through the proxy (habit logs, task creations and completions, transactions,
     deposits, health batches, each with its Idempotency-Key; GET /today, /habits, /tasks), and
     when KILL_AT of it is answered the instance serving the stream is SIGKILLed, then started
     again DOWN seconds later; the stream reconnects with Last-Event-ID;
  6. every write without a 2xx is sent again with its key; a sample of answered writes is sent
     again to the *other* instance (pinned), which must answer the same resource and store nothing;
  7. throughput: the same mix for MEASURE seconds with both instances, then with b taken out
     (haproxy's admin socket: maint), then b back;
  8. waits until every webhook is pushed and the async projectors have caught up, then checks:
     every write stored once with what it sent (bench/kill's read-back, events per type and read
     model rows counted through psql); rm_owner_activity equal to the events counted per owner and
     type; each webhook-id received once (the outbox's rows, by key); every change of user 0 in
     the stream once; no 5xx but haproxy's for requests in flight on the killed instance; and
     the failed-login limit per address counts each client behind haproxy (clients on 127.0.0.2
     and .3; haproxy writes X-Forwarded-For, the servers trust 127.0.0.1); and, while webhook
     rows wait under the killed instance's lease, the database's transaction rate at most twice
     its rate once they are pushed (the live daemons wait for the lease instead of polling);
  9. stops the instances and haproxy, dumps every rm_* table sorted, runs `lifelog projections
     rebuild --all`, dumps again and compares.
Prints a summary; exit status 0 when every check passed, 1 otherwise.
"""
import argparse
import base64
import collections
import datetime
import hashlib
import hmac
import http.client
import http.server
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True  # nothing written into the checkout
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kill"))
import retry_after_kill as kill  # noqa: E402  (bench/kill's users, writes and read-back checks)

T0 = time.monotonic()
CLIENT_TIMEOUT = 30.0
JWT_SECRET = "multi-test-only-secret-0123456789-0123456789"
INSTANCE_HEADER = "X-Lifelog-Instance"
ROUTE_HEADER = "X-Lifelog-Route"
READS = ["/api/v1/today", "/api/v1/habits", "/api/v1/tasks?filter=today"]


def now():
    return time.monotonic() - T0


def log(message):
    print("multi: [%6.1f s] %s" % (now(), message), file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------------
# HTTP: one connection per request (a closed-loop client like bench/kill's), every call recorded
# with when it was sent and answered and which instance answered it.


class Answer:
    __slots__ = ("status", "body", "raw", "retry_after", "etag", "replayed", "error", "latency", "served_by",
                 "sent", "answered")

    def __init__(self):
        self.status = self.body = self.retry_after = self.etag = self.replayed = self.error = self.served_by = None
        self.raw = b""
        self.latency = self.sent = self.answered = 0.0

    @property
    def ok(self):
        return self.status is not None and 200 <= self.status < 300


class Client:
    """Signature-compatible with bench/kill's Client (its Write.send and checks call it)."""

    def __init__(self, port):
        self.port = port
        self.phase = "setup"
        self.records = []     # (phase, method, path, sent, answered, status or error, served_by)
        self.lock = threading.Lock()

    def call(self, method, path, token=None, api_key=None, body=None, key=None, if_match=None, timeout=CLIENT_TIMEOUT,
             route=None, headers_out=None, source=None, forwarded_for=None):
        headers = {"Accept": "application/json", "Connection": "close"}
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
        if route:
            headers[ROUTE_HEADER] = route
        if forwarded_for:
            headers["X-Forwarded-For"] = forwarded_for
        data = json.dumps(body).encode() if body is not None else None
        a = Answer()
        a.sent = now()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout,
                                          source_address=(source, 0) if source else None)
        try:
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            status = response.status
            h = response.headers
            # Known before the body is read: an answer cut off mid-body still names who sent it.
            a.served_by = h.get(INSTANCE_HEADER)
            raw = response.read()
            a.status, a.raw = status, raw
            a.retry_after, a.etag = h.get("Retry-After"), h.get("ETag")
            a.replayed = h.get("Idempotent-Replayed")
            if raw and "json" in (h.get("Content-Type") or ""):
                try:
                    a.body = json.loads(raw)
                except ValueError:
                    a.body = None
        except (socket.timeout, TimeoutError):
            a.status, a.error = None, "timeout"
        except (http.client.HTTPException, OSError) as error:
            a.status, a.error = None, type(error).__name__
        finally:
            conn.close()
        a.answered = now()
        a.latency = a.answered - a.sent
        with self.lock:
            self.records.append((self.phase, method, path.split("?")[0], a.sent, a.answered,
                                 a.status if a.status is not None else a.error, a.served_by))
        return a


# ------------------------------------------------------------------------------------------------
# Processes: two instances and haproxy


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Instance:
    def __init__(self, name, args, port):
        self.name, self.args, self.port = name, args, port
        self.process = None
        self.log_path = os.path.join(args.work, "serve-%s.log" % name)
        self.starts = []

    def env(self):
        env = dict(os.environ)
        env.update({
            "DATABASE_URL": self.args.url, "HOST": "127.0.0.1", "PORT": str(self.port), "JWT_SECRET": JWT_SECRET,
            "LOG_LEVEL": self.args.log_level, "LIFELOG_DATA_DIR": os.path.join(self.args.work, "data-" + self.name),
            "LIFELOG_SCHEMA_DIR": self.args.schema, "PROJECTOR_POLL_MS": "200",
            "LIFELOG_WEBHOOK_ALLOW_PRIVATE": "true",
            # The harness's many registrations all come from 127.0.0.1.
            "REGISTRATIONS_PER_ADDRESS": "1000",
            # haproxy connects from 127.0.0.1; the address check's clients from 127.0.0.2 and .3.
            "TRUSTED_PROXIES": "127.0.0.1",
        })
        return env

    def start(self):
        with open(self.log_path, "ab") as out:
            out.write(("=== multi harness: instance %s starting at %s\n" % (self.name, datetime.datetime.now().isoformat())).encode())
            out.flush()
            self.process = subprocess.Popen([self.args.bin, "serve"], env=self.env(), stdout=out, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, start_new_session=True)
        with open(os.path.join(self.args.work, "instance-%s.pid" % self.name), "w") as f:
            f.write(str(self.process.pid))
        began = time.monotonic()
        direct = Client(self.port)
        while time.monotonic() - began < 90:
            if self.process.poll() is not None:
                raise SystemExit("multi: instance %s exited with status %s while starting; see %s"
                                 % (self.name, self.process.returncode, self.log_path))
            if direct.call("GET", "/readyz", timeout=2).status == 200:
                self.starts.append(time.monotonic() - began)
                return time.monotonic() - began
            time.sleep(0.05)
        raise SystemExit("multi: instance %s not ready in 90 s; see %s" % (self.name, self.log_path))

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def kill(self):
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self):
        if not self.alive():
            return None
        self.process.terminate()
        try:
            return self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()

    def cpu_seconds(self):
        try:
            with open("/proc/%d/stat" % self.process.pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return None


HAPROXY_CONFIG = """# Written by bench/multi/two_instances.py for one run; loopback only.
global
    maxconn 4000
    stats socket {sock} mode 600 level admin
    log stdout format raw local0

defaults
    mode http
    log global
    option httplog
    # Appends the client's address; the servers trust 127.0.0.1 (TRUSTED_PROXIES) to say so.
    option forwardfor
    timeout connect 1s
    timeout client 65s
    timeout server 65s
    timeout http-keep-alive 10s
    timeout queue 10s
    # A slow /readyz (2 busy cores) is not a dead instance; a dead one refuses at once.
    timeout check 3s
    # A request that could not reach its instance (refused: it is dead and not yet marked down)
    # goes to another; one the instance took and never answered is haproxy's 502.
    retries 3
    option redispatch 1

frontend api
    bind 127.0.0.1:{port}
    default_backend lifelog

backend lifelog
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
    default-server inter 500ms fastinter 250ms fall 2 rise 2
    # Which instance answered (also on haproxy's own 502/503), for the checks.
    http-after-response set-header {instance_header} %[srv_name]
    # Test only: pin a request to one instance (replays on the other one, the one-instance baseline).
    use-server a if {{ req.hdr({route_header}) -m str a }}
    use-server b if {{ req.hdr({route_header}) -m str b }}
    server a 127.0.0.1:{port_a} check
    server b 127.0.0.1:{port_b} check
"""


class Proxy:
    def __init__(self, args, port, port_a, port_b):
        self.args, self.port = args, port
        self.sock = os.path.join(args.work, "haproxy.sock")
        self.config = os.path.join(args.work, "haproxy.cfg")
        self.log_path = os.path.join(args.work, "haproxy.log")
        with open(self.config, "w") as f:
            f.write(HAPROXY_CONFIG.format(sock=self.sock, port=port, port_a=port_a, port_b=port_b,
                                          instance_header=INSTANCE_HEADER, route_header=ROUTE_HEADER))
        self.process = None

    def start(self):
        check = subprocess.run([self.args.haproxy, "-c", "-q", "-f", self.config], capture_output=True, text=True)
        if check.returncode != 0:
            raise SystemExit("multi: haproxy refuses its config %s: %s" % (self.config, check.stderr.strip()))
        out = open(self.log_path, "ab")
        # -db: stays in the foreground, a child of this script.
        self.process = subprocess.Popen([self.args.haproxy, "-db", "-f", self.config], stdout=out, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL, start_new_session=True)
        with open(os.path.join(self.args.work, "haproxy.pid"), "w") as f:
            f.write(str(self.process.pid))
        end = time.monotonic() + 20
        while time.monotonic() < end:
            states = self.states()
            if states.get("a") == "UP" and states.get("b") == "UP":
                return
            if self.process.poll() is not None:
                raise SystemExit("multi: haproxy exited with status %s; see %s" % (self.process.returncode, self.log_path))
            time.sleep(0.1)
        raise SystemExit("multi: haproxy did not see both instances up in 20 s: %s" % self.states())

    def admin(self, command):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(5)
        try:
            s.connect(self.sock)
            s.sendall((command + "\n").encode())
            chunks = []
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
            return b"".join(chunks).decode(errors="replace")
        except OSError:
            return ""
        finally:
            s.close()

    def states(self):
        """Server name -> status (UP, DOWN, MAINT, ...), from `show stat`."""
        text = self.admin("show stat")
        lines = text.splitlines()
        if not lines or not lines[0].startswith("# "):
            return {}
        head = lines[0][2:].split(",")
        out = {}
        for line in lines[1:]:
            row = dict(zip(head, line.split(",")))
            if row.get("pxname") == "lifelog" and row.get("svname") in ("a", "b"):
                out[row["svname"]] = row.get("status", "").split(" ")[0]
        return out

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


# ------------------------------------------------------------------------------------------------
# The webhook receiver: every push recorded by webhook-id, its signature checked.


class Receiver:
    def __init__(self):
        self.pushes = []        # (webhook-id, path, arrival, type, signature ok)
        self.secrets = {}       # path -> the secret's bytes
        self.lock = threading.Lock()
        # Seconds each push waits for its answer: set around the kill, so that both instances'
        # delivery daemons hold claimed rows mid-push when one of them dies.
        self.delay = 0.0
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                arrived = now()
                wid, ts, sig = (self.headers.get("webhook-id"), self.headers.get("webhook-timestamp"),
                                self.headers.get("webhook-signature") or "")
                try:
                    kind = json.loads(body).get("type", "?")
                except ValueError:
                    kind = "?"
                secret = receiver.secrets.get(self.path)
                good = False
                if secret is not None and wid and ts:
                    mac = base64.b64encode(hmac.new(secret, ("%s.%s." % (wid, ts)).encode() + body, hashlib.sha256).digest()).decode()
                    good = ("v1," + mac) in sig.split(" ")
                with receiver.lock:
                    receiver.pushes.append((wid, self.path, arrived, kind, good))
                if receiver.delay:
                    time.sleep(receiver.delay)
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        class Server(http.server.ThreadingHTTPServer):
            request_queue_size = 512   # both instances push 64 at a time; the default backlog is 5
        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def new_secret(rng):
    raw = bytes(rng.randrange(256) for _ in range(32))
    return raw, "whsec_" + base64.b64encode(raw).decode()


# ------------------------------------------------------------------------------------------------
# The live stream of one user, through the proxy, reconnecting with Last-Event-ID


class StreamReader(threading.Thread):
    def __init__(self, port, token, raw_path=None):
        super().__init__(daemon=True)
        self.port, self.token = port, token
        self.raw = open(raw_path, "a") if raw_path else None
        self.changes = []        # (id, data, arrival, connection number)
        self.connections = []    # dicts: opened, served_by, status, closed, how, resets
        self.last_id = None
        self.stopping = threading.Event()
        self.conn = None
        self.lock = threading.Lock()
        self.opened = threading.Event()

    def run(self):
        while not self.stopping.is_set():
            c = {"opened": now(), "served_by": None, "status": None, "closed": None, "how": None, "resets": 0,
                 "resumed_from": self.last_id}
            self.connections.append(c)
            headers = {"Authorization": "Bearer " + self.token, "Accept": "text/event-stream"}
            if self.last_id:
                headers["Last-Event-ID"] = self.last_id
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=40)
            self.conn = conn
            try:
                conn.request("GET", "/api/v1/events/stream", headers=headers)
                response = conn.getresponse()
                c["status"], c["served_by"] = response.status, response.getheader(INSTANCE_HEADER)
                if response.status != 200:
                    response.read()
                    c["how"] = "status %d" % response.status
                else:
                    self.opened.set()
                    c["how"] = self.read_frames(response, len(self.connections) - 1, c)
            except (socket.timeout, TimeoutError):
                c["how"] = "timeout"
            except (http.client.HTTPException, OSError) as error:
                c["how"] = type(error).__name__
            finally:
                c["closed"] = now()
                conn.close()
            if not self.stopping.is_set():
                time.sleep(0.1)

    def read_frames(self, response, number, c):
        frame = {}
        while True:
            line = response.readline()
            if not line:
                return "closed"
            line = line.decode().rstrip("\r\n")
            if self.raw:
                self.raw.write("%.3f %d %s\n" % (now(), number, line))
            if line == "":
                if frame.get("event") == "change":
                    with self.lock:
                        self.changes.append((frame.get("id"), frame.get("data"), now(), number))
                        self.last_id = frame.get("id")
                elif frame.get("event") == "reset":
                    c["resets"] += 1
                elif frame.get("event") == "end":
                    return "end " + (frame.get("data") or "")
                frame = {}
            elif line.startswith(":"):
                continue
            else:
                field, _, value = line.partition(":")
                frame[field] = value[1:] if value.startswith(" ") else value

    def stop(self):
        self.stopping.set()
        try:
            if self.conn is not None and self.conn.sock is not None:
                self.conn.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.join(10)


# ------------------------------------------------------------------------------------------------
# The load: bench/kill's writes, with reads among them


class Read:
    __slots__ = ("user", "path", "answer", "not_sent")

    def __init__(self, user, path):
        self.user, self.path, self.answer, self.not_sent = user, path, None, False

    def send(self, client, phase):
        self.answer = client.call("GET", self.path, self.user.token)
        return self.answer


def plan_ops(users, writes_n, tag, rng, sample_base, task_offset, reads_per_write):
    counts = kill.plan_counts(writes_n)
    per_user = -(-counts["task_complete"] // len(users))
    for u in users:  # each plan completes tasks no earlier plan completes
        u.open_tasks = u.all_tasks[task_offset:task_offset + per_user]
    writes = kill.plan_writes(users, counts, tag, rng, sample_base)
    reads = [Read(users[rng.randrange(len(users))], READS[rng.randrange(len(READS))])
             for _ in range(int(writes_n * reads_per_write))]
    ops = writes + reads
    rng.shuffle(ops)
    return writes, ops, task_offset + per_user


def add_tasks(client, users, n, label):
    """n more open tasks per user, for a later plan's completions (made before the phase's clock starts)."""
    phase, client.phase = client.phase, "setup"
    for u in users:
        u.extra_tasks = getattr(u, "extra_tasks", 0) + n

    def make(u):
        for i in range(n):
            a = kill.must(client.call("POST", "/api/v1/tasks", u.token, key="setup-task-%s-%d" % (label, i),
                                      body={"title": "to complete %s %d" % (label, i), "priority": 1 + i % 3}), "POST /tasks (setup)")
            u.all_tasks.append(a["id"])
    ts = [threading.Thread(target=make, args=(u,)) for u in users]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    client.phase = phase


def completions_needed(writes_n, users):
    return -(-kill.plan_counts(writes_n)["task_complete"] // users)


def drive(client, ops, threads, until=None, on_answer=None):
    """Sends ops from THREADS threads, each taking the next one; stops taking at `until`
    (monotonic) when given. Ops never taken are marked not sent. Answers (answered, ok)."""
    it = iter(ops)
    lock = threading.Lock()
    answered = [0, 0]

    def worker():
        while True:
            with lock:
                if until is not None and time.monotonic() >= until:
                    return
                op = next(it, None)
            if op is None:
                return
            a = op.send(client, client.phase)
            with lock:
                answered[0] += 1
                if a.ok:
                    answered[1] += 1
            if on_answer:
                on_answer(op, a)

    pool = [threading.Thread(target=worker, daemon=True) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    for op in it:
        op.not_sent = True
    return answered


# ------------------------------------------------------------------------------------------------
# Checks


class Checks:
    def __init__(self):
        self.results = collections.OrderedDict()   # name -> (ok, [lines])

    def add(self, name, ok, *lines):
        prev = self.results.get(name)
        if prev:
            self.results[name] = (prev[0] and ok, prev[1] + list(lines))
        else:
            self.results[name] = (ok, list(lines))

    def failed(self):
        return [n for n, (ok, _) in self.results.items() if not ok]


class Collector:
    """What bench/kill's read-back functions expect of a round: fail()."""

    def __init__(self):
        self.failures = []

    def fail(self, message):
        self.failures.append(message)


def dump_models(db, path):
    """Every public rm_* table sorted on all its columns, as COPY text: {table: [lines]}."""
    tables = [t for (t,) in db.rows("SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'rm\\_%' ORDER BY 1")]
    out = {}
    for t in tables:
        n = int(db.rows("SELECT count(*) FROM information_schema.columns WHERE table_schema = 'public' AND table_name = '%s'" % t)[0][0])
        order = ", ".join(str(i) for i in range(1, n + 1))
        r = subprocess.run([db.psql, "-qAtX", db.url, "-c", "COPY (SELECT * FROM public.%s ORDER BY %s) TO STDOUT" % (t, order)],
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            raise RuntimeError("psql: %s" % r.stderr.strip())
        out[t] = r.stdout.splitlines()
    with open(path, "w") as f:
        for t, lines in out.items():
            f.write("== %s (%d rows)\n" % (t, len(lines)))
            f.writelines(line + "\n" for line in lines)
    return out


def proc_cpu(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def cpu_snapshot(instances, proxy):
    """CPU seconds used so far by each instance, haproxy, this client, PostgreSQL's processes,
    and the machine's idle time (all cores)."""
    snap = {n: proc_cpu(i.process.pid) for n, i in instances.items()}
    snap["haproxy"] = proc_cpu(proxy.process.pid)
    snap["client"] = time.process_time()
    pg = 0.0
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open("/proc/%s/comm" % pid) as f:
                    if f.read().strip() == "postgres":
                        pg += proc_cpu(int(pid))
            except OSError:
                pass
    snap["postgres"] = pg
    with open("/proc/stat") as f:
        cpu = [int(x) for x in f.readline().split()[1:]]
    snap["idle"] = (cpu[3] + cpu[4]) / os.sysconf("SC_CLK_TCK")
    return snap


XACTS = "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()"


def percentile(values, q):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


# ------------------------------------------------------------------------------------------------
# Main


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--haproxy", required=True)
    p.add_argument("--url", required=True, help="the run's database (migrated)")
    p.add_argument("--psql", required=True)
    p.add_argument("--schema", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--requests", type=int, default=3000, help="writes of the load with the kill (reads beside them)")
    p.add_argument("--reads-per-write", type=float, default=0.5)
    p.add_argument("--threads", type=int, default=32)
    p.add_argument("--users", type=int, default=4)
    p.add_argument("--kill-at", type=float, default=0.4, help="share of the load answered when the kill comes")
    p.add_argument("--down", type=float, default=2.0, help="seconds between the kill and the restart")
    p.add_argument("--measure", type=float, default=15.0, help="seconds of each throughput phase")
    p.add_argument("--kill-window", type=float, default=5.0, help="seconds after the kill a 502 may still arrive")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--log-level", default="notice")
    args = p.parse_args()
    # run's trap sends SIGTERM: stop what this script started on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    log("seed %d (MULTI_SEED=%d repeats the choices)" % (seed, seed))
    checks = Checks()
    db = kill.Database(args.psql, args.url)
    ports = {"a": free_port(), "b": free_port(), "proxy": free_port()}
    instances = {n: Instance(n, args, ports[n]) for n in ("a", "b")}
    proxy = Proxy(args, ports["proxy"], ports["a"], ports["b"])
    receiver = Receiver()
    stream = None
    facts = collections.OrderedDict()
    facts["load average"] = "%.1f" % os.getloadavg()[0]
    try:
        for inst in instances.values():
            inst.start()
        proxy.start()
        log("instances a (127.0.0.1:%d, started in %.1f s) and b (127.0.0.1:%d, %.1f s) behind haproxy on 127.0.0.1:%d"
            % (ports["a"], instances["a"].starts[0], ports["b"], instances["b"].starts[0], ports["proxy"]))
        client = Client(ports["proxy"])
        status = run(args, rng, checks, db, instances, proxy, receiver, client, facts)
        return status
    finally:
        for inst in instances.values():
            if inst.alive():
                inst.process.kill()
        proxy.stop()


def run(args, rng, checks, db, instances, proxy, receiver, client, facts):
    tag = "m%d" % (int(time.time()) % 100000)
    # ---------------------------------------------------------------- users
    client.phase = "setup"
    per_user = completions_needed(args.requests, args.users)
    began = time.monotonic()
    users = []
    threads = []
    errors = []

    def setup(n):
        try:
            u = kill.setup_user(client, n, tag, per_user, random.Random(rng.random()))
            u.all_tasks = list(u.open_tasks)
            users.append(u)
        except (Exception, SystemExit) as error:
            errors.append(error)
    for n in range(args.users):
        threads.append(threading.Thread(target=setup, args=(n,)))
        threads[-1].start()
    for t in threads:
        t.join()
    if errors:
        raise SystemExit("multi: setup failed: %s" % errors[0])
    users.sort(key=lambda u: u.n)

    # Reminders and event webhooks, pushed to the receiver; tasks due in the next minutes.
    reminder_tasks = []
    for u in users:
        raw, text = new_secret(rng)
        receiver.secrets["/reminders/%d" % u.n] = raw
        t0 = datetime.datetime.now(datetime.timezone.utc)
        hm = lambda k: (t0 + datetime.timedelta(minutes=k)).strftime("%H:%M")
        kill.must(client.call("PATCH", "/api/v1/me", u.token, body={"reminders": {
            "morning_time": hm(1), "evening_time": hm(2), "enabled_kinds": ["morning_digest", "evening_nudge", "task_due", "habit"],
            "webhook_url": "%s/reminders/%d" % (receiver.url, u.n), "webhook_secret": text}}), "PATCH /me (reminders)")
        raw, text = new_secret(rng)
        receiver.secrets["/events/%d" % u.n] = raw
        kill.must(client.call("POST", "/api/v1/webhooks", u.token, key="setup-event-webhook", body={
            "url": "%s/events/%d" % (receiver.url, u.n), "events": ["habit.completed", "task.completed"], "secret": text}),
            "POST /webhooks")
        for k in (1, 2):
            due = t0 + datetime.timedelta(minutes=k)
            a = kill.must(client.call("POST", "/api/v1/tasks", u.token, key="setup-reminder-task-%d" % k, body={
                "title": "reminder %d of user %d" % (k, u.n), "due_date": due.date().isoformat(), "due_time": due.strftime("%H:%M")}),
                "POST /tasks (due soon)")
            reminder_tasks.append((u, a["id"], due.replace(second=0, microsecond=0)))
    facts["setup s"] = time.monotonic() - began
    log("%d users set up in %.1f s (reminders and event webhooks to %s, %d tasks due in the next 2 minutes)"
        % (len(users), facts["setup s"], receiver.url, len(reminder_tasks)))

    # ---------------------------------------------------------------- the login throttle
    throttle_check(client, checks, rng, tag)

    # ---------------------------------------------------------------- the stream, then the load with the kill
    stream = StreamReader(client.port, users[0].token, os.path.join(args.work, "stream-proxy.txt"))
    stream.start()
    if not stream.opened.wait(10):
        checks.add("live stream", False, "the stream did not open in 10 s: %s" % stream.connections)
    victim = stream.connections[0]["served_by"] if stream.connections and stream.connections[0]["served_by"] in instances else "a"
    other = "b" if victim == "a" else "a"
    # A control: the same user's stream straight from the instance that is not killed.
    direct = StreamReader(instances[other].port, users[0].token, os.path.join(args.work, "stream-direct-%s.txt" % other))
    direct.start()
    direct.opened.wait(10)
    time.sleep(0.5)
    u0_before = {int(gp) for (gp,) in db.rows("SELECT global_position FROM events WHERE owner_id = '%s'" % users[0].id)}

    sample_base = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0, second=0) - datetime.timedelta(days=2)
    writes, ops, offset = plan_ops(users, args.requests, tag + "L", rng, sample_base, 0, args.reads_per_write)
    events_before, models_before = db.event_counts(), db.model_counts()
    client.phase = "load"
    answered = [0]
    lock = threading.Lock()
    at = int(len(ops) * args.kill_at)
    slow_at = int(len(ops) * args.kill_at * 0.75)
    kill_info = {}
    killed = threading.Event()

    def on_answer(op, a):
        with lock:
            answered[0] += 1
            go = answered[0] >= at and not killed.is_set()
            if go:
                killed.set()
            if answered[0] == slow_at:
                receiver.delay = 1.0
        if go:
            threading.Thread(target=kill_and_restart, daemon=True).start()

    def kill_and_restart():
        inst = instances[victim]
        kill_info["at"] = now()
        kill_info["wall"] = time.time()
        inst.kill()
        kill_info["dead"] = now()
        receiver.delay = 0.0
        log("SIGKILL of instance %s (serving the stream) after %d of %d requests answered" % (victim, at, len(ops)))
        down_seen = None
        end = time.monotonic() + args.down
        while time.monotonic() < end:
            if down_seen is None and proxy.states().get(victim) == "DOWN":
                down_seen = now()
            time.sleep(0.05)
        kill_info["restart"] = now()
        inst.start()
        kill_info["ready"] = now()
        end = time.monotonic() + 15
        while time.monotonic() < end:
            s = proxy.states().get(victim)
            if down_seen is None and s == "DOWN":
                down_seen = now()
            if s == "UP" and down_seen is not None:
                kill_info["up"] = now()
                break
            time.sleep(0.05)
        kill_info["down seen"] = down_seen
        log("instance %s started again (ready %.1f s after the kill, back in haproxy at %s)"
            % (victim, kill_info["ready"] - kill_info["at"],
               "%.1f s after it" % (kill_info["up"] - kill_info["at"]) if "up" in kill_info else "never"))

    load_began = time.monotonic()
    drive(client, ops, args.threads, on_answer=on_answer)
    facts["load s"] = time.monotonic() - load_began
    facts["load rps"] = len(ops) / facts["load s"]
    end = time.monotonic() + 30
    while "up" not in kill_info and "ready" not in kill_info and time.monotonic() < end:
        time.sleep(0.1)
    while time.monotonic() < end and proxy.states().get(victim) != "UP":
        time.sleep(0.1)
    log("load done: %d requests in %.1f s" % (len(ops), facts["load s"]))

    # ---------------------------------------------------------------- retries, then replays on the other instance
    client.phase = "retry"
    unanswered = [w for w in writes if w.final is None]
    gave_up = []

    def retry(w):
        end = time.monotonic() + 60
        while time.monotonic() < end:
            a = w.send(client, "retry")
            if a.ok:
                return
            time.sleep(0.5)
        gave_up.append(w)
    rt = [threading.Thread(target=retry, args=(w,)) for w in unanswered]
    for t in rt:
        t.start()
    for t in rt:
        t.join()
    retried_on = collections.Counter(w.final.served_by for w in unanswered if w.final is not None)
    first_status = collections.Counter(w.first.status if w.first.status is not None else w.first.error for w in unanswered)
    checks.add("retries of unanswered writes", not gave_up,
               "%d writes had no 2xx in the load (%s); retried with their keys: %d got a 2xx (%s), %d never did%s"
               % (len(unanswered), ", ".join("%s: %d" % kv for kv in sorted(first_status.items(), key=str)),
                  len(unanswered) - len(gave_up), ", ".join("on %s: %d" % kv for kv in sorted(retried_on.items(), key=str)),
                  len(gave_up), (": %s" % [(w.key, w.attempts[-1]) for w in gave_up[:5]]) if gave_up else ""))

    client.phase = "replay"
    answered_first = [w for w in writes if w.first is not None and w.first.ok and w.first.served_by in instances]
    sample = rng.sample(answered_first, min(40, len(answered_first)))
    ev0 = db.event_counts()
    bad_replays, replay_hosts, not_marked = [], collections.Counter(), 0
    for w in sample:
        there = "b" if w.first.served_by == "a" else "a"
        if w.device:
            a = client.call("POST", w.path, api_key=w.user.api_key, body=w.body, key=w.key, route=there)
        else:
            a = client.call("POST", w.path, w.user.token, body=w.body, key=w.key, route=there)
        replay_hosts[a.served_by] += 1
        if a.served_by != there or not a.ok or kill.created_id(w, a) != kill.created_id(w, w.first):
            bad_replays.append((w.key, w.first.served_by, a.served_by, a.status, kill.created_id(w, w.first), kill.created_id(w, a)))
        if a.ok and not a.replayed:
            not_marked += 1
    ev1 = db.event_counts()
    grown = {t: ev1.get(t, 0) - ev0.get(t, 0) for t in set(ev0) | set(ev1) if ev1.get(t, 0) != ev0.get(t, 0)}
    checks.add("idempotent replays on the other instance", not bad_replays and not grown,
               "%d answered writes sent again with their keys, each to the instance that had not answered it (%s): "
               "%d answered the first answer's resource, %d did not%s; events stored by the replays: %s; "
               "%d of the 2xx without Idempotent-Replayed"
               % (len(sample), ", ".join("%s: %d" % kv for kv in sorted(replay_hosts.items(), key=str)),
                  len(sample) - len(bad_replays), len(bad_replays), (" %s" % bad_replays[:5]) if bad_replays else "",
                  grown or "none", not_marked))

    # ---------------------------------------------------------------- throughput: two instances, then one
    tp = {}
    all_writes = list(writes)
    for label, take_out in (("two instances", None), ("one instance", other)):
        # Enough writes for the phase at twice the load's rate, and tasks for their completions.
        tp_writes = int(2 * facts["load rps"] * args.measure / (1 + args.reads_per_write)) + 50
        add_tasks(client, users, completions_needed(tp_writes, args.users), "tp%s" % len(tp))
        w2, ops2, offset = plan_ops(users, tp_writes, tag + ("T2" if take_out is None else "T1"), rng, sample_base, offset,
                                     args.reads_per_write)
        if take_out:
            proxy.admin("set server lifelog/%s state maint" % take_out)
            time.sleep(0.3)
        client.phase = "throughput " + label
        n0 = len(client.records)
        c0 = cpu_snapshot(instances, proxy)
        t_start = time.monotonic()
        drive(client, ops2, args.threads, until=t_start + args.measure)
        elapsed = time.monotonic() - t_start
        c1 = cpu_snapshot(instances, proxy)
        recs = [r for r in client.records[n0:]]
        statuses = collections.Counter(r[5] for r in recs)
        lat = [r[4] - r[3] for r in recs]
        tp[label] = {"requests": len(recs), "s": elapsed, "rps": len(recs) / elapsed, "p50": percentile(lat, 0.5) * 1000,
                     "p99": percentile(lat, 0.99) * 1000, "statuses": statuses,
                     "by": collections.Counter(r[6] for r in recs),
                     "cpu": {k: (c1[k] - c0[k]) / elapsed for k in c0}}
        all_writes += [w for w in w2 if not w.not_sent]
        if take_out:
            proxy.admin("set server lifelog/%s state ready" % take_out)
        log("throughput with %s: %.0f requests/s (%d in %.1f s; p50 %.1f ms, p99 %.1f ms; %s)"
            % (label, tp[label]["rps"], len(recs), elapsed, tp[label]["p50"], tp[label]["p99"],
               ", ".join("%s: %d" % kv for kv in sorted(tp[label]["by"].items(), key=str))))
    # Anything the throughput phases did not get a 2xx for is retried too (there should be none).
    client.phase = "retry"
    late = [w for w in all_writes if w.final is None and w not in unanswered]
    for w in late:
        retry(w)
    facts["throughput"] = tp

    # ---------------------------------------------------------------- the webhooks pushed, the projectors caught up
    client.phase = "checks"
    wait_began = time.monotonic()
    deadline = time.monotonic() + max(30.0, (kill_info.get("at", now()) + 150) - now())
    leased_seen = None
    cpu_samples = []
    while time.monotonic() < deadline:
        rows = db.rows("SELECT count(*) FILTER (WHERE status = 'pending'), count(*) FILTER (WHERE status = 'pending' AND lease_until > now()), "
                       "count(*) FILTER (WHERE status = 'pending' AND next_attempt_at <= now()) FROM reminder_outbox WHERE endpoint_id IS NOT NULL")
        pending, leased, due = (int(x) for x in rows[0])
        if leased and leased_seen is None:
            leased_seen = (leased, now())
        # Reminders still to fall due: the last task due + a planner minute.
        last_due = max(d for (_, _, d) in reminder_tasks)
        reminders_left = datetime.datetime.now(datetime.timezone.utc) < last_due + datetime.timedelta(seconds=75)
        if pending == 0 and not reminders_left:
            break
        x0 = int(db.rows(XACTS)[0][0])
        c0 = {n: i.cpu_seconds() for n, i in instances.items()}
        time.sleep(2)
        c1 = {n: i.cpu_seconds() for n, i in instances.items()}
        x1 = int(db.rows(XACTS)[0][0])
        cpu = {n: (c1[n] - c0[n]) / 2 if c0[n] is not None and c1[n] is not None else None for n in instances}
        cpu["xacts/s"] = (x1 - x0) / 2
        cpu_samples.append((now(), pending, leased, due, cpu))
    facts["waited for webhooks s"] = time.monotonic() - wait_began
    facts["cpu while waiting"] = cpu_samples
    facts["leased seen"] = leased_seen
    # The live daemons must wait for a dead instance's lease, not poll through it (they asked
    # every 10 ms before: 3.5x the database's rate once the rows were pushed).
    leased_x = [c["xacts/s"] for (_, _, leased, _, c) in cpu_samples if leased > 0]
    free_x = [c["xacts/s"] for (_, _, leased, _, c) in cpu_samples if leased == 0]
    if leased_x and free_x:
        leased_rate, free_rate = sum(leased_x) / len(leased_x), sum(free_x) / len(free_x)
        checks.add("delivery daemons wait out a dead instance's lease", leased_rate <= 2 * free_rate,
                   "%.0f database transactions/s while rows were leased, %.0f/s after (fails above 2x)" % (leased_rate, free_rate))
    else:
        facts["lease check"] = "not measured: no sample while rows were leased and after" if not leased_x else "not measured: no sample after the lease"

    lag = kill.projectors_caught_up(args.bin, args.url, 30)
    checks.add("async projectors caught up", not lag, "lag and set-aside events: %s" % (lag or "none"))

    # ---------------------------------------------------------------- no 5xx but those in flight on the killed instance
    check_answers(client, checks, kill_info, victim, args.kill_window, facts)

    # ---------------------------------------------------------------- every write stored once, as sent
    check_stored(client, checks, db, users, all_writes, events_before, models_before)

    # ---------------------------------------------------------------- async projectors: each event once
    rows = db.rows("""
        WITH e AS (SELECT owner_id, event_type, count(*) AS n FROM events GROUP BY 1, 2)
        SELECT coalesce(e.owner_id, a.owner_id)::text, coalesce(e.event_type, a.event_type), coalesce(e.n, 0), coalesce(a.event_count, 0)
        FROM e FULL JOIN rm_owner_activity a ON a.owner_id = e.owner_id AND a.event_type = e.event_type
        WHERE coalesce(e.n, 0) <> coalesce(a.event_count, 0)""")
    n_pairs = int(db.rows("SELECT count(*) FROM rm_owner_activity")[0][0])
    checks.add("async projector owner_activity = the log", not rows,
               "%d (owner, type) pairs; counted by the projector and in events alike%s"
               % (n_pairs, "" if not rows else "; DIFFER: %s" % rows[:5]))
    days = {m: int(n) for m, n in db.rows("SELECT metric, sum(samples) FROM rm_health_daily GROUP BY 1")}
    sent_per_metric = collections.Counter(s["metric"] for w in all_writes if w.kind == "health" and w.final is not None
                                          for s in w.body["samples"])
    off = {m: (days.get(m, 0), n) for m, n in sent_per_metric.items() if days.get(m, 0) != n}
    checks.add("async projector health-daily counts each sample once", not off,
               "samples per metric in rm_health_daily / sent: %s"
               % ", ".join("%s %d/%d" % (m, days.get(m, 0), n) for m, n in sorted(sent_per_metric.items())))

    # ---------------------------------------------------------------- webhooks: each id once
    check_webhooks(checks, db, receiver, users, all_writes, reminder_tasks, kill_info, facts)

    # ---------------------------------------------------------------- the live stream
    check_stream(checks, db, stream, direct, users[0], u0_before, kill_info, victim, other)

    # ---------------------------------------------------------------- the per-address throttle behind a proxy
    address_throttle(client, checks, tag)

    # ---------------------------------------------------------------- stop, rebuild, compare
    for inst in instances.values():
        inst.stop()
    proxy.stop()
    check_rebuild(args, checks, db, facts)

    report(args, checks, facts, instances, victim, kill_info, stream, tp, writes, ops)
    return 1 if checks.failed() else 0


def throttle_check(client, checks, rng, tag):
    """Wrong passwords for one account through the proxy (round-robin: a, b, a, b, ...) against
    the same for another account pinned to instance a: the same answers at the same count."""
    client.phase = "throttle"
    results = {}
    for label, route in (("through the proxy", None), ("one instance", "a")):
        email = "throttle-%s-%s@example.com" % (tag, "rr" if route is None else "one")
        kill.must(client.call("POST", "/api/v1/auth/register", body={"email": email, "password": kill.PASSWORD, "name": "Throttle",
                                                                      "timezone": "UTC"}, route=route), "register (throttle)")
        seq = []
        for i in range(7):
            a = client.call("POST", "/api/v1/auth/login", body={"email": email, "password": "wrong %d" % i}, route=route)
            seq.append((a.status if a.status is not None else a.error, a.served_by, round(a.latency, 1)))
        results[label] = seq
    rr, one = results["through the proxy"], results["one instance"]
    alternated = len({s[1] for s in rr}) == 2
    same = [s[0] for s in rr] == [s[0] for s in one]
    first_429 = lambda seq: next((i + 1 for i, s in enumerate(seq) if s[0] == 429), None)
    checks.add("login throttle across instances", same and alternated and first_429(rr) == 6,
               "7 wrong passwords through the proxy: %s" % " ".join("%s@%s" % (s[0], s[1]) for s in rr),
               "7 wrong passwords to instance a alone: %s" % " ".join("%s@%s" % (s[0], s[1]) for s in one),
               "first 429 at attempt %s through the proxy, %s on one instance (the limit is 5 per account and address)"
               % (first_429(rr), first_429(one)))


def address_throttle(client, checks, tag):
    """The server counts failed logins per address (20 in 15 minutes). Behind haproxy (which
    writes X-Forwarded-For; the servers trust 127.0.0.1, TRUSTED_PROXIES) each client is counted
    by its own address: one client (127.0.0.2) sends wrong passwords for unknown accounts until
    its limit trips; another (127.0.0.3) still logs in, the first does not, not even with an
    X-Forwarded-For of its own making."""
    client.phase = "address throttle"
    email = "address-%s@example.com" % tag
    kill.must(client.call("POST", "/api/v1/auth/register", body={"email": email, "password": kill.PASSWORD, "name": "Address",
                                                                  "timezone": "UTC"}), "register (address)")
    statuses = []
    for i in range(25):
        a = client.call("POST", "/api/v1/auth/login", body={"email": "nobody-%d-%s@example.com" % (i, tag), "password": "wrong"},
                        source="127.0.0.2")
        statuses.append(a.status)
        if a.status == 429:
            break
    login = {"email": email, "password": kill.PASSWORD}
    other = client.call("POST", "/api/v1/auth/login", body=login, source="127.0.0.3")
    same = client.call("POST", "/api/v1/auth/login", body=login, source="127.0.0.2")
    spoofed = client.call("POST", "/api/v1/auth/login", body=login, source="127.0.0.2", forwarded_for="198.51.100.7")
    ok = statuses == [401] * 20 + [429] and other.status == 200 and same.status == 429 and spoofed.status == 429
    checks.add("per-address throttle counts each client behind the proxy", ok,
               "client 127.0.0.2, wrong passwords for unknown accounts: %s" % " ".join(str(s) for s in statuses),
               "then the right password of another account: from 127.0.0.3 %s; from 127.0.0.2 %s (Retry-After %s), "
               "and %s with an X-Forwarded-For of its own" % (other.status, same.status, same.retry_after, spoofed.status))


def check_answers(client, checks, kill_info, victim, window, facts):
    """A 5xx (or no answer) is allowed only from the killed instance, for a request haproxy had
    handed it before its health check marked it down, answered within the window after the kill:
    haproxy's 502 for a request the dead process had taken (in flight, or in its accept queue)."""
    kill_at = kill_info.get("at")
    marked = kill_info.get("down seen") or (kill_at + 1.0 if kill_at is not None else None)
    bad, allowed, late = [], collections.Counter(), []
    statuses = collections.Counter()
    for phase, method, path, sent, answered, status, served in client.records:
        if phase in ("throttle", "address throttle"):
            continue
        statuses[(phase, status)] += 1
        if isinstance(status, int) and status < 500:
            continue
        in_flight = (kill_at is not None and served in (victim, None) and sent <= marked
                     and kill_at - 0.05 <= answered <= kill_at + window)
        # An answer the killed process had begun (its head forwarded, its body cut off by the kill)
        # is as much in flight as one haproxy answers 502 for; the client retries it with its key.
        cut_off = status == "IncompleteRead" and served == victim
        if in_flight and (status in (502, 503, 504) or cut_off):
            allowed[(status, method + " " + ("/api/v1/habits/{id}/logs" if path.endswith("/logs") else
                                            "/api/v1/tasks/{id}/complete" if path.endswith("/complete") else
                                            "/api/v1/savings/goals/{id}/transactions" if "/savings/goals/" in path else path))] += 1
            late.append(sent - kill_at)
        else:
            bad.append((phase, method, path, "%.2f" % sent, "%.2f" % answered, status, served))
    facts["answers"] = statuses
    facts["allowed 5xx"] = sum(allowed.values())
    checks.add("no 5xx but those in flight on the killed instance", not bad,
               "%d answers 502 from haproxy (or begun by the instance and cut off by the kill), each for a request instance %s had taken when it was killed (%s); sent from "
               "%.2f s before the kill to %.2f s after it (haproxy marked it down %.2f s after the kill; requests it sent there "
               "meanwhile on new connections were refused and went to the other instance)"
               % (sum(allowed.values()), victim, ", ".join("%s %s: %d" % (k[0], k[1], v) for k, v in sorted(allowed.items(), key=lambda kv: (str(kv[0][0]), kv[0][1]))),
                  -min(late) if late else 0, max(late) if late else 0, (marked - kill_at) if kill_at is not None else 0),
               "%d other 5xx or unanswered requests%s" % (len(bad), (": %s" % bad[:8]) if bad else ""))


def check_stored(client, checks, db, users, writes, events_before, models_before):
    r = Collector()
    mismatches, lost, doubled = collections.Counter(), collections.Counter(), collections.Counter()
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
        kill.check_habits(client, u, [w for w in mine if w.kind in ("habit_log", "habit_bool")], r, mismatch, lost, doubled)
        kill.check_tasks(client, u, [w for w in mine if w.kind in ("task_create", "task_complete")], r, mismatch, lost, doubled)
        kill.check_transactions(client, u, [w for w in mine if w.kind == "transaction"], r, mismatch, lost, doubled)
        kill.check_deposits(client, u, [w for w in mine if w.kind == "deposit"], r, mismatch, lost, doubled)
        kill.check_health(client, u, [w for w in mine if w.kind == "health"], r, mismatch, lost, doubled)
    events_after, models_after = db.event_counts(), db.model_counts()
    kinds = collections.Counter(w.kind for w in writes)
    expected = collections.Counter()
    for kind, n in kinds.items():
        expected[kill.EVENT_OF[kind]] += n
    # The open tasks made between the phases for the throughput phases' completions.
    extra = sum(getattr(u, "extra_tasks", 0) for u in users)
    expected["task.created"] += extra
    lines = []
    for etype in sorted(set(expected) | {t for t in events_after if events_after[t] != events_before.get(t, 0)}):
        delta = events_after.get(etype, 0) - events_before.get(etype, 0)
        lines.append("%s %d/%d" % (etype, delta, expected.get(etype, 0)))
        if delta != expected.get(etype, 0):
            r.fail("events of type %s: %d stored, %d sent" % (etype, delta, expected.get(etype, 0)))
    samples = sum(len(w.body["samples"]) + len(w.body.get("workouts", [])) for w in writes if w.kind == "health")
    expected_models = {"habit log days": kinds["habit_log"] + kinds["habit_bool"], "tasks": kinds["task_create"] + extra,
                       "completed tasks": kinds["task_complete"], "transactions": kinds["transaction"],
                       "savings movements": kinds["deposit"], "health records": samples}
    model_lines = []
    for name, n in expected_models.items():
        delta = models_after[name] - models_before[name]
        model_lines.append("%s %d/%d" % (name, delta, n))
        if delta != n:
            r.fail("read model rows (%s): %d added, %d sent" % (name, delta, n))
    for what, counter in (("lost", lost), ("doubled", doubled), ("content mismatches", mismatches)):
        if counter:
            r.fail("%s: %s" % (what, dict(counter)))
    if examples:
        r.fail("e.g. " + "; ".join(examples))
    checks.add("every write stored once, as sent", not r.failures,
               "%d writes (%s), read back through the API field by field; and %d open tasks made for the throughput phases' completions"
               % (len(writes), ", ".join("%s %d" % kv for kv in sorted(kinds.items())), extra),
               "events (stored/sent): " + ", ".join(lines),
               "read-model rows (added/sent): " + ", ".join(model_lines),
               *["FAIL " + f for f in r.failures])


def check_webhooks(checks, db, receiver, users, writes, reminder_tasks, kill_info, facts):
    with receiver.lock:
        pushes = list(receiver.pushes)
    rows = db.rows("SELECT key, channel, kind, status, attempts, user_id::text, coalesce(last_error, '') FROM reminder_outbox WHERE endpoint_id IS NOT NULL "
                   "OR status <> 'pending'")
    outbox = {r[0]: r for r in rows}
    by_id = collections.defaultdict(list)
    for wid, path, arrived, kind, good in pushes:
        by_id[wid].append((arrived, path, kind, good))
    unsigned = sum(1 for p in pushes if not p[4])
    channel = lambda key: outbox[key][1] if key in outbox else ("event" if (key or "").startswith("event/") else "reminder")
    lines, ok = [], True
    for ch in ("reminder", "event"):
        keys = {k for k, r in outbox.items() if r[1] == ch}
        delivered = {k for k in keys if outbox[k][3] == "delivered"}
        got = {k for k in by_id if channel(k) == ch}
        twice = {k: v for k, v in by_id.items() if channel(k) == ch and len(v) > 1}
        # Standard Webhooks: a push that arrived but whose 2xx its instance never recorded (killed
        # mid-push) is sent again after the lease, with the same id. Allowed only for a first
        # arrival before the kill.
        kill_at = kill_info.get("at")
        explained = {k for k, v in twice.items() if kill_at is not None and min(a for a, *_ in v) <= kill_at + 0.2}
        missing = delivered - got
        stray = got - keys
        undelivered = keys - delivered
        lines.append("%s webhooks: %d in the outbox, %d delivered, %d distinct webhook-ids received in %d pushes; "
                     "%d received twice (%d of them first pushed before the kill and sent again after the lease, as Standard "
                     "Webhooks allows), %d delivered but never received, %d received but not in the outbox, %d not delivered%s"
                     % (ch, len(keys), len(delivered), len(got), sum(len(by_id[k]) for k in got), len(twice), len(explained),
                        len(missing), len(stray), len(undelivered),
                        (" (%s)" % collections.Counter((outbox[k][3], outbox[k][6][:60]) for k in undelivered).most_common(3)) if undelivered else ""))
        if (set(twice) - explained) or missing or stray or undelivered:
            ok = False
    # Each completion and each completed habit day made one event push, per user.
    per = collections.Counter((r[5], r[2]) for r in rows if r[1] == "event")
    exp = collections.Counter()
    for w in writes:
        if w.kind == "task_complete":
            exp[(w.user.id, "task.completed")] += 1
        elif w.kind == "habit_bool" or (w.kind == "habit_log" and w.body.get("value", 0) >= 8):
            exp[(w.user.id, "habit.completed")] += 1
    diff = {k: (per.get(k, 0), exp.get(k, 0)) for k in set(per) | set(exp) if per.get(k, 0) != exp.get(k, 0)}
    lines.append("event pushes queued per user and kind equal the completions sent (%d task.completed, %d habit.completed)%s"
                 % (sum(v for (u, k), v in exp.items() if k == "task.completed"),
                    sum(v for (u, k), v in exp.items() if k == "habit.completed"),
                    "" if not diff else ": DIFFER %s" % list(diff.items())[:4]))
    ok = ok and not diff
    # The reminders of the tasks due in the run: planned once, pushed once.
    now_utc = datetime.datetime.now(datetime.timezone.utc)
    due_keys = [k for k, r in outbox.items() if r[1] == "reminder" and r[2] == "task_due"]
    planned = collections.Counter()
    for u, task, due in reminder_tasks:
        planned[task] = sum(1 for k in due_keys if task in k)
    fallen = [(u, t, d) for (u, t, d) in reminder_tasks if d + datetime.timedelta(seconds=75) <= now_utc]
    unplanned = [t for (u, t, d) in fallen if planned[t] != 1]
    lines.append("task_due reminders: %d tasks fell due during the run, %d planned exactly once%s"
                 % (len(fallen), len(fallen) - len(unplanned), (", NOT: %s" % unplanned[:4]) if unplanned else ""))
    ok = ok and not unplanned and unsigned == 0
    lines.append("signatures: %d of %d pushes signed with the user's secret" % (len(pushes) - unsigned, len(pushes)))
    checks.add("each webhook delivered once across both instances", ok, *lines)
    facts["pushes"] = len(pushes)


def stream_gaps(stream, expected, kill_info):
    """What one reader received against the user's events: (got, missing, duplicates, detail)."""
    with stream.lock:
        changes = list(stream.changes)
    ids = [i for i, *_ in changes]
    dup = [i for i, n in collections.Counter(ids).items() if n > 1]
    got = {int(i.split("/")[1]): i for i in ids if i}
    missing = sorted(set(expected) - set(got))
    detail = []
    if missing:
        # Where the missing ones sit: their positions, their time against the kill, and what the
        # stream received around them.
        wall_kill = kill_info.get("wall")
        for gp in missing[:6]:
            tx, st, et, at = expected[gp]
            detail.append("missing %s/%d %s (%s), recorded %+.2f s from the kill" % (tx, gp, et, st[:20], at - wall_kill if wall_kill else 0))
        received = sorted(((int(i.split("/")[0]), int(i.split("/")[1])), i, arr, n) for i, _, arr, n in changes if i)
        lo, hi = missing[0], missing[-1]
        near = [r for r in received if lo - 30 <= r[0][1] <= hi + 30][:14]
        detail.append("received around them: %s" % ", ".join("%s (#%d at %.2f s)" % (i, n, arr) for _, i, arr, n in near))
    return got, missing, dup, detail


def check_stream(checks, db, stream, direct, u0, before, kill_info, victim, other):
    # Wait until the streams have every change of the user, or 15 s.
    expected = {}
    for gp, tx, st, et, at in db.rows("SELECT global_position, transaction_id::text, stream_id, event_type, "
                                      "extract(epoch FROM recorded_at)::float8 FROM events WHERE owner_id = '%s'" % u0.id):
        if int(gp) not in before:
            expected[int(gp)] = (tx, st, et, float(at))
    end = time.monotonic() + 15
    while time.monotonic() < end:
        if all(set(expected) <= stream_gaps(r, expected, kill_info)[0].keys() for r in (stream, direct)):
            break
        time.sleep(0.2)
    stream.stop()
    direct.stop()
    got, missing, dup, detail = stream_gaps(stream, expected, kill_info)
    dgot, dmissing, ddup, ddetail = stream_gaps(direct, expected, kill_info)
    conns = stream.connections
    killed_served = [c for c in conns if c["served_by"] == victim and c["opened"] <= kill_info.get("at", 0)]
    after = [c for c in conns if kill_info.get("at") is not None and c["opened"] > kill_info["at"] and c["status"] == 200]
    resumed = [c for c in after if c["resumed_from"]]
    resets = sum(c["resets"] for c in conns + direct.connections)
    ok = not missing and not dup and resets == 0 and killed_served and resumed
    desc = lambda cs: "; ".join("#%d %s@%s %.1f-%.1f s (%s)%s" % (n, c["status"], c["served_by"] or "direct", c["opened"], c["closed"] or 0,
                                                                 c["how"], " after %s" % c["resumed_from"] if c["resumed_from"] else "")
                                for n, c in enumerate(cs))
    checks.add("live stream: no change missed across the kill", bool(ok),
               "through the proxy: %s" % desc(conns),
               "%d changes of user 0 in the log during the run; through the proxy %d received, %d missing%s, %d twice; %d resets"
               % (len(expected), len(got), len(missing), (" (%s)" % missing[:8]) if missing else "", len(dup), resets),
               "the stream was served by the killed instance %s: %s; reconnected with Last-Event-ID after the kill: %s"
               % (victim, "yes" if killed_served else "NO", "yes, to %s" % resumed[0]["served_by"] if resumed else "NO"),
               *detail)
    checks.add("live stream straight from instance %s (a control, never cut)" % other, not dmissing and not ddup and len(direct.connections) == 1,
               "connections: %s; %d received, %d missing%s, %d twice"
               % (desc(direct.connections), len(dgot), len(dmissing), (" (%s)" % dmissing[:8]) if dmissing else "", len(ddup)),
               *ddetail)


def check_rebuild(args, checks, db, facts):
    env = dict(os.environ, DATABASE_URL=args.url, JWT_SECRET=JWT_SECRET, LOG_LEVEL="error", LIFELOG_SCHEMA_DIR=args.schema,
               LIFELOG_DATA_DIR=os.path.join(args.work, "data-rebuild"))
    outbox_before = db.rows("SELECT count(*) FROM reminder_outbox")[0][0]
    before = dump_models(db, os.path.join(args.work, "models-before-rebuild.txt"))
    began = time.monotonic()
    r = subprocess.run([args.bin, "projections", "rebuild", "--all"], env=env, capture_output=True, text=True, timeout=600)
    facts["rebuild s"] = time.monotonic() - began
    after = dump_models(db, os.path.join(args.work, "models-after-rebuild.txt"))
    outbox_after = db.rows("SELECT count(*) FROM reminder_outbox")[0][0]
    if r.returncode != 0:
        checks.add("read models = a rebuild from the log", False, "rebuild failed (%d): %s" % (r.returncode, r.stderr.strip()[-400:]))
        return
    differ = []
    for t in sorted(set(before) | set(after)):
        b, a = before.get(t, []), after.get(t, [])
        if b != a:
            gone, new = set(b) - set(a), set(a) - set(b)
            differ.append("%s: %d rows live, %d rebuilt; only live: %s; only rebuilt: %s"
                          % (t, len(b), len(a), sorted(gone)[:2], sorted(new)[:2]))
    rows = sum(len(v) for v in before.values())
    checks.add("read models = a rebuild from the log", not differ and outbox_before == outbox_after,
               "%d rm_* tables, %d rows, dumped sorted before and after `lifelog projections rebuild --all` (%.1f s, servers stopped): %s"
               % (len(before), rows, facts["rebuild s"], "identical" if not differ else "%d tables differ" % len(differ)),
               "outbox rows before/after the rebuild: %s/%s" % (outbox_before, outbox_after),
               *differ[:10])


def report(args, checks, facts, instances, victim, kill_info, stream, tp, writes, ops):
    print()
    print("Two instances behind haproxy: %d users, %d requests of mixed load (%d writes), %d threads, %d cores"
          " (load average %s at the start, %s at the end)"
          % (args.users, len(ops), len(writes), args.threads, os.cpu_count() or 0, facts.get("load average"),
             "%.1f" % os.getloadavg()[0]))
    if kill_info:
        print("  SIGKILL of instance %s at %.1f s (after %.0f %% of the load); haproxy marked it down %s; started again at +%.1f s, ready at +%.1f s, back in haproxy %s"
              % (victim, kill_info["at"], args.kill_at * 100,
                 "%.2f s later" % (kill_info["down seen"] - kill_info["at"]) if kill_info.get("down seen") else "(not seen)",
                 kill_info["restart"] - kill_info["at"], kill_info["ready"] - kill_info["at"],
                 "at +%.1f s" % (kill_info["up"] - kill_info["at"]) if "up" in kill_info else "never"))
    print("  load: %.1f s; answers: %s" % (facts.get("load s", 0), ", ".join(
        "%s: %d" % (k[1], v) for k, v in sorted(facts.get("answers", {}).items(), key=str) if k[0] == "load")))
    print()
    print("Throughput of the same mix through haproxy (%d threads, %.0f s each; on 2 cores shared with PostgreSQL, haproxy and "
          "this client, a second instance may not add any):" % (args.threads, args.measure))
    for label, t in tp.items():
        print("  %-14s %7.1f requests/s  (%d requests; p50 %.1f ms, p99 %.1f ms; answered by %s; non-2xx: %d)"
              % (label, t["rps"], t["requests"], t["p50"], t["p99"],
                 ", ".join("%s %d" % kv for kv in sorted(t["by"].items(), key=str)),
                 sum(n for s, n in t["statuses"].items() if not (isinstance(s, int) and 200 <= s < 300))))
    for label, t in tp.items():
        print("  %-14s cores used: %s" % (label, ", ".join("%s %.2f" % (k, v) for k, v in t["cpu"].items())))
    if "two instances" in tp and "one instance" in tp:
        print("  two/one: %.2f" % (tp["two instances"]["rps"] / tp["one instance"]["rps"]))
    print()
    samples = facts.get("cpu while waiting") or []
    if facts.get("leased seen"):
        print("Webhook rows leased by the killed instance: %d pending under a lease at %.1f s; waited %.1f s for every push."
              % (facts["leased seen"][0], facts["leased seen"][1], facts.get("waited for webhooks s", 0)))
    if facts.get("lease check"):
        print("Delivery daemons under a dead instance's lease: " + facts["lease check"])
    leased_rows = [x for x in samples if x[2] > 0]
    free_rows = [x for x in samples if x[2] == 0]
    if leased_rows and free_rows:
        mean = lambda rows, k: sum((x[4].get(k) or 0) for x in rows) / len(rows)
        leased_rate, free_rate = mean(leased_rows, "xacts/s"), mean(free_rows, "xacts/s")
        # The daemons used to ask every 10 ms while the lease ran (3.5x the database's rate then).
        verdict = ("Finding: while rows wait under the dead instance's lease, the live instances' delivery daemons poll without pause"
                   if leased_rate > 2 * free_rate else
                   "While rows wait under the dead instance's lease, the live instances' delivery daemons wait for it")
        print(verdict + ": "
              "%.0f database transactions/s and %.2f + %.2f cores (a + b), against %.0f/s and %.2f + %.2f once the rows are pushed"
              % (mean(leased_rows, "xacts/s"), mean(leased_rows, "a"), mean(leased_rows, "b"),
                 mean(free_rows, "xacts/s"), mean(free_rows, "a"), mean(free_rows, "b")))
        facts["spin"] = (mean(leased_rows, "xacts/s"), mean(free_rows, "xacts/s"))
    if samples:
        print("  While waiting (webhook rows pending, under a lease, due; cores used by a and b; the database's transactions/s):")
        for t, pending, leased, due, cpu in samples[:: max(1, len(samples) // 12)]:
            print("    %6.1f s  pending %4d  leased %4d  due %4d   a %.2f  b %.2f   %6.0f xacts/s"
                  % (t, pending, leased, due, cpu.get("a") or 0, cpu.get("b") or 0, cpu.get("xacts/s", 0)))
    print()
    for name, (ok, lines) in checks.results.items():
        print("%s  %s" % ("PASS" if ok else "FAIL", name))
        for line in lines:
            print("      " + line)
    print()
    failed = checks.failed()
    print("checks: %d passed, %d failed; rebuild %.1f s; work directory %s"
          % (len(checks.results) - len(failed), len(failed), facts.get("rebuild s", 0), args.work))


if __name__ == "__main__":
    sys.exit(main())
