"""Measures event webhook latency against a running server (driven by bench/webhooks/run).

For each of N tasks: complete it, note when the answer arrived, and wait for its task.completed
webhook at a receiver on loopback; the latency is the arrival minus the answer. The floor is the
same client's bare POST to the same receiver, N times. Prints both distributions.
"""
import http.server
import json
import sys
import threading
import time
import urllib.request

BASE, N = sys.argv[1], int(sys.argv[2])
arrivals = {}
lock = threading.Lock()
arrived = threading.Condition(lock)


class Receiver(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        now = time.monotonic()
        try:
            task = json.loads(body).get("data", {}).get("task_id")
        except ValueError:
            task = None
        with arrived:
            if task and task not in arrivals:
                arrivals[task] = now
            arrived.notify_all()
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
threading.Thread(target=server.serve_forever, daemon=True).start()
hook = "http://127.0.0.1:%d/hook" % server.server_address[1]


def call(method, path, token=None, body=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    request = urllib.request.Request(BASE + path, data=json.dumps(body).encode() if body is not None else None,
                                     method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"{}")


token = call("POST", "/api/v1/auth/register", body={"email": "bench-webhooks@example.com", "password": "correct horse battery",
                                                      "name": "Bench", "timezone": "UTC"})["access_token"]
call("POST", "/api/v1/webhooks", token, {"url": hook, "events": ["task.completed"]})
tasks = [call("POST", "/api/v1/tasks", token, {"title": "Task %d" % n})["id"] for n in range(N)]

latencies, missing = [], 0
for task in tasks:
    call("POST", "/api/v1/tasks/%s/complete" % task, token)
    answered = time.monotonic()
    with arrived:
        arrived.wait_for(lambda: task in arrivals, timeout=10)
        if task in arrivals:
            latencies.append(arrivals[task] - answered)
        else:
            missing += 1

floor = []
for n in range(N):
    request = urllib.request.Request(hook, data=b'{"data":{}}', method="POST", headers={"Content-Type": "application/json"})
    started = time.monotonic()
    with urllib.request.urlopen(request, timeout=10) as response:
        response.read()
    floor.append(time.monotonic() - started)


def describe(values):
    values = sorted(values)
    pick = lambda q: values[min(len(values) - 1, int(q * len(values)))] * 1000
    return "p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms" % (pick(0.5), pick(0.9), pick(0.99), values[-1] * 1000)


print("event webhooks: %d events, %d arrived, %d missing; write answered -> webhook arrived: %s"
      % (N, len(latencies), missing, describe(latencies) if latencies else "-"))
print("floor: %d bare POSTs from this client to the same receiver: %s" % (N, describe(floor)))
p99 = sorted(latencies)[min(len(latencies) - 1, int(0.99 * len(latencies)))] if latencies else float("inf")
ok = missing == 0 and p99 <= 2.0
print("target p99 <= 2 s: %s" % ("met" if ok else "NOT met"))
sys.exit(0 if ok else 1)
