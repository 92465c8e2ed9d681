#!/usr/bin/env python3
"""How long another writer waits for SQLite's write lock while something else runs.

Usage: lock_probe.py DATABASE OUT.json
Until SIGTERM or SIGINT: take the write lock (BEGIN IMMEDIATE), release it at once (an empty
COMMIT writes nothing), sleep a millisecond, again. When the lock is busy it retries every
0.2 ms itself instead of using SQLite's busy handler, whose sleeps grow to 100 ms and would
be counted as waiting. The longest wait is the longest time anyone else held the lock, to
within the retry interval: the figure issue #18 bounds ("a few milliseconds at a time").
Writes {"attempts", "waits_over_1ms", "waits_over_5ms", "waits_over_10ms", "p99_ms", "max_ms",
"max_at_s"} to OUT.json.
"""
import json
import signal
import sqlite3
import sys
import time

database, out = sys.argv[1], sys.argv[2]
connection = sqlite3.connect(database, timeout=0, isolation_level=None)
running = True


def stop(*_):
    global running
    running = False


signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGINT, stop)
# The first transaction reads the schema and the WAL index from disk: the probe's own cost, not a wait.
connection.execute("BEGIN IMMEDIATE")
connection.execute("COMMIT")
started = time.monotonic()
waits = []
longest, longest_at = 0.0, 0.0
while running:
    asked = time.monotonic()
    while running:
        try:
            connection.execute("BEGIN IMMEDIATE")
            break
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) and "busy" not in str(error):
                raise
            time.sleep(0.0002)
    else:
        break
    waited = time.monotonic() - asked
    connection.execute("COMMIT")
    waits.append(waited)
    if waited > longest:
        longest, longest_at = waited, asked - started
    time.sleep(0.001)
waits.sort()
result = {
    "attempts": len(waits),
    "waits_over_1ms": sum(w > 0.001 for w in waits),
    "waits_over_5ms": sum(w > 0.005 for w in waits),
    "waits_over_10ms": sum(w > 0.010 for w in waits),
    "p99_ms": round(waits[int(len(waits) * 0.99)] * 1000, 2) if waits else 0.0,
    "max_ms": round(longest * 1000, 2),
    "max_at_s": round(longest_at, 2),
}
with open(out, "w") as handle:
    json.dump(result, handle)
