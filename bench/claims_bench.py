"""Time to make claims for a 20,000-fact scenario in four languages, with evidence lines, on a large KB.

    python bench/claims_bench.py bench/out/syn-10M.nt [--store bench/out/store-syn-10M [--read-only]] [--size 20000]
        [--work DIR]

The labelled facts are sampled first (not timed: that is generating the facts): half the predicate's
triples, half random re-pairings of their subjects and objects that the KB lacks. Then the claims
step is timed as ``generate --claims`` runs it after a scenario: labels against R, the sorted dump of
R with every evidence line, the sentences in each language, the files and the claims audit (shown
apart: the claims target was set before every claims set was audited). R's dump is cut from the
KB's own sorted dump, written once per KB fingerprint into the statistics cache: that is timed
apart, first (cold, unless an earlier run left it in the cache). The synthetic KB has no
names, so entities are said by their IRI's local name. Figures are printed as Markdown; nothing is
asserted.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from factforge.claims import build  # noqa: E402
from factforge.claims.build import Options, make_claims  # noqa: E402
from factforge.claims.labelling import parse_shares  # noqa: E402
import numpy as np  # noqa: E402

from factforge.evaluation.labelled import ScenarioFiles  # noqa: E402
from factforge.sparql.adjacency import adjacency  # noqa: E402
from factforge.sparql.sorted_dump import sorted_dump  # noqa: E402
from factforge.sparql.store import open_store  # noqa: E402
from factforge.sparql.terms import is_schema_predicate  # noqa: E402
from generation_bench import loaded_store  # noqa: E402


def timed(function, spent: list, cpu: list | None = None):
    """``function``, adding its wall time to ``spent`` (and its CPU time to ``cpu``)."""
    def run(*args, **kwargs):
        started, started_cpu = time.perf_counter(), time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent.append(time.perf_counter() - started)
            if cpu is not None:
                cpu.append(time.process_time() - started_cpu)
    return run


def sampled_facts(store, predicate: str, size: int, seed: int) -> ScenarioFiles:
    """``size`` labelled facts of ``predicate``: half its KB triples, half random re-pairings of them
    (what a scenario with random false facts holds; ``generate`` on this KB size needs far more
    memory than the machine can spare, and the facts are not what is timed)."""
    index = adjacency(store)
    pid = index.pindex[predicate]
    links = np.flatnonzero(index.pred == pid)
    rng = np.random.default_rng(seed)
    chosen = rng.choice(links, size=size // 2, replace=False)
    records, known = [], {(int(index.src[i]), int(index.dst[i])) for i in links.tolist()}
    for n, i in enumerate(chosen.tolist()):
        records.append({"id": f"t{n}", "subject": index.entities[index.src[i]], "predicate": predicate,
                        "object": index.entities[index.dst[i]], "label": True})
    subjects, objects = index.src[chosen], index.dst[links]
    while len(records) < size:  # a re-pairing already in the KB, or drawn twice, is drawn again
        pair = (int(subjects[rng.integers(len(subjects))]), int(objects[rng.integers(len(objects))]))
        if pair not in known:
            known.add(pair)
            records.append({"id": f"f{len(records)}", "subject": index.entities[pair[0]], "predicate": predicate,
                            "object": index.entities[pair[1]], "label": False})
    return ScenarioFiles(Path("sampled"), {"seed": seed}, records, [], kind="labelled file")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kb", type=Path)
    parser.add_argument("--store", type=Path, help="store directory (default: bench/out/store-<kb name>)")
    parser.add_argument("--read-only", action="store_true",
                        help="open --store read-only: a loaded store another run owns (its cache must hold the "
                             "KB's sorted dump already, or the run writes it there)")
    parser.add_argument("--size", type=int, default=20_000)
    parser.add_argument("--lang", default="en,de,fr,zh")
    parser.add_argument("--predicate", help="default: the most frequent non-schema link predicate")
    parser.add_argument("--shares", default="1/2,0,1/2",
                        help="SUPPORTS,REFUTES,NOT ENOUGH INFO (default 1/2,0,1/2: the synthetic KB declares no "
                             "functional predicate or disjoint classes and none is observed functional, so R refutes "
                             "nothing)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", type=Path, default=HERE / "out",
                        help="folder the claims are written into, then deleted (default bench/out); on the store's "
                             "file system, R's dump is copied by the kernel")
    args = parser.parse_args()
    if args.read_only and not args.store:
        parser.error("--read-only: opens the store --store names; give --store")

    store = open_store(args.store, read_only=True) if args.read_only else loaded_store(args.kb, args.store)
    index = adjacency(store)
    counts = np.bincount(index.pred, minlength=len(index.predicates))
    predicate = args.predicate or max((p for p in index.predicates if not is_schema_predicate(p)),
                                      key=lambda p: counts[index.pindex[p]])
    started = time.perf_counter()
    source = sampled_facts(store, predicate, args.size, args.seed)
    generate_seconds = time.perf_counter() - started
    started, started_cpu = time.perf_counter(), time.process_time()
    kb_lines = len(sorted_dump(store))
    kb_dump_seconds, kb_dump_cpu = time.perf_counter() - started, time.process_time() - started_cpu
    args.work.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=args.work) as work:
        langs = args.lang.split(",")
        options = Options(langs=langs, shares=parse_shares(args.shares), seed=args.seed, leakage="triple")
        dump_seconds: list[float] = []
        build.write_dump = timed(build.write_dump, dump_seconds)
        audit_seconds: list[float] = []
        audit_cpu: list[float] = []
        build.audit_claims = timed(build.audit_claims, audit_seconds, audit_cpu)
        # what the audit's words need (jieba), loaded at the step's start (``audit_text.prepare``), is the audit's
        build.audit_text.prepare = timed(build.audit_text.prepare, audit_seconds, audit_cpu)
        started, started_cpu = time.perf_counter(), time.process_time()
        manifest = make_claims(store, source, options, Path(work) / "claims")
        seconds, cpu = time.perf_counter() - started, time.process_time() - started_cpu
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# Claims on {args.kb.name} ({store.triple_count():,} triples), predicate {predicate}\n")
    print("| step | value |\n|---|---:|")
    print(f"| labelled facts (true, false) | {len(source.test):,} ({sum(r['label'] for r in source.test):,}, "
          f"{sum(not r['label'] for r in source.test):,}) |")
    print(f"| sampling the facts (not counted) | {generate_seconds:.1f} s |")
    print(f"| labels per language | {', '.join(f'{k} {v:,}' for k, v in manifest['claims']['labels'].items())} |")
    print(f"| claims per language / records ({', '.join(langs)}) | {manifest['claims']['per_language']:,} / "
          f"{manifest['claims']['total']:,} |")
    print(f"| the KB's sorted dump ({kb_lines:,} lines), once per KB: wall, CPU | {kb_dump_seconds:.1f} s, "
          f"{kb_dump_cpu:.1f} s |")
    print(f"| R dump lines | {manifest['reference']['triples']:,} |")
    print(f"| claims step, wall | {seconds:.1f} s |")
    print(f"| ... of which the sorted dump of R and its evidence lines | {sum(dump_seconds):.1f} s |")
    print(f"| ... of which the claims audit every claims set gets | {sum(audit_seconds):.1f} s |")
    print(f"| claims step, CPU | {cpu:.1f} s |")
    print(f"| claims step without the audit: wall, CPU | {seconds - sum(audit_seconds):.1f} s, "
          f"{cpu - sum(audit_cpu):.1f} s |")
    print(f"| the audit: CPU | {sum(audit_cpu):.1f} s |")
    print(f"| load average (1 min) at the end | {load:.1f} |")


if __name__ == "__main__":
    main()
