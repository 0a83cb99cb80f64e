"""Sends concurrent POST /api/v1/tasks, each with its own Idempotency-Key, kills the server with
SIGKILL at a random moment, restarts it, retries every request that got no answer (with its key),
and counts what the server stored: every acknowledged task once, none lost, none twice.

Driven by bench/kill/run, which owns the database and the server process; this script only
talks HTTP on loopback and asks run to kill and restart through the two commands it is given.
"""
import json
import random
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

BASE = sys.argv[1]
KILL, RESTART = sys.argv[2], sys.argv[3]
REQUESTS = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
SEED = int(sys.argv[5]) if len(sys.argv) > 5 else 1


def call(method, path, token=None, body=None, key=None, timeout=30):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    if key:
        headers["Idempotency-Key"] = key
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(BASE + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, {}
    except Exception:  # connection refused or reset: the server is gone; no answer
        return None, {}


def main():
    rng = random.Random(SEED)
    email = "kill-%d-%d@example.com" % (SEED, int(time.time() * 1000) % 10**9)
    status, answer = call("POST", "/api/v1/auth/register",
                          body={"email": email, "password": "correct horse battery", "name": "Kill test", "timezone": "UTC"})
    if status != 201:
        print("could not register: %s" % status)
        return 2
    token = answer["access_token"]

    answered = {}  # key -> task id, for requests that got 201
    lock = threading.Lock()

    def create(n):
        key = "kill-%d" % n
        status, body = call("POST", "/api/v1/tasks", token, {"title": key}, key)
        if status == 201:
            with lock:
                answered[key] = body["id"]

    # The kill lands mid-run: after a random share (10 to 90 %) of the requests were answered,
    # while the rest are in flight, some committed but unanswered.
    kill_at = int(REQUESTS * rng.uniform(0.1, 0.9))
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=100) as pool:
        futures = [pool.submit(create, n) for n in range(REQUESTS)]
        while True:
            with lock:
                if len(answered) >= kill_at:
                    break
            if all(f.done() for f in futures):
                break
            time.sleep(0.005)
        kill_after = time.monotonic() - started
        subprocess.run(KILL, shell=True, check=True)
        for future in futures:
            future.result()
    acknowledged_before_kill = len(answered)

    subprocess.run(RESTART, shell=True, check=True)
    retried = [n for n in range(REQUESTS) if "kill-%d" % n not in answered]
    first_ids = dict(answered)
    conflicts = 0
    with ThreadPoolExecutor(max_workers=50) as pool:
        list(pool.map(create, retried))
    # A retry of an answered request replays its answer: the same task.
    for key in rng.sample(sorted(first_ids), min(20, len(first_ids))):
        status, body = call("POST", "/api/v1/tasks", token, {"title": key}, key)
        if status != 201 or body.get("id") != first_ids[key]:
            conflicts += 1

    stored = {}
    cursor = ""
    while True:
        status, page = call("GET", "/api/v1/tasks?filter=all&limit=100" + ("&cursor=" + cursor if cursor else ""), token)
        if status != 200:
            print("could not list tasks: %s" % status)
            return 2
        for task in page["items"]:
            stored.setdefault(task["title"], []).append(task["id"])
        cursor = page.get("next_cursor")
        if not cursor:
            break

    keys = ["kill-%d" % n for n in range(REQUESTS)]
    unanswered = [k for k in keys if k not in answered]
    lost = [k for k in answered if answered[k] not in stored.get(k, [])]
    duplicated = [k for k, ids in stored.items() if len(ids) > 1]
    print("killed after %.2f s: %d acknowledged before the kill, %d retried, %d still unanswered; "
          "stored %d tasks: lost %d, duplicated %d, replays that differed %d"
          % (kill_after, acknowledged_before_kill, len(retried), len(unanswered), sum(len(v) for v in stored.values()),
             len(lost), len(duplicated), conflicts))
    return 0 if not lost and not duplicated and not unanswered and not conflicts else 1


if __name__ == "__main__":
    sys.exit(main())
