"""HTTP load test: cached scenario GETs and /sparql, against the same query sent to `oxigraph serve`.

Starts `factforge serve --store DIR` and `oxigraph serve-read-only` over the same KB on loopback,
makes one scenario, then drives each URL with wrk (Debian package `wrk`: N connections for D
seconds; the queries also with one connection, which is a request's own time without queueing),
in several rounds that interleave our server and the direct one, and prints median throughput,
p50, p99, errors and the load average as a markdown table. A bare waitress app serving the same
bytes is the floor for what any Python WSGI route can do here; its /sparql, pyoxigraph answering on
the request thread with nothing around it, is the floor for any embedded /sparql. Figures, no
assertions.

    python3 bench/http_bench.py                      # DBpedia50 + ontology from ../shared/data
    python3 bench/http_bench.py --server-workers 2   # `factforge serve --workers 2`, and a floor of 2
    python3 bench/http_bench.py --kb demo --duration 10
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
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
    # a join and an aggregate (birth places that have a country, by number of people born there;
    # about 30 ms in pyoxigraph on DBpedia50): where a query's own work is tens of milliseconds
    "join": "PREFIX dbo: <http://dbpedia.org/ontology/>\n"
            "SELECT ?c (COUNT(?p) AS ?n) WHERE { ?p dbo:birthPlace ?c . ?c dbo:country ?k } "
            "GROUP BY ?c ORDER BY DESC(?n) LIMIT 20",
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


# The floor: bare waitress (same threads, same switch interval as `factforge serve`) answering
# with the cached scenario's bytes and no framework at all. A WSGI fast path cannot beat this.
# With --server-workers N, N such processes share the port (SO_REUSEPORT), as our workers do.
# Its /sparql is the floor of any embedded /sparql: the query evaluated by pyoxigraph on the request
# thread and serialized by pyoxigraph itself, with no time limit, row cap, pool or error handling.
FLOOR = """
import socket, sys
from urllib.parse import parse_qs
import pyoxigraph
from waitress import serve
sys.setswitchinterval({switch})
body = open({path!r}, "rb").read()
headers = [("Content-Type", "text/tab-separated-values; charset=utf-8"), ("Content-Length", str(len(body)))]
store = pyoxigraph.Store.read_only({store!r})
def app(environ, start_response):
    if environ["PATH_INFO"] == "/sparql":
        query = parse_qs(environ["QUERY_STRING"])["query"][0]
        answer = store.query(query, use_default_graph_as_union=True).serialize(
            format=pyoxigraph.QueryResultsFormat.JSON)
        start_response("200 OK", [("Content-Type", "application/sparql-results+json"),
                                  ("Content-Length", str(len(answer)))])
        return [answer]
    start_response("200 OK", headers)
    return [body]
sock = socket.socket()
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
sock.bind(("127.0.0.1", {port}))
sock.listen(2048)
serve(app, sockets=[sock], threads={threads}, _quiet=True)
"""


def wrk(url: str, *, connections: int, duration: int, threads: int, accept: str) -> dict:
    load = open("/proc/loadavg").read().split()[0]
    out = subprocess.run(["wrk", "-t", str(min(threads, connections)), "-c", str(connections), "-d", f"{duration}s",
                          "--latency", "-H", f"Accept: {accept}", url], capture_output=True, text=True, check=True).stdout

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
            "p50": latency("50"), "p99": latency("99"), "errors": errors, "load": float(load),
            "requests": int(re.search(r"(\d+) requests in", out).group(1))}


def engine_times(location: Path, runs: int = 200) -> dict[str, float]:
    """The queries' own time in pyoxigraph, with no server at all: what any embedded /sparql pays
    before HTTP, to set beside the direct server's whole round trip."""
    import pyoxigraph

    store = pyoxigraph.Store.read_only(str(location))
    times = {}
    for name, query in QUERIES.items():
        taken = []
        for _ in range(runs):
            started = time.perf_counter()
            for _row in store.query(query, use_default_graph_as_union=True):
                pass
            taken.append(time.perf_counter() - started)
        times[name] = statistics.median(taken) * 1000
    del store
    return times


