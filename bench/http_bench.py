"""HTTP load test: cached scenario GETs and /sparql, against the same query sent to `oxigraph serve`.

Starts `factforge serve --store DIR` and `oxigraph serve-read-only` over the same KB on loopback,
makes one scenario, then drives each URL with wrk (Debian package `wrk`: N connections for D
seconds) and prints throughput, p50, p99 and errors as a markdown table. Figures, no assertions.

    python3 bench/http_bench.py                      # DBpedia50 + ontology from ../shared/data
    python3 bench/http_bench.py --kb demo --duration 10
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("FACTFORGE_DATA", ROOT.parent / "shared" / "data"))
ONTOLOGY_GRAPH = "https://w3id.org/factforge/graph/ontology"
QUERIES = {
    # answered from one index lookup: measures per-request overhead
    "light": "PREFIX dbo: <http://dbpedia.org/ontology/>\nSELECT ?s ?o WHERE { ?s dbo:capital ?o } LIMIT 10",
    # an aggregate over one predicate: evaluation dominates
    "heavy": "PREFIX dbo: <http://dbpedia.org/ontology/>\n"
             "SELECT ?o (COUNT(?s) AS ?n) WHERE { ?s dbo:birthPlace ?o } GROUP BY ?o ORDER BY DESC(?n) LIMIT 20",
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(url: str, process: subprocess.Popen, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"server exited with status {process.returncode}")
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"{url} did not answer within {seconds} s")


def kb_files(kb: str) -> list[tuple[Path, str | None]]:
    if kb == "demo":
        return [(ROOT / "sparql" / "demo" / "demo.ttl", None)]
    files = [(DATA / "dbpedia50" / "dbpedia50.nt", None),
             (DATA / "dbpedia-ontology" / "dbo-2018.12.28.ttl", ONTOLOGY_GRAPH)]
    for path, _graph in files:
        if not path.exists():
            raise SystemExit(f"{path} not found (set FACTFORGE_DATA or use --kb demo)")
    return files


def wrk(url: str, *, connections: int, duration: int, threads: int, accept: str) -> dict:
    out = subprocess.run(["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{duration}s", "--latency",
                          "-H", f"Accept: {accept}", url], capture_output=True, text=True, check=True).stdout

    def latency(label: str) -> float:
        match = re.search(rf"^\s*{label}%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
        value, unit = float(match.group(1)), match.group(2)
        return value * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]

    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    errors = int(non_2xx.group(1)) if non_2xx else 0
    if socket_errors:
        errors += sum(int(g) for g in socket_errors.groups())
    return {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
            "p50": latency("50"), "p99": latency("99"), "errors": errors,
            "requests": int(re.search(r"(\d+) requests in", out).group(1))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kb", choices=["dbpedia50", "demo"], default="dbpedia50")
    parser.add_argument("--duration", type=int, default=30, help="seconds per URL (default 30)")
    parser.add_argument("--connections", type=int, default=32, help="concurrent clients (default 32)")
    parser.add_argument("--wrk-threads", type=int, default=2)
    parser.add_argument("--server-threads", type=int, default=8)
    args = parser.parse_args()
    if shutil.which("wrk") is None or shutil.which("oxigraph") is None:
        raise SystemExit("needs wrk (apt-get install wrk) and the oxigraph CLI (pip install oxigraph)")

    work = Path(tempfile.mkdtemp(prefix="factforge-http-bench-"))
    env = {**os.environ, "FACTFORGE_CACHE": str(work / "cache")}
    processes: list[subprocess.Popen] = []
    try:
        store = work / "store"
        for path, graph in kb_files(args.kb):
            subprocess.run([sys.executable, "-m", "server.cli", "--quiet", "load", str(path), "--store", str(store)]
                           + (["--graph", graph] if graph else []), check=True, env=env, capture_output=True)
            subprocess.run(["oxigraph", "load", "--location", str(work / "oxigraph"), "--file", str(path)]
                           + (["--graph", graph] if graph else []), check=True, capture_output=True)
        ours, theirs = free_port(), free_port()
        processes.append(subprocess.Popen(
            [sys.executable, "-m", "server.cli", "--quiet", "serve", "--store", str(store), "--port", str(ours),
             "--threads", str(args.server_threads)], env=env, stdout=open(work / "serve.log", "wb"),
            stderr=subprocess.STDOUT))  # a file, not a pipe: a full pipe would stall the server's logging
        processes.append(subprocess.Popen(
            ["oxigraph", "serve-read-only", "--location", str(work / "oxigraph"), "--bind", f"127.0.0.1:{theirs}",
             "--union-default-graph"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        base, direct = f"http://127.0.0.1:{ours}", f"http://127.0.0.1:{theirs}"
        wait_for(f"{base}/api/kb", processes[0])
        wait_for(f"{direct}/query?query=ASK%7B%7D", processes[1])

        spec = {"predicate": "dbo:birthPlace" if args.kb == "dbpedia50" else "dbo:capital",
                "size": 300 if args.kb == "dbpedia50" else 40, "seed": 1}
        request = urllib.request.Request(f"{base}/api/scenarios", data=json.dumps(spec).encode(),
                                         headers={"Content-Type": "application/json"})
        while True:  # 202 while the scenario is being made; the same POST answers 201 once it is
            with urllib.request.urlopen(request, timeout=600) as response:
                body = json.load(response)
                if response.status == 201:
                    break
            time.sleep(0.5)
        scenario = f"{base}/api/scenarios/{body['id']}"
        runs = [("cached scenario GET (TSV)", f"{scenario}?format=tsv", "text/tab-separated-values"),
                ("cached scenario GET (JSON)", scenario, "application/json")]
        for name, query in QUERIES.items():
            encoded = urllib.parse.quote(query)
            runs.append((f"/sparql, {name} query", f"{base}/sparql?query={encoded}", "application/sparql-results+json"))
            runs.append((f"oxigraph serve, {name} query", f"{direct}/query?query={encoded}",
                         "application/sparql-results+json"))
        print(f"KB {args.kb}; {args.connections} connections for {args.duration} s each; wrk on the same 2 cores\n")
        print("| what | requests/s | p50 ms | p99 ms | errors |\n|---|---:|---:|---:|---:|")
        figures = {}
        for name, url, accept in runs:
            figures[name] = result = wrk(url, connections=args.connections, duration=args.duration,
                                         threads=args.wrk_threads, accept=accept)
            print(f"| {name} | {result['rps']:.0f} | {result['p50']:.1f} | {result['p99']:.1f} | {result['errors']} |",
                  flush=True)
        for name in QUERIES:
            ours_p50 = figures[f"/sparql, {name} query"]["p50"]
            theirs_p50 = figures[f"oxigraph serve, {name} query"]["p50"]
            print(f"\n/sparql vs direct, {name} query: p50 ratio {ours_p50 / theirs_p50:.2f}×", end="")
        print()
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=10)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
