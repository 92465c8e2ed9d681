#!/usr/bin/env python3
"""Cold start: exec to the first 200 of URL, and the RSS once idle, for one server command.

Usage: cold_start.py NAME URL SETTLE_SECONDS -- COMMAND...
Prints one JSON object. The URL is polled over a fresh TCP connection every millisecond from the
moment of exec, so the figure is the server's own start plus at most a millisecond.
"""
import json, os, signal, socket, subprocess, sys, time
from urllib.parse import urlsplit

def first_200(host, port, path, deadline):
    request = f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n".encode()
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=1) as connection:
                connection.sendall(request)
                head = connection.recv(64)
                if head.startswith(b"HTTP/1.1 200") or head.startswith(b"HTTP/1.0 200"):
                    return True
        except OSError:
            pass
        time.sleep(0.001)
    return False

def memory(pid):
    fields = {}
    with open(f"/proc/{pid}/smaps_rollup") as rollup:
        for line in rollup:
            parts = line.split()
            if len(parts) >= 2 and parts[1].isdigit():
                fields[parts[0].rstrip(":")] = int(parts[1])
    return {"rss_kb": fields.get("Rss", 0), "anonymous_kb": fields.get("Anonymous", 0),
            "private_dirty_kb": fields.get("Private_Dirty", 0), "pss_kb": fields.get("Pss", 0)}

def main():
    name, url, settle = sys.argv[1], sys.argv[2], float(sys.argv[3])
    command = sys.argv[sys.argv.index("--") + 1:]
    parts = urlsplit(url)
    started = time.monotonic()
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        ok = first_200(parts.hostname, parts.port, parts.path or "/", started + 30)
        start_ms = (time.monotonic() - started) * 1000
        time.sleep(settle)
        row = {"name": name, "ok": ok, "start_ms": round(start_ms, 1), **memory(server.pid)}
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
    print(json.dumps(row))

main()