def start(command: list[str], log: Path, env: dict | None = None) -> subprocess.Popen:
    # a file, not a pipe: a full pipe would stall the server's logging
    return subprocess.Popen(command, env=env, stdout=open(log, "wb"), stderr=subprocess.STDOUT)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kb", choices=["dbpedia50", "demo"], default="dbpedia50")
    parser.add_argument("--duration", type=int, default=30, help="seconds per URL and round (default 30)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds over all URLs; medians are reported (default 3)")
    parser.add_argument("--connections", type=int, default=32, help="concurrent clients (default 32)")
    parser.add_argument("--wrk-threads", type=int, default=2)
    parser.add_argument("--server-threads", type=int, default=8)
    parser.add_argument("--server-workers", type=int, default=1, help="`factforge serve --workers` (default 1)")
    args = parser.parse_args()
    if shutil.which("wrk") is None or shutil.which("oxigraph") is None:
        raise SystemExit("needs wrk (apt-get install wrk) and the oxigraph CLI (pip install oxigraph)")

    work = Path(tempfile.mkdtemp(prefix="factforge-http-bench-"))
    env = {**os.environ, "FACTFORGE_CACHE": str(work / "cache")}
    processes: list[subprocess.Popen] = []
    try:
        store = work / "store"
        for path, graph in kb_files(args.kb):
            subprocess.run([sys.executable, "-m", "factforge", "--quiet", "load", str(path), "--store", str(store)]
                           + (["--graph", graph] if graph else []), check=True, env=env, capture_output=True)
            subprocess.run(["oxigraph", "load", "--location", str(work / "oxigraph"), "--file", str(path)]
                           + (["--graph", graph] if graph else []), check=True, capture_output=True)
        engine = engine_times(work / "oxigraph")  # before any server runs: the machine is quiet
        ours, theirs, floor = free_port(), free_port(), free_port()
        processes.append(start([sys.executable, "-m", "factforge", "--quiet", "serve", "--store", str(store),
                                "--port", str(ours), "--threads", str(args.server_threads),
                                "--workers", str(args.server_workers)], work / "serve.log", env))
        processes.append(start(["oxigraph", "serve-read-only", "--location", str(work / "oxigraph"),
                                "--bind", f"127.0.0.1:{theirs}", "--union-default-graph"], work / "oxigraph.log"))
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
        (work / "floor.tsv").write_bytes(urllib.request.urlopen(f"{scenario}?format=tsv", timeout=30).read())
        switch = float(subprocess.run(  # the serving process's setting, read from the code it runs
            [sys.executable, "-c", "import factforge.server.serve as s; print(getattr(s, 'SWITCH_INTERVAL', 0.005))"],
            capture_output=True, text=True, check=True).stdout)
        for _ in range(args.server_workers):
            processes.append(start([sys.executable, "-c", FLOOR.format(
                switch=switch, path=str(work / "floor.tsv"), port=floor, threads=args.server_threads,
                store=str(work / "oxigraph"))],
                work / f"floor{len(processes)}.log"))
        wait_for(f"http://127.0.0.1:{floor}/", processes[-1])

        runs = [("cached scenario GET (TSV)", f"{scenario}?format=tsv", "text/tab-separated-values"),
                ("cached scenario GET (JSON)", scenario, "application/json"),
                ("bare waitress, same TSV bytes (floor)", f"http://127.0.0.1:{floor}/", "*/*")]
        for name, query in QUERIES.items():
            encoded = urllib.parse.quote(query)
            runs.append((f"/sparql, {name} query", f"{base}/sparql?query={encoded}", "application/sparql-results+json"))
            runs.append((f"oxigraph serve, {name} query", f"{direct}/query?query={encoded}",
                         "application/sparql-results+json"))
            runs.append((f"bare waitress + pyoxigraph, {name} query (floor)",
                         f"http://127.0.0.1:{floor}/sparql?query={encoded}", "application/sparql-results+json"))
        single = [run for run in runs if "query" in run[0]]  # one client: a request's own time, no queue
        print(f"KB {args.kb}; {args.rounds} rounds of {args.duration} s per URL, {args.connections} connections "
              f"(and 1 connection, at most 10 s, for the queries); {args.server_workers} server process(es) of "
              f"{args.server_threads} threads; wrk on the same 2 cores\n", flush=True)
        figures: dict[tuple[str, int], list[dict]] = {}
        for _round in range(args.rounds):  # rounds interleave ours and the direct server under the same noise
            for connections, chosen in ((args.connections, runs), (1, single)):
                for name, url, accept in chosen:  # one client needs no long run to settle its median
                    figures.setdefault((name, connections), []).append(
                        wrk(url, connections=connections, duration=args.duration if connections > 1 else
                            min(args.duration, 10), threads=args.wrk_threads, accept=accept))
        print("| what | clients | requests/s | p50 ms | p99 ms (median, worst) | errors | load avg |\n"
              "|---|---:|---:|---:|---:|---:|---|")
        for (name, connections), results in figures.items():
            med = {key: statistics.median(r[key] for r in results) for key in ("rps", "p50", "p99")}
            loads = [r["load"] for r in results]
            print(f"| {name} | {connections} | {med['rps']:.0f} | {med['p50']:.2f} | {med['p99']:.1f}, "
                  f"{max(r['p99'] for r in results):.1f} | {sum(r['errors'] for r in results)} | "
                  f"{min(loads):.1f}–{max(loads):.1f} |")
        print()
        print("pyoxigraph in this process, no HTTP (open read-only, evaluate, read every row; median ms): "
              + ", ".join(f"{name} {ms:.3f}" for name, ms in engine.items()) + "\n")
        for name in QUERIES:
            for connections in (args.connections, 1):
                direct_runs = figures[(f"oxigraph serve, {name} query", connections)]
                for label, what in (("/sparql", f"/sparql, {name} query"),
                                    ("the floor", f"bare waitress + pyoxigraph, {name} query (floor)")):
                    ratios = [a["p50"] / b["p50"] for a, b in zip(figures[(what, connections)], direct_runs)]
                    print(f"{label} vs direct, {name} query, {connections} clients: p50 ratio "
                          f"{statistics.median(ratios):.2f}× (rounds: {', '.join(f'{r:.2f}' for r in ratios)})")
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=10)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
