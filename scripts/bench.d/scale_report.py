#!/usr/bin/env python3
"""Reads the JSON lines of `scripts/bench scale` and prints, per size and row, the median over the
rounds with the ratios to the smallest size taken within each round (min / median / max), against
the issue's goals at the largest size: throughput >= 0.85 and open-loop p99 <= 2x."""
import collections
import json
import statistics
import sys

records = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
sizes = []
for record in records:
    if record["size"] not in sizes:
        sizes.append(record["size"])
base, largest = sizes[0], sizes[-1]
rows = collections.defaultdict(dict)  # (size, name) -> run -> row
for record in records:
    if record["kind"] == "row":
        rows[(record["size"], record["name"])][record["run"]] = record
states = collections.defaultdict(list)
for record in records:
    if record["kind"] == "state":
        states[record["size"]].append(record)


def spread(values):
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}" if values else "-"


print("Scale: one daemon per size, rounds in alternating size order; ratios to the "
      f"{base} size within each round (min / median / max over {len({r['run'] for r in records if 'run' in r})} rounds)")
for record in records:
    if record["kind"] == "seed":
        seed = record["seed"]
        print(f"  seed {record['size']:>5}: {seed['rows']} rows in {seed['seconds']:.0f} s ({seed['rows_per_sec']:.0f} rows/s), "
              f"{seed['file_bytes'] / 1048576:.0f} MiB")
for record in records:
    if record["kind"] == "start":
        print(f"  start {record['size']:>5}: first 200 after {record['start_ms']} ms, idle RSS {record['idle_rss_kb'] / 1024:.1f} MiB, "
              f"wrk pool {record['wrk_pool']} tokens per round")
throughput_rows = ["refresh_ES256", "refresh_RS256", "userinfo", "authorize"]
open_rows = {"refresh_ES256": "refresh_ES256_open50", "userinfo": "userinfo_open50", "authorize": "authorize_open50"}
print(f"{'row':<16}{'size':>6}{'req/s':>9}{'CPU ms':>8}{'KB w/req':>9}{'p99 50%':>9}{'p99.9':>8}  "
      f"{'req/s ratio':<22}{'p99 ratio':<22}load (first round)")
verdicts = []
for name in throughput_rows + ["signin"]:
    for size in sizes:
        runs = rows.get((size, name), {})
        if not runs:
            continue
        key = "flows_per_sec" if name == "signin" else "req_per_sec"
        rate = statistics.median(r[key] for r in runs.values())
        cpu = statistics.median((r.get("server_cpu_ms_per_req") or r.get("server_cpu_ms_per_flow") or 0) for r in runs.values())
        written = statistics.median(r.get("written_bytes_per_req", 0) for r in runs.values()) / 1024
        ratios, p99_ratios, p99s, p999s = [], [], [], []
        for run, row in runs.items():
            reference = rows[(base, name)].get(run)
            if reference and reference[key]:
                ratios.append(row[key] / reference[key])
            if name in open_rows:
                open_row = rows.get((size, open_rows[name]), {}).get(run)
                open_ref = rows.get((base, open_rows[name]), {}).get(run)
                if open_row:
                    p99s.append(open_row["p99_ms"])
                    p999s.append(open_row["p999_ms"])
                if open_row and open_ref and open_ref["p99_ms"]:
                    p99_ratios.append(open_row["p99_ms"] / open_ref["p99_ms"])
            elif name == "signin" and reference and reference["p99_ms"] and row["p99_ms"]:
                p99s.append(row["p99_ms"])
                p99_ratios.append(row["p99_ms"] / reference["p99_ms"])
        p99 = f"{statistics.median(p99s):.2f}" if p99s else "-"
        p999 = f"{statistics.median(p999s):.2f}" if p999s else "-"
        print(f"{name:<16}{size:>6}{rate:>9.1f}{cpu:>8.3f}{written:>9.1f}{p99:>9}{p999:>8}  {spread(ratios):<22}{spread(p99_ratios):<22}"
              f"{min(runs.items())[1]['load']}")
        if size == largest and size != base and ratios:
            verdicts.append(f"  {name} at {size}: req/s {statistics.median(ratios):.2f} of {base} (goal >= 0.85: "
                            f"{'met' if statistics.median(ratios) >= 0.85 else 'NOT met'})"
                            + (f", p99 {statistics.median(p99_ratios):.2f}x (goal <= 2: "
                               f"{'met' if statistics.median(p99_ratios) <= 2 else 'NOT met'})" if p99_ratios else ""))
for size in sizes:
    if states[size]:
        before = [s["rss_before_signin_kb"] for s in states[size] if "rss_before_signin_kb" in s]
        print(f"  {size:>5}: RSS {max(s['rss_kb'] for s in states[size]) / 1024:.1f} MiB after the rows"
              + (f", {max(before) / 1024:.1f} before the sign-in row" if before else "")
              + f" (peak {max(s['hwm_kb'] for s in states[size]) / 1024:.1f} MiB), database + WAL {states[size][-1]['db_bytes'] / 1048576:.0f} MiB")
        cached = [s["db_cached_bytes"] for s in states[size] if s.get("db_cached_bytes") is not None]
        if cached:
            print(f"  {size:>5}: the database's pages in the page cache after each round: "
                  + " / ".join(f"{c / 1048576:.0f}" for c in cached) + " MiB (a page not there is read from disk)")
        warmed = [s["db_cached_before_warming_bytes"] for s in states[size] if s.get("db_cached_before_warming_bytes") is not None]
        if warmed:
            print(f"  {size:>5}: read through the page cache before each round (BENCH_SCALE_WARM); cached before that: "
                  + " / ".join(f"{c / 1048576:.0f}" for c in warmed) + " MiB")
print("Goals at the largest size:")
print("\n".join(verdicts))
print("CPU ms = server CPU per request (per flow for signin, password hash included); KB w/req = bytes the daemon sent to storage"
      " per request (/proc/PID/io write_bytes); p99 50% = open-loop p99 at half the round's wrk maximum (from the scheduled time)")
