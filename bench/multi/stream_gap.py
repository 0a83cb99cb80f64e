"""The live stream misses changes under concurrent writes (found by bench/multi/run, issue 30).

One `lifelog serve`, one user with GET /api/v1/events/stream open, WRITERS threads creating tasks
for that user for SECONDS; then every event of the user in the log is looked for in the stream.
Each round on a database of its own (same cluster). Prints, per round, the events missing, with
their positions and what the stream received around them; exit status 1 when any round missed
one. Driven by bench/multi/stream-gap. Python 3 standard library only.
"""
import argparse
import os
import random
import sys
import threading
import time

sys.dont_write_bytecode = True  # nothing written into the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import two_instances as m  # noqa: E402
kill = m.kill


def one_round(args, n):
    admin = kill.Database(args.psql, args.admin)
    name = "gap_%d" % n
    admin.rows("DROP DATABASE IF EXISTS %s" % name)
    admin.rows("CREATE DATABASE %s" % name)
    url = args.admin.rsplit("/", 1)[0] + "/" + name

    class A:
        pass
    a = A()
    a.url, a.work, a.bin, a.schema, a.log_level = url, os.path.join(args.work, name), args.bin, args.schema, "notice"
    os.makedirs(a.work, exist_ok=True)
    server = m.Instance("gap", a, m.free_port())
    server.start()
    try:
        client = m.Client(server.port)
        u = kill.setup_user(client, 0, "gap%d-%d" % (n, random.randrange(10**6)), 1, random.Random(n))
        stream = m.StreamReader(server.port, u.token, os.path.join(a.work, "stream.txt"))
        stream.start()
        stream.opened.wait(10)
        time.sleep(0.5)
        db = kill.Database(args.psql, url)
        before = {int(g) for (g,) in db.rows("SELECT global_position FROM events WHERE owner_id = '%s'" % u.id)}
        stop = threading.Event()

        def writer():
            while not stop.is_set():
                k = "%x" % random.randrange(1 << 60)
                client.call("POST", "/api/v1/tasks", u.token, body={"title": "gap " + k}, key=k)
        threads = [threading.Thread(target=writer) for _ in range(args.writers)]
        for t in threads:
            t.start()
        time.sleep(args.seconds)
        stop.set()
        for t in threads:
            t.join()
        time.sleep(2)
        rows = db.rows("SELECT global_position, transaction_id::text FROM events WHERE owner_id = '%s' ORDER BY global_position" % u.id)
        expected = {int(g): "%s/%s" % (tx, g) for g, tx in rows if int(g) not in before}
        with stream.lock:
            got = [i for i, *_ in stream.changes]
        stream.stop()
        missing = sorted(set(expected) - {int(i.split("/")[1]) for i in got})
        twice = sorted(i for i in set(got) if got.count(i) > 1)
        line = "round %d: %d changes in the log, %d received, %d missing, %d twice%s" % (
            n, len(expected), len(got), len(missing), len(twice), (" (%s)" % ", ".join(twice[:5])) if twice else "")
        if missing:
            first = expected[missing[0]]
            line += ": %s" % ", ".join(expected[g] for g in missing[:12])
            idx = [k for k, i in enumerate(got) if m_pos(i) > m_pos(first)]
            if idx:
                k = idx[0]
                line += "\n    the stream went %s -> %s" % (" ".join(got[max(0, k - 3):k]), " ".join(got[k:k + 3]))
        print(line, flush=True)
        return len(missing) + len(twice)
    finally:
        server.stop()


def m_pos(text):
    tx, gp = text.split("/")
    return (int(tx), int(gp))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--admin", required=True)
    p.add_argument("--psql", required=True)
    p.add_argument("--schema", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--writers", type=int, default=8)
    p.add_argument("--seconds", type=float, default=4)
    args = p.parse_args()
    missed = [one_round(args, n) for n in range(1, args.rounds + 1)]
    print("%d of %d rounds missed a change or had one twice (%d in all)" % (sum(1 for x in missed if x), len(missed), sum(missed)))
    return 1 if any(missed) else 0


if __name__ == "__main__":
    sys.exit(main())
