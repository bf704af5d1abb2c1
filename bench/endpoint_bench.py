"""A scenario from a KB behind `oxigraph serve`, from a cold client: time, rows and bytes transferred, CPU.

    python bench/endpoint_bench.py bench/out/syn-10M.nt [--runs 3] [--size 300] [--copy] [--virtuoso]
        [--location DIR] [--cache DIR] [--predicate IRI]

The KB is loaded once with `oxigraph load` into bench/out/oxigraph-<kb name> (kept; ``--location``
names an existing store), then served read-only with ``--union-default-graph`` on loopback. With
``--virtuoso`` it is bulk-loaded into one named graph of a private Virtuoso instead (its own folder
and ini, bench/out/virtuoso-<kb name> or ``--location``, kept; ResultSetMaxRows from
``--virtuoso-cap``), and the client names that graph. "Cold" is a client with an empty statistics
cache (a new temporary folder unless ``--cache``) and no local copy of the KB: a random-walk
scenario (t = 3, c = 0, random ranking) by neighbourhood generation, which asks the store for the
per-predicate counts and link subjects (whole-KB scans, cached by fingerprint afterwards), its
predicate's facts and the neighbourhoods. "Warm" is the p50 of ``--runs`` scenarios with other seeds,
statistics cached, each from a new client (the neighbourhoods are not cached). The fingerprint is
pinned (``--endpoint-fingerprint`` as a user of a large endpoint would), unless
``--compute-fingerprint``. Each run reports wall time, the client's and the server process's CPU
time (the machine may be shared), SELECT rows received and bytes the client read (``rchar``: its
sockets, plus the small statistics files of the cache), and the queries and rows of each query
template. ``--copy`` also times the old way (every link copied into a local index). Figures are
printed as Markdown; nothing is asserted.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))  # the tests' private Virtuoso

from factforge.generators.scenario import generate  # noqa: E402
from factforge.generators.spec import ScenarioSpec  # noqa: E402
from factforge.sparql import profiles  # noqa: E402
from factforge.sparql.store import open_store  # noqa: E402
from factforge.sparql.terms import is_schema_predicate  # noqa: E402


def served(kb: Path, location: Path, port: int) -> subprocess.Popen:
    binary = shutil.which("oxigraph")
    if binary is None:
        sys.exit("the oxigraph CLI (PyPI package 'oxigraph') is not installed")
    if not location.exists():
        started = time.perf_counter()
        # the synthetic KBs carry language tags that oxigraph load refuses unless lenient
        subprocess.run([binary, "load", "--lenient", "--location", str(location), "--file", str(kb)], check=True)
        print(f"oxigraph load of {kb.name}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    server = subprocess.Popen([binary, "serve-read-only", "--location", str(location), "--bind",
                               f"127.0.0.1:{port}", "--union-default-graph"], stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/query?query=ASK%7B%7D", timeout=2).read()
            return server
        except OSError:
            time.sleep(0.2)
    server.terminate()
    sys.exit("oxigraph serve did not answer")


GRAPH = "https://w3id.org/factforge/graph/bench"


def virtuoso_served(kb: Path, location: Path, cap: int):
    """A private Virtuoso holding ``kb`` in GRAPH, loaded on the first start only."""
    from virtuoso_server import VIRTUOSO, VirtuosoServer

    if VIRTUOSO is None:
        sys.exit("virtuoso-t is not installed (apt-get install virtuoso-opensource-7-bin)")
    loaded = (location / "virtuoso.db").exists()
    location.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    # memory for the load and the queries: a quarter of what a 10M-triple KB's indexes take is too little
    # the cold whole-KB statistics (per-predicate counts, link subjects) need far longer than the tests' time limit here
    server = VirtuosoServer(location, [] if loaded else [(kb.resolve(), GRAPH)], cap=cap, buffers=340_000,
                            max_seconds=7200)
    if not loaded:
        print(f"Virtuoso bulk load of {kb.name}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return server


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (another process's, from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bytes_read() -> int:
    """Bytes this process has read through read() calls so far (sockets and files alike)."""
    return int(next(line.split()[1] for line in Path("/proc/self/io").read_text().splitlines()
                    if line.startswith("rchar:")))


def client(url: str, args, *, copy: bool = False):
    return open_store(endpoint=url, fingerprint=None if args.compute_fingerprint else "bench-" + args.kb.stem,
                      copy=copy, timeout=3600, graphs=[GRAPH] if args.virtuoso else [])


def counting_selects(store) -> dict[str, list]:
    """Queries, rows and seconds of each template ``store.select`` answers from now on: template ->
    [queries, rows, seconds]. The seconds are spent inside the answer's iterator (the round trip,
    the server's work, parsing and any sorting in the client), not in the caller between rows."""
    counts: dict[str, list] = {}
    select = store.select

    def counted(template: str, **params):
        tally = counts.setdefault(template, [0, 0, 0.0])
        tally[0] += 1
        started = time.perf_counter()
        rows = iter(select(template, **params))
        while True:
            try:
                row = next(rows)
            except StopIteration:
                tally[2] += time.perf_counter() - started
                return
            tally[1] += 1
            tally[2] += time.perf_counter() - started
            yield row
            started = time.perf_counter()

    store.select = counted
    return counts


