"""A scenario from a KB behind `oxigraph serve`, from a cold client: time and rows transferred.

    python bench/endpoint_bench.py bench/out/syn-10M.nt [--runs 3] [--size 300] [--copy] [--virtuoso]

The KB is loaded once with `oxigraph load` into bench/out/oxigraph-<kb name> (kept), then served
read-only with ``--union-default-graph`` on loopback. With ``--virtuoso`` it is bulk-loaded into
one named graph of a private Virtuoso instead (its own folder and ini, bench/out/virtuoso-<kb name>,
kept; ResultSetMaxRows from ``--virtuoso-cap``), and the client names that graph. "Cold" is a client with an empty statistics
cache and no local copy of the KB: the predicate profiles (whole-KB aggregates, cached by
fingerprint afterwards), then a random-walk scenario (t = 3, c = 0) by neighbourhood generation.
"Warm" is the p50 of ``--runs`` scenarios with other seeds, profiles cached, each from a new
client (the neighbourhoods are not cached). The fingerprint is pinned (``--endpoint-fingerprint``
as a user of a large endpoint would), unless ``--compute-fingerprint``. ``--copy`` also times the
old way (every link copied into a local index) for comparison. Figures are printed as Markdown;
nothing is asserted.
"""
from __future__ import annotations

import argparse
import os
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
    # the cold profiles' whole-KB aggregates need far longer than the tests' time limit at this scale
    server = VirtuosoServer(location, [] if loaded else [(kb.resolve(), GRAPH)], cap=cap, buffers=340_000,
                            max_seconds=7200)
    if not loaded:
        print(f"Virtuoso bulk load of {kb.name}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return server


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def client(url: str, args, *, copy: bool = False):
    return open_store(endpoint=url, fingerprint=None if args.compute_fingerprint else "bench-" + args.kb.stem,
                      copy=copy, timeout=3600, graphs=[GRAPH] if args.virtuoso else [])


def one(url: str, args, seed: int, *, copy: bool = False) -> dict:
    store = client(url, args, copy=copy)
    started = time.perf_counter()
    profile_list = profiles.predicate_profiles(store)
    profiled = time.perf_counter() - started
    predicate = args.predicate or next(p["predicate"] for p in profile_list if not p["schema"] and p["object_types"])
    spec = ScenarioSpec(predicate=predicate, size=args.size, transparency=0.0, ambiguous="random_walk",
                        max_path_length=3, seed=seed)
    scenario = generate(store, spec)
    total = time.perf_counter() - started
    return {"seconds": total, "profiles": profiled, "rows": store.rows_read, "fetched": scenario.fetched,
            "predicate": predicate}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kb", type=Path)
    parser.add_argument("--location", type=Path, help="Oxigraph database folder (default bench/out/oxigraph-<kb name>)")
    parser.add_argument("--port", type=int, default=0, help="default: a free one")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--size", type=int, default=300)
    parser.add_argument("--predicate", help="default: the most frequent non-schema predicate with entity objects")
    parser.add_argument("--compute-fingerprint", action="store_true")
    parser.add_argument("--copy", action="store_true", help="also time the old full copy of every link")
    parser.add_argument("--virtuoso", action="store_true", help="behind a private Virtuoso, not oxigraph serve")
    parser.add_argument("--virtuoso-cap", type=int, default=100_000_000, help="its ResultSetMaxRows")
    args = parser.parse_args()
    if args.virtuoso:
        virtuoso = virtuoso_served(args.kb, args.location or HERE / "out" / f"virtuoso-{args.kb.stem}",
                                   args.virtuoso_cap)
        url, stop = virtuoso.url, virtuoso.stop
    else:
        port = args.port or free_port()
        server = served(args.kb, args.location or HERE / "out" / f"oxigraph-{args.kb.stem}", port)
        url = f"http://127.0.0.1:{port}/query"

        def stop():
            server.terminate()
            server.wait(timeout=60)
    try:
        triples = client(url, args).triple_count()
        os.environ["FACTFORGE_CACHE"] = tempfile.mkdtemp(prefix="endpoint-bench-")
        cold = one(url, args, 1)
        warm = [one(url, args, seed) for seed in range(2, 2 + args.runs)]
        print(f"| KB | triples | predicate | cold s (profiles s) | warm p50 s | rows cold | rows warm p50 | "
              f"rows / triples | rounds | entities fetched whole |")
        print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
        rows = statistics.median(w["rows"] for w in warm)
        print(f"| {args.kb.stem} {'Virtuoso' if args.virtuoso else 'oxigraph serve'} | {triples:,} | {cold['predicate'].rsplit('/', 1)[-1]} | {cold['seconds']:.1f} "
              f"({cold['profiles']:.1f}) | {statistics.median(w['seconds'] for w in warm):.1f} | {cold['rows']:,} | "
              f"{rows:,.0f} | {rows / triples:.3%} | {cold['fetched']['rounds']} | {cold['fetched']['entities']:,} |")
        if args.copy:
            os.environ["FACTFORGE_CACHE"] = tempfile.mkdtemp(prefix="endpoint-bench-copy-")
            copied = one(url, args, 1, copy=True)
            print(f"\nold full copy, cold: {copied['seconds']:.1f} s ({copied['profiles']:.1f} s profiles), "
                  f"{copied['rows']:,} rows ({copied['rows'] / triples:.1%} of the triples)")
    finally:
        stop()


if __name__ == "__main__":
    main()
