"""Saturation run: while clients keep /sparql busy with runaway queries, do cached scenario GETs
still answer fast? (issue 13's target: p99 <= 50 ms, 0 errors, from 32 clients.)

Starts `factforge serve --store DIR` over DBpedia50 (or the demo KB) on loopback, makes one
scenario, then in each round:

1. a baseline: wrk drives the cached scenario GET with N connections, nothing else running;
2. saturated: ``--runaway-clients`` threads send a cartesian COUNT (no row is ever yielded; only
   killing its query process stops it) to /sparql in a loop, and wrk drives the same GET again.

Prints, per phase, the median over rounds of wrk's throughput, p50, p99 and errors, and what the
runaway clients got (503s at the time limit, 503s turned away at once). Figures, no assertions.

    python3 bench/saturation_bench.py                    # DBpedia50 + ontology, 3 rounds of 15 s
    python3 bench/saturation_bench.py --kb demo --duration 10 --rounds 1
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from http_bench import free_port, kb_files, start, wait_for, wrk  # noqa: E402

RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"


def make_scenario(base: str, spec: dict) -> str:
    request = urllib.request.Request(f"{base}/api/scenarios", data=json.dumps(spec).encode(),
                                     headers={"Content-Type": "application/json"})
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:  # 202 while it is being made; the same POST answers 201 once it is
        with urllib.request.urlopen(request, timeout=600) as response:
            body = json.load(response)
            if response.status == 201:
                return f"{base}/api/scenarios/{body['id']}"
        time.sleep(0.5)
    raise SystemExit("the scenario was not made within 600 s")


def runaway_clients(base: str, count: int, stop: threading.Event) -> tuple[collections.Counter, list]:
    outcomes: collections.Counter = collections.Counter()
    url = f"{base}/sparql?" + urllib.parse.urlencode({"query": RUNAWAY})

    def loop() -> None:
        while not stop.is_set():
            try:
                urllib.request.urlopen(url, timeout=300).read()
                outcomes["200"] += 1
            except urllib.error.HTTPError as error:
                message = json.loads(error.read()).get("error", "")
                outcomes[f"{error.code} {'busy' if 'busy' in message else 'time limit'}"] += 1
                if "busy" in message:
                    time.sleep(float(error.headers.get("Retry-After", "1")))
            except OSError as error:
                outcomes[f"error {type(error).__name__}"] += 1

    threads = [threading.Thread(target=loop, daemon=True) for _ in range(count)]
    for thread in threads:
        thread.start()
    return outcomes, threads


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kb", choices=["dbpedia50", "demo"], default="dbpedia50")
    parser.add_argument("--duration", type=int, default=15, help="seconds of wrk per phase and round (default 15)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--runaway-clients", type=int, default=2)
    parser.add_argument("--sparql-timeout", type=float, default=5.0)
    parser.add_argument("--server-workers", type=int, default=1, help="`factforge serve --workers` (default 1)")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("needs wrk (apt-get install wrk)")

    work = Path(tempfile.mkdtemp(prefix="factforge-saturation-"))
    env = {**os.environ, "FACTFORGE_CACHE": str(work / "cache")}
    server = None
    try:
        store = work / "store"
        for path, graph in kb_files(args.kb):
            subprocess.run([sys.executable, "-m", "factforge", "--quiet", "load", str(path), "--store", str(store)]
                           + (["--graph", graph] if graph else []), check=True, env=env, capture_output=True)
        port = free_port()
        server = start([sys.executable, "-m", "factforge", "--quiet", "serve", "--store", str(store), "--port",
                        str(port), "--sparql-timeout", str(args.sparql_timeout), "--workers",
                        str(args.server_workers)], work / "serve.log", env)
        base = f"http://127.0.0.1:{port}"
        wait_for(f"{base}/api/kb", server)
        spec = {"predicate": "dbo:birthPlace" if args.kb == "dbpedia50" else "dbo:capital",
                "size": 300 if args.kb == "dbpedia50" else 40, "seed": 1}
        scenario = make_scenario(base, spec) + "?format=tsv"
        phases: dict[str, list[dict]] = {"baseline": [], "saturated": []}
        runaway_totals: collections.Counter = collections.Counter()
        for _ in range(args.rounds):
            phases["baseline"].append(wrk(scenario, connections=args.connections, duration=args.duration,
                                          threads=2, accept="text/tab-separated-values"))
            stop = threading.Event()
            outcomes, threads = runaway_clients(base, args.runaway_clients, stop)
            time.sleep(1.0)  # the runaways hold the query workers before wrk starts
            phases["saturated"].append(wrk(scenario, connections=args.connections, duration=args.duration,
                                           threads=2, accept="text/tab-separated-values"))
            stop.set()
            for thread in threads:
                thread.join(timeout=args.sparql_timeout + 30)
            runaway_totals.update(outcomes)
        print(f"\n{args.kb}, {args.rounds} rounds x {args.duration} s, {args.connections} connections, "
              f"{args.runaway_clients} runaway clients, --sparql-timeout {args.sparql_timeout:g}, "
              f"--workers {args.server_workers}\n")
        print("| phase | req/s | p50 ms | p99 ms | errors | load |")
        print("|---|---|---|---|---|---|")
        for name, runs in phases.items():
            median = {key: statistics.median(run[key] for run in runs) for key in ("rps", "p50", "p99", "load")}
            errors = sum(run["errors"] for run in runs)
            print(f"| {name} | {median['rps']:.0f} | {median['p50']:.1f} | {median['p99']:.1f} | {errors} "
                  f"| {median['load']:.1f} |")
        print("\nrunaway /sparql answers:", dict(sorted(runaway_totals.items())))
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
