#!/usr/bin/env python3
"""Runs one test step under a time limit: `watchdog.py MINUTES COMMAND...`.

The step's output passes through line by line. When the step outlives its limit (a hung test
would otherwise hold CI until its own limit, with nothing to show for it), the watchdog prints
the Swift Testing tests that started and never finished, and the step's process tree, then stops
the whole tree and exits 124, as timeout(1) does. Otherwise it exits with the step's status.
"""

import collections
import os
import re
import signal
import subprocess
import sys
import threading
import time

# Swift Testing's console lines: "◇ Test NAME started." and, when it ends, "✔ Test NAME passed
# after …", "✘ Test NAME failed after …", "━ Test NAME passed after … with 1 known issue" or
# "➜ Test NAME skipped"; a parameterised test's end reads "Test NAME with N test cases passed".
STARTED = re.compile(r"^\S+ Test (.+) started\.$")
FINISHED = re.compile(r"^\S+ Test (.+?)(?: with \d+ test cases?)? (?:passed|failed|skipped)\b")


def main() -> int:
    if len(sys.argv) < 3:
        print("usage: watchdog.py MINUTES COMMAND...", file=sys.stderr)
        return 2
    limit = float(sys.argv[1]) * 60
    command = sys.argv[2:]
    # A step starts with the signals that stop it deliverable, whatever its caller blocked (a
    # blocked mask is inherited across exec; a handler is not).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
    # Its own session, so that the daemons, nginx and stubs the tests start go with it (PostgreSQL's
    # server, detached by pg_ctl, stops with the test process, unless that is killed).
    step = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)

    def stop_tree(number: int) -> None:
        """Sends `number` to the step's session, then SIGKILL to whatever is left after 10 s (a
        process that ignores or blocks `number`)."""
        signal_tree(step.pid, number)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and signal_tree(step.pid, 0):
            step.poll()  # reaps the step itself, which would otherwise count as still there
            time.sleep(0.05)
        signal_tree(step.pid, signal.SIGKILL)
        step.wait()

    def forward(number: int, _frame) -> None:
        stop_tree(number)
        sys.exit(128 + number)

    for received in (signal.SIGINT, signal.SIGTERM):
        signal.signal(received, forward)

    running = collections.Counter()
    lock = threading.Lock()

    def relay() -> None:
        for raw in step.stdout:
            sys.stdout.buffer.write(raw)
            sys.stdout.buffer.flush()
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if line.startswith("◇ Test case ") or line.startswith("◇ Test run "):
                continue
            with lock:
                if started := STARTED.match(line):
                    running[started.group(1)] += 1
                elif finished := FINISHED.match(line):
                    running[finished.group(1)] -= 1

    reader = threading.Thread(target=relay, daemon=True)
    reader.start()
    try:
        status = step.wait(timeout=limit)
        # The rest of its output; bounded, since a process the step left behind may hold the pipe.
        reader.join(timeout=10)
        # A step ended by a signal exits as a shell reports it: 128 + the signal's number.
        return 128 - status if status < 0 else status
    except subprocess.TimeoutExpired:
        pass

    print(f"\nwatchdog: `{' '.join(command)}` outlived its {limit / 60:g} minutes", flush=True)
    with lock:
        unfinished = sorted(name for name, count in running.items() if count > 0)
    print("watchdog: tests started and not finished: " + (", ".join(unfinished) or "none"), flush=True)
    print("watchdog: the step's processes:", flush=True)
    subprocess.run(["ps", "-o", "pid,ppid,etime,time,stat,args", "--forest", "-s", str(step.pid)], check=False)
    stop_tree(signal.SIGTERM)
    return 124


def signal_tree(session: int, number: int) -> bool:
    """Sends `number` to every live process of the session; whether there was any. A session, not
    a process group: `swift test` runs the test process in a group of its own, and Foundation's
    Process gives each child (a daemon, nginx, a stub) one too."""
    found = False
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                # pid (comm) state ppid pgrp session …: comm may hold spaces and parentheses.
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # It ended meanwhile.
        if int(fields[3]) != session or fields[0] == "Z":
            continue
        try:
            os.kill(int(entry), number)
            found = True
        except ProcessLookupError:
            pass
    return found


if __name__ == "__main__":
    sys.exit(main())
