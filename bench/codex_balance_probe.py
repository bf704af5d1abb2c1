"""How hard could our c = 0 random-walk false facts be on a CoDEx-S relation, under the object balance?

    python bench/codex_balance_probe.py P106 --checker transe [--offered] [--guide-seed-offset 10] [--free]
    python bench/codex_balance_probe.py P19 --checker path_features [--offered]

A probe, not a sampler: it cheats on purpose, to tell what limits a cell of
``codex_hardness_bench.py``. Per seed it makes our scenario (100 facts, random walk, c = 0, leakage
pair), keeps its 50 true facts, and gives each true fact's subject a new false object chosen by a
*guide* that knows the checker, under the random walk's object balance: every false object is one
of the set's true objects, used as often as true facts name it (``--free``: without that, each
subject its best object among every object of the relation in the KB), never the subject's own
object, never a KB fact. ``--offered``: only objects the generator's matchings offered that source
(its walk round's lines after the type check, nearness and the id screens, and the fallback's),
read by wrapping ``RandomWalk._reaches``. The set's AUROC under the checker, against ours:

* ``transe``: the guide is a TransE trained on the scenario's reference KB, at the checker's own
  seed (the checker itself) or at ``seed + --guide-seed-offset`` (another TransE of the same KB);
  the assignment maximises the guide's summed scores (``linear_sum_assignment``).
* ``path_features``: the guide is a logistic regression on the checker's own features (paths of
  length <= 3 in R), fitted on the set's true facts against our false facts, one step (refitting
  against its own picks oscillates); the assignment maximises its summed decision values.

Neither guide is something a sampler should be (a sampler that picks what a checker's model ranks
high makes that checker fail by construction); what it tells is whether the balance alone, or the
balance with the random walk's lines, leaves room for harder false facts (docs/performance.md,
session 22).
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter

import numpy as np
from scipy.optimize import linear_sum_assignment

import codex_hardness_bench as B


def offered_objects():
    """Wrap ``RandomWalk._reaches`` to note, by subject, every object (index id) a matching offered it."""
    from factforge.generators.negatives import random_walk as rw

    offered: dict[str, set[int]] = {}
    original = rw.RandomWalk._reaches

    def noting(self, context, sources, lines, ids, spare):
        for source, line in zip(sources, lines):
            if source is not None:
                offered.setdefault(source.s, set()).update(int(i) for i in np.asarray(ids)[line].tolist())
        return original(self, context, sources, lines, ids, spare)

    rw.RandomWalk._reaches = noting
    return offered


def kept_context():
    """Wrap ``RandomWalk.sample`` to keep the last scenario's ``NegativeContext`` (its screens)."""
    from factforge.generators.negatives import random_walk as rw

    kept: dict = {}
    original = rw.RandomWalk.sample

    def keeping(self, context, sources, n, rng):
        kept["context"] = context
        return original(self, context, sources, n, rng)

    rw.RandomWalk.sample = keeping
    return kept


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("relation")
    parser.add_argument("--checker", choices=("transe", "path_features"), default="transe")
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--offered", action="store_true", help="only objects the generator's matchings offered")
    parser.add_argument("--screened", action="store_true",
                        help="only objects that pass the generator's type check and id screens (nearness among them), "
                             "reached by a walk or not")
    parser.add_argument("--free", action="store_true", help="no object balance: each subject its best object")
    parser.add_argument("--guide-seed-offset", type=int, default=0, help="transe: the guide's seed - the checker's")
    args = parser.parse_args(argv)

    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    from factforge.evaluation.checkers.paths import PathFeatures
    from factforge.evaluation.metrics import auroc
    from factforge.evaluation.reference_graph import Reference
    from factforge.evaluation.scoring import run_checker
    from factforge.generators.scenario import generate
    from factforge.generators.spec import ScenarioSpec
    from factforge.generators.writers import records

    offered = offered_objects()
    kept = kept_context()
    store = B.load_codex()
    predicate = B.WD + args.relation
    kb = set()
    for name in ("train.txt", "valid.txt"):
        for line in (B.CODEX / name).read_text().splitlines():
            s, p, o = line.split("\t")
            if p == args.relation:
                kb.add((B.WD + s, B.WD + o))
    every = sorted({o for _, o in kb})
    print(f"| seed | ours | probe ({args.checker}, {'free' if args.free else 'balanced'}"
          f"{', offered only' if args.offered else ''}{', screened' if args.screened else ''}"
          f"{f', guide seed +{args.guide_seed_offset}' if args.guide_seed_offset else ''}) | false facts |")
    print("|---:|---:|---:|---:|")
    values = []
    for seed in args.seeds:
        offered.clear()
        scenario = generate(store, ScenarioSpec(predicate, size=100, transparency=0.0, ambiguous="random_walk",
                                                seed=seed, leakage="pair"))
        recs = records(scenario, "test")
        ref = Reference.of(store, scenario.removed)
        ours = run_checker(args.checker, [], recs, ref, seed=seed)
        trues = [r for r in recs if r["label"]]
        subjects, objects = [r["subject"] for r in trues], [r["object"] for r in trues]
        columns = every if args.free else sorted(set(objects))
        index = ref.index
        allowed = np.array([[o != objects[i] and (subjects[i], o) not in kb
                             and (not args.offered or (index.id(o) is not None
                                                       and index.id(o) in offered.get(subjects[i], ())))
                             for o in columns] for i in range(len(subjects))])
        if args.screened:
            context = kept["context"]
            context.types.load_types(set(columns) | set(objects))
            node = np.array([context.kb.node(o) for o in columns], dtype=np.int64)
            for i, s in enumerate(subjects):
                fits = np.array([context.types.type_consistent(objects[i], o) for o in columns], dtype=bool)
                inside = node >= 0
                refused = np.zeros(len(columns), dtype=bool)
                refused[inside] = context.refuses(np.full(int(inside.sum()), context.kb.node(s), dtype=np.int64),
                                                  node[inside])
                allowed[i] &= fits & ~refused
        grid = [{"id": f"g{i}.{j}", "subject": s, "predicate": predicate, "object": o, "label": True}
                for i, s in enumerate(subjects) for j, o in enumerate(columns)]
        if args.checker == "transe":
            judge = run_checker("transe", [], grid, ref, seed=seed).scores.reshape(len(subjects), len(columns))
            guide = (run_checker("transe", [], grid, ref, seed=seed + args.guide_seed_offset).scores
                     .reshape(len(subjects), len(columns)) if args.guide_seed_offset else judge)
        else:
            features = PathFeatures(seed=seed)
            features.reference = ref
            true_rows, false_rows = features.features(trues), features.features([r for r in recs if not r["label"]])
            grid_rows = features.features(grid)
            vectors = DictVectorizer().fit(true_rows + false_rows + grid_rows)
            model = LogisticRegression(max_iter=2000).fit(vectors.transform(true_rows + false_rows),
                                                          [1] * len(true_rows) + [0] * len(false_rows))
            guide = model.decision_function(vectors.transform(grid_rows)).reshape(len(subjects), len(columns))
        if args.free:
            pick = np.where(allowed, guide, -np.inf).argmax(axis=1)
            chosen = [(i, int(pick[i])) for i in range(len(subjects)) if allowed[i].any()]
        else:
            debts = Counter(objects)
            places = [j for j, o in enumerate(columns) for _ in range(debts[o])]
            weight = np.where(allowed[:, places], guide[:, places], -1e9)
            rows, cols = linear_sum_assignment(weight, maximize=True)
            chosen = [(i, places[c]) for i, c in zip(rows.tolist(), cols.tolist()) if weight[i, c] > -1e8]
        if args.checker == "transe":
            true_scores = [s for s, r in zip(ours.scores, recs) if r["label"]]
            false_scores = [judge[i, j] for i, j in chosen]
            value = auroc([1] * len(true_scores) + [0] * len(false_scores), true_scores + false_scores)
        else:
            made = trues + [{"id": f"n{i}", "subject": subjects[i], "predicate": predicate, "object": columns[j],
                             "label": False} for i, j in chosen]
            value = run_checker("path_features", [], made, ref, seed=seed).auroc
        values.append(value)
        print(f"| {seed} | {ours.auroc:.3f} | {value:.3f} | {len(chosen)} |", flush=True)
    print(f"| mean | | {np.mean(values):.3f} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