def one(url: str, args, seed: int, server_pid: int, *, copy: bool = False) -> dict:
    store = client(url, args, copy=copy)
    by_template = counting_selects(store)
    started, cpu, server_cpu, read = time.perf_counter(), time.process_time(), cpu_seconds(server_pid), bytes_read()
    predicate = args.predicate or max((p for p in profiles.predicate_counts(store) if not is_schema_predicate(p)),
                                      key=lambda p: profiles.predicate_counts(store)[p][0])
    spec = ScenarioSpec(predicate=predicate, size=args.size, transparency=0.0, ambiguous="random_walk",
                        max_path_length=3, seed=seed)
    scenario = generate(store, spec)
    run = {"seconds": time.perf_counter() - started, "cpu": time.process_time() - cpu,
           "server_cpu": cpu_seconds(server_pid) - server_cpu, "bytes": bytes_read() - read,
           "rows": store.rows_read, "fetched": scenario.fetched, "predicate": predicate, "by_template": by_template,
           "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    print(f"seed {seed}: {run}", file=sys.stderr, flush=True)  # a long run's figures survive a stop
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kb", type=Path)
    parser.add_argument("--location", type=Path, help="an Oxigraph store or Virtuoso folder, loaded if missing "
                                                      "(default bench/out/oxigraph-<kb name> or virtuoso-<kb name>)")
    parser.add_argument("--cache", type=Path, help="statistics cache folder (default: a new one, so the first run is cold)")
    parser.add_argument("--port", type=int, default=0, help="default: a free one")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--size", type=int, default=300)
    parser.add_argument("--predicate", help="default: the most frequent non-schema predicate")
    parser.add_argument("--compute-fingerprint", action="store_true")
    parser.add_argument("--copy", action="store_true", help="also time the old full copy of every link")
    parser.add_argument("--virtuoso", action="store_true", help="behind a private Virtuoso, not oxigraph serve")
    parser.add_argument("--virtuoso-cap", type=int, default=100_000_000, help="its ResultSetMaxRows")
    args = parser.parse_args()
    if args.virtuoso:
        virtuoso = virtuoso_served(args.kb, args.location or HERE / "out" / f"virtuoso-{args.kb.stem}",
                                   args.virtuoso_cap)
        url, stop, server_pid = virtuoso.url, virtuoso.stop, virtuoso.process.pid
    else:
        port = args.port or free_port()
        server = served(args.kb, args.location or HERE / "out" / f"oxigraph-{args.kb.stem}", port)
        url, server_pid = f"http://127.0.0.1:{port}/query", server.pid

        def stop():
            server.terminate()
            server.wait(timeout=60)
    try:
        triples = client(url, args).triple_count()
        cache = args.cache or Path(tempfile.mkdtemp(prefix="endpoint-bench-"))
        cold = not (cache.exists() and any(cache.iterdir()))
        os.environ["FACTFORGE_CACHE"] = str(cache)
        runs = [one(url, args, seed, server_pid) for seed in range(1, 2 + args.runs)]
        print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} at the end, {os.cpu_count()} cores\n")
        print("| KB, server | triples | predicate | run | wall s | client CPU s | server CPU s | rows | rows / triples "
              "| MB read | rounds | entities fetched whole | peak client MB |")
        print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for i, run in enumerate(runs):
            print(f"| {args.kb.stem}, {'Virtuoso' if args.virtuoso else 'oxigraph serve'} | {triples:,} | "
                  f"{run['predicate'].rsplit('/', 1)[-1]} | {'cold' if i == 0 and cold else f'warm {i}'} | "
                  f"{run['seconds']:.1f} | {run['cpu']:.1f} | {run['server_cpu']:.1f} | {run['rows']:,} | "
                  f"{run['rows'] / triples:.3%} | {run['bytes'] / 1e6:.1f} | {run['fetched']['rounds']} | "
                  f"{run['fetched']['entities']:,} | {run['peak_mb']:,.0f} |")
        for i, run in enumerate(runs):
            print(f"\nrun {i}, queries / rows / seconds by template: " + ", ".join(
                f"`{name}` {queries:,} / {rows:,} / {seconds:.1f} s" for name, (queries, rows, seconds) in
                sorted(run["by_template"].items(), key=lambda item: -item[1][2])))
        warm = runs[1:]
        if warm:
            print(f"\nwarm p50: {statistics.median(w['seconds'] for w in warm):.1f} s wall, "
                  f"{statistics.median(w['rows'] for w in warm):,.0f} rows")
        if args.copy:
            os.environ["FACTFORGE_CACHE"] = tempfile.mkdtemp(prefix="endpoint-bench-copy-")
            copied = one(url, args, 1, server_pid, copy=True)
            print(f"\nold full copy, cold: {copied['seconds']:.1f} s, "
                  f"{copied['rows']:,} rows ({copied['rows'] / triples:.1%} of the triples)")
    finally:
        stop()


if __name__ == "__main__":
    main()
