"""Time to generate a 300-fact scenario with random-walk negatives (t = 3, c = 0) on a large KB.

    python bench/generation_bench.py bench/out/syn-10M.nt [--store bench/out/store-10M [--read-only]] [--runs 5]
    python bench/generation_bench.py bench/out/syn-10M.nt --scale 20000 [--kinds lcwa,random_walk,random]

With ``--scale N``, one N-fact scenario per kind instead (c = 0 for LCWA and random walk, c = 1
for re-pairing), each in a process of its own after a warm-up scenario, so that its peak memory
is its own: wall and CPU seconds and peak resident memory per kind.

The store is loaded once and kept (a second run reuses it). "Cold" is the first scenario after
the statistics cache is emptied (profiles, fact popularity, adjacency index all rebuilt); "warm"
is the p50 of ``--runs`` scenarios with other seeds on the same KB. Figures are printed as
Markdown; nothing is asserted.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import shutil
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from factforge.generators.scenario import generate  # noqa: E402
from factforge.generators.spec import ScenarioSpec  # noqa: E402
from factforge.sparql import profiles  # noqa: E402
from factforge.sparql.loading import load_files  # noqa: E402
from factforge.sparql.store import open_store  # noqa: E402


def loaded_store(kb: Path, directory: Path | None):
    """The store of ``kb`` (default folder bench/out/store-<kb name>), loaded on first use and kept."""
    store = open_store(directory or HERE / "out" / f"store-{kb.stem}")
    if not store.meta().get("loads"):
        started = time.perf_counter()
        load_files(store, [kb], progress=True)
        print(f"loaded {kb.name} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return store


def entity_predicate(profile_list) -> str:
    """The most frequent non-schema predicate with entity objects."""
    return next(p["predicate"] for p in profile_list if not p["schema"] and p["object_types"])


def scale_spec(predicate: str, kind: str, size: int) -> dict:
    if kind == "random":
        return dict(predicate=predicate, size=size, transparency=1.0)
    return dict(predicate=predicate, size=size, transparency=0.0, ambiguous=kind, max_path_length=3)


def one_scale_run(store, predicate: str, kind: str, size: int) -> dict:
    """One ``--scale`` scenario in this process, after a 100-fact one that reads the caches (re-pairing
    swaps objects within the split: a warm-up of 2 or 10 facts found too few pairs, and failed)."""
    generate(store, ScenarioSpec(**scale_spec(predicate, kind, 100), seed=0))
    started, started_cpu = time.perf_counter(), time.process_time()
    scenario = generate(store, ScenarioSpec(**scale_spec(predicate, kind, size), seed=0))
    return {"kind": kind, "seconds": time.perf_counter() - started, "cpu": time.process_time() - started_cpu,
            "peak_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6,  # KiB on Linux
            "facts": len(scenario.test), "timings": scenario.timings}


def scale_table(args, store, predicate: str) -> None:
    rows = []
    for kind in args.kinds.split(","):
        # read-only: this process holds the store open, and a second writer is refused RocksDB's lock
        command = [sys.executable, __file__, str(args.kb), "--store", str(args.store or HERE / "out" / f"store-{args.kb.stem}"),
                   "--read-only", "--predicate", predicate, "--scale", str(args.scale), "--one", kind]
        rows.append(json.loads(subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True).stdout))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# {args.scale:,}-fact scenarios on {args.kb.name} ({store.triple_count():,} triples), predicate {predicate}\n")
    print("| kind | facts | seconds | CPU seconds | peak memory (GB) | of which false facts (s) |\n|---|---:|---:|---:|---:|---:|")
    for row in rows:
        print(f"| {row['kind']} | {row['facts']:,} | {row['seconds']:.1f} | {row['cpu']:.1f} | {row['peak_gb']:.2f} | "
              f"{row['timings'].get('false facts', float('nan')):.1f} |")
    print(f"\nload average (1 min) at the end: {load:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kb", type=Path)
    parser.add_argument("--store", type=Path, help="store directory (default: bench/out/store-<kb name>)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--predicate", help="default: the most frequent non-schema predicate with entity objects")
    parser.add_argument("--keep-cache", action="store_true",
                        help="keep the statistics cache of an earlier run (the 'cold' rows are then warm)")
    parser.add_argument("--read-only", action="store_true",
                        help="open the store read-only (a loaded store another process may hold): its statistics "
                             "cache is kept, so the 'cold' rows are warm")
    parser.add_argument("--scale", type=int, help="one scenario of this many facts per kind instead (see above)")
    parser.add_argument("--kinds", default="lcwa,random_walk,random", help="with --scale: the kinds, comma-separated")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # with --scale: the run of one kind, as JSON
    args = parser.parse_args()
    if args.read_only:
        store = open_store(args.store or HERE / "out" / f"store-{args.kb.stem}", read_only=True)
        if not store.meta().get("loads"):
            parser.error("--read-only: the store is not loaded yet; run once without it")
        args.keep_cache = True
    else:
        store = loaded_store(args.kb, args.store)
    if args.scale and not args.read_only:
        # each kind runs in a child process, which a writer's lock would keep out even read-only
        store.close()
        store = open_store(args.store or HERE / "out" / f"store-{args.kb.stem}", read_only=True)
    if args.scale:
        predicate = args.predicate or entity_predicate(profiles.predicate_profiles(store))
        if args.one:
            print(json.dumps(one_scale_run(store, predicate, args.one, args.scale)))
        else:
            scale_table(args, store, predicate)
        return
    if not args.keep_cache:
        shutil.rmtree(store.cache_dir(), ignore_errors=True)

    started = time.perf_counter()
    profile_list = profiles.predicate_profiles(store, progress=True)
    profile_seconds = time.perf_counter() - started
    predicate = args.predicate or entity_predicate(profile_list)
    spec = dict(predicate=predicate, size=300, transparency=0.0, ambiguous="random_walk", max_path_length=3)
    started = time.perf_counter()
    cold = generate(store, ScenarioSpec(**spec, seed=0), progress=True)
    cold_seconds = time.perf_counter() - started
    warm, cpu = [], []
    for seed in range(1, args.runs + 1):
        started, started_cpu = time.perf_counter(), time.process_time()
        generate(store, ScenarioSpec(**spec, seed=seed))
        warm.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# Scenario generation on {args.kb.name} ({store.triple_count():,} triples), predicate {predicate}\n")
    print("| step | seconds |\n|---|---:|")
    print(f"| full predicate profile (cold) | {profile_seconds:.1f} |")
    print(f"| first scenario after the profile (cold: popularity, adjacency index) | {cold_seconds:.1f} |")
    print("| ... of which | " + ", ".join(f"{k} {v:.1f}" for k, v in cold.timings.items()) + " |")
    print(f"| warm scenario, p50 of {len(warm)} | {statistics.median(warm):.2f} |")
    print(f"| warm min-max | {min(warm):.2f}-{max(warm):.2f} |")
    # CPU time too: on a shared machine the wall time says as much about the neighbours as about us
    print(f"| warm CPU time, p50 (min-max) | {statistics.median(cpu):.2f} ({min(cpu):.2f}-{max(cpu):.2f}) |")
    print(f"| load average (1 min) at the end | {load:.1f} |")


if __name__ == "__main__":
    main()
