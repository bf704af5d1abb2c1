"""The order of a split's facts, and the ids numbered along it, tell nothing about the labels.

A system under test sees the facts, their order and ids, and the header (seed, KB fingerprint,
software version); it knows the software too. The attack here is a KB-free checker with exactly
that knowledge: it replays the seeded permutation that used to order each split (true facts
first, then false ones, shuffled by ``stream(seed, "shuffle/<split>")``), which on that code
scored AUROC 1.0 on every scenario, in every format. It must score chance on every format, and so
must a checker that scores by position alone. Then the stronger promise behind it: the order is a
function of the facts a system already sees, so nothing in it can carry a label.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import random
import re
from pathlib import Path

import numpy as np
import pytest
from pyoxigraph import RdfFormat, parse

from factforge.evaluation.metrics import auroc
from factforge.generators import writers
from factforge.generators.fact_order import fact_order
from factforge.generators.facts import Fact
from factforge.generators.scenario import generate
from factforge.generators.spec import ScenarioSpec
from factforge.sparql.terms import PREFIXES

FF_LABEL = PREFIXES["ff"] + "label"
RDF_FORMATS = {"turtle": RdfFormat.TURTLE, "ntriples": RdfFormat.N_TRIPLES, "jsonld": RdfFormat.JSON_LD}
#: pooled over every scenario below (about 2,000 facts a format), chance is 0.5 give or take 0.013
TOLERANCE = 0.06
DBPEDIA_SPECS = [dict(predicate=p, size=200, train_size=100, transparency=0.5, ambiguous="random_walk", seed=seed)
                 for p in ("dbo:birthPlace", "dbo:team") for seed in (0, 1, 2)]
DEMO_SPECS = ([dict(predicate="dbo:capital", size=40, transparency=0.5, ambiguous="random_walk", seed=s) for s in (0, 1, 2)]
              + [dict(predicate=p, size=20, factbench=("date",), seed=s) for p in ("dbo:spouse", "dbo:award") for s in (0, 1)])


@pytest.fixture(scope="module")
def scenarios(dbpedia_store, demo_kb_store):
    return ([(dbpedia_store, generate(dbpedia_store, ScenarioSpec(**spec))) for spec in DBPEDIA_SPECS]
            + [(demo_kb_store, generate(demo_kb_store, ScenarioSpec(**spec))) for spec in DEMO_SPECS])


def _number(fact_id: str) -> int:
    return int(re.sub(r"^\D+", "", fact_id))


def published(store, scenario, folder: Path) -> dict[str, dict[str, list[tuple[int, bool]]]]:
    """Per format, per split: (position or id number, label) of every fact, read back from the bytes.

    The position (or the number in the id) is what a system under test sees; the label is read
    from the same file only to score the checker.
    """
    writers.load_all()
    out: dict[str, dict[str, list[tuple[int, bool]]]] = {}
    splits = ["test"] + (["train"] if scenario.train else [])
    for split in splits:
        for name in ("tsv", "csv"):
            text = writers.render(scenario, name, split).decode("utf-8")
            rows = list(csv.DictReader(io.StringIO(text), delimiter="\t" if name == "tsv" else ","))
            out.setdefault(name, {})[split] = [(i, row["Label"] == "1") for i, row in enumerate(rows, 1)]
        document = json.loads(writers.render(scenario, "json", split))
        out.setdefault("json", {})[split] = [(_number(r["id"]), r["label"]) for r in document["facts"]]
        lines = writers.render(scenario, "jsonl", split).decode("utf-8").splitlines()
        out.setdefault("jsonl", {})[split] = [(_number(r["id"]), r["label"]) for r in map(json.loads, lines)]
        for name, rdf_format in RDF_FORMATS.items():
            triples = [q.triple for q in parse(writers.render(scenario, name, split), format=rdf_format)]
            out.setdefault(name, {})[split] = [(_number(t.subject.value.rsplit("/", 1)[1]), t.object.value == "true")
                                               for t in triples if t.predicate.value == FF_LABEL]
    writers.FOLDER_WRITERS["pykeen"](scenario, folder, store=store)
    writers.FOLDER_WRITERS["factbench"](scenario, folder, store=None)
    for split in splits:
        rows = (folder / "pykeen" / f"{split}_labelled.tsv").read_text(encoding="utf-8").splitlines()
        out.setdefault("pykeen", {})[split] = [(i, row.rsplit("\t", 1)[1] == "1") for i, row in enumerate(rows, 1)]
        # the folders of this layout tell the label by FactBench's convention; the file numbers must not
        models = sorted((folder / "factbench" / split).rglob("*.ttl"))
        out.setdefault("factbench", {})[split] = [(_number(p.stem.rsplit("_", 1)[1]), "correct" in p.parts)
                                                  for p in models]
    return out


def replayed_labels(seed: int, split: str, n_true: int, n_false: int) -> list[bool]:
    """What the checker believes the labels are, position by position: the old code's permutation
    of [true facts, false facts], replayed from the seed and the counts alone."""
    salt = int.from_bytes(hashlib.sha256(f"shuffle/{split}".encode()).digest()[:8], "big")
    order = np.random.default_rng([int(seed), salt]).permutation(n_true + n_false)
    labels = [True] * n_true + [False] * n_false
    return [labels[i] for i in order]


@pytest.fixture(scope="module")
def attacked(scenarios, tmp_path_factory):
    """Per format: (truth, replay checker's score, position checker's score), pooled over scenarios."""
    pooled: dict[str, tuple[list, list, list]] = {}
    per_split: list[tuple[str, str, float | None]] = []
    for n, (store, scenario) in enumerate(scenarios):
        seed = json.loads(writers.render(scenario, "json", "test"))["seed"]  # as a system under test reads it
        counts = scenario.manifest()["counts"]
        for name, by_split in published(store, scenario, tmp_path_factory.mktemp(f"sc{n}")).items():
            truth, replay, position = pooled.setdefault(name, ([], [], []))
            for split, facts in by_split.items():
                assert sorted(k for k, _ in facts) == list(range(1, len(facts) + 1)), (name, split)
                believed = replayed_labels(seed, split, counts[split]["true"], counts[split]["false"])
                labels = [label for _, label in facts]
                guesses = [1.0 if believed[k - 1] else 0.0 for k, _ in facts]
                truth += labels
                replay += guesses
                position += [k / len(facts) for k, _ in facts]
                per_split.append((name, split, auroc(labels, guesses)))
    return pooled, per_split


def test_every_format_was_attacked(attacked):
    pooled, _ = attacked
    assert set(pooled) == set(writers.formats())
    assert all(len(truth) > 1500 and 0.4 < np.mean(truth) < 0.6 for truth, _, _ in pooled.values())


@pytest.mark.parametrize("name", ["tsv", "csv", "json", "jsonl", "turtle", "ntriples", "jsonld", "pykeen", "factbench"])
def test_replaying_the_seeded_permutation_scores_chance(attacked, name):
    pooled, per_split = attacked
    truth, replay, _ = pooled[name]
    score = auroc(truth, replay)
    assert abs(score - 0.5) <= TOLERANCE, f"{name}: the seed-replaying checker scored AUROC {score}"
    assert not [s for n, _, s in per_split if n == name and s == 1.0], f"{name}: a split's labels were replayed exactly"


@pytest.mark.parametrize("name", ["tsv", "json", "ntriples", "pykeen", "factbench"])
def test_position_and_id_number_score_chance(attacked, name):
    pooled, _ = attacked
    truth, _, position = pooled[name]
    score = auroc(truth, position)
    assert abs(score - 0.5) <= TOLERANCE, f"{name}: position alone scored AUROC {score}"


def test_order_and_ids_follow_from_the_visible_facts_alone(scenarios):
    """Whoever holds the facts of a split (in any order, without labels) and the seed gets the
    published order and ids back: they hold nothing else."""
    for _, scenario in scenarios:
        for split, items in (("test", scenario.test), ("train", scenario.train)):
            visible = [Fact(i.fact.s, i.fact.p, i.fact.o, i.fact.start, i.fact.end) for i in items]
            random.Random(len(visible)).shuffle(visible)
            ordered = fact_order(visible, scenario.spec.seed)
            assert ordered == [i.fact for i in items], (scenario.spec, split)
            prefix = "te" if split == "test" else "tr"
            assert [i.id for i in items] == [f"{prefix}{n:05d}" for n in range(1, len(items) + 1)]


def test_the_order_is_keyed_by_the_seed(scenarios):
    """Not a fixed sort of the facts: another seed orders the same facts otherwise."""
    _, scenario = scenarios[0]
    facts = [i.fact for i in scenario.test]
    here = fact_order(facts, scenario.spec.seed)
    assert fact_order(facts, scenario.spec.seed + 1) != here
    assert fact_order(list(reversed(facts)), scenario.spec.seed) == here


def test_the_public_fact_hash_predicts_neither_label_nor_split(scenarios):
    """Which true facts become test facts (and leave R) or train facts, and which false facts are made,
    is drawn without the public order (``fact_order``: keyed by the seed, which a system under test
    knows); only the published order follows it. Ranked by that order over both splits, neither the
    label nor the split of a fact is told."""
    labels, splits, label_rank, split_rank = [], [], [], []
    for _, scenario in scenarios:
        ordered = fact_order([i.fact for i in scenario.facts], scenario.spec.seed)
        rank = {fact: k / len(ordered) for k, fact in enumerate(ordered)}
        labels += [i.label for i in scenario.facts]
        label_rank += [rank[i.fact] for i in scenario.facts]
        if scenario.train:
            splits += [i.split == "test" for i in scenario.facts]
            split_rank += [rank[i.fact] for i in scenario.facts]
    assert len(labels) >= 2000 and len(splits) >= 1500
    for what, truth, score in (("label", labels, label_rank), ("split", splits, split_rank)):
        assert abs(auroc(truth, score) - 0.5) <= TOLERANCE, f"the public fact order tells the {what}"
