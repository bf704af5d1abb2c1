"""Neither the order of claims.jsonl nor the seed tells a claim's label.

A system under test reads claims.jsonl and the manifest (with the seed) and knows the software, but
not the KB. The label plan takes true facts out of R in an order: the first ones out become NOT
ENOUGH INFO, the next ones stay as SUPPORTS. When that order was the public keyed order of the facts
(``generators.fact_order``, keyed by the seed alone), a KB-free checker that replays it read NOT ENOUGH
INFO off the earliest true facts (AUROC 1.0 on every set), and the records, listed in the same order,
put NOT ENOUGH INFO first. The checker here is generous: it takes each claim's fact and even its
truth from answers.json (a real one would parse the fact from the text and would not know its truth).

Both checks pool sets by a stratified Mann-Whitney test: each set's U statistic against its own
chance mean and variance (no ties: the scores are distinct ranks), summed, and the sum standardized.
With no signal, |z| > 4 has probability below 1e-4; the sets and seeds are fixed, so the test gives
the same answer every run.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import rankdata

from factforge.claims.build import Options, make_claims
from factforge.claims.labelling import LABELS, NEI, SUPPORTS, parse_shares
from factforge.claims.plan_key import plan_key
from factforge.evaluation.labelled import ScenarioFiles
from factforge.generators.fact_order import order_key
from factforge.generators.facts import Fact
from factforge.generators.scenario import generate
from factforge.generators.spec import ScenarioSpec
from factforge.sparql.adjacency import adjacency

from conftest import store_from_text

Z_BOUND = 4.0
DEMO = ([dict(predicate="dbo:capital", size=60, seed=s) for s in (1, 2, 4, 7)]
        + [dict(predicate="dbo:birthPlace", size=120, seed=s) for s in (0, 1)])
DBPEDIA = [dict(predicate="dbo:deathPlace", size=300, seed=s) for s in (0, 1)] + [
    dict(predicate="dbo:country", size=300, seed=0)]


def claims_of(store, spec: dict, out: Path) -> tuple[list[dict], dict, dict]:
    """(records, answers file, manifest) of a claims set made from a scenario of ``spec``, in ``out``/claims."""
    scenario = generate(store, ScenarioSpec(ambiguous="random_walk", **spec))
    test = [{"id": i.id, "subject": i.fact.s, "predicate": i.fact.p, "object": i.fact.o, "start": i.fact.start,
             "end": i.fact.end, "label": i.label} for i in scenario.test]
    source = ScenarioFiles(out, {"scenario": scenario.id}, test, [], scenario.answers)
    make_claims(store, source, Options(langs=["en"], shares=parse_shares("1/3,1/3,1/3"), seed=spec["seed"]),
                out / "claims")
    records = [json.loads(line) for line in (out / "claims" / "claims.jsonl").read_text(encoding="utf-8").splitlines()]
    answers = json.loads((out / "claims" / "answers.json").read_text(encoding="utf-8"))
    manifest = json.loads((out / "claims" / "manifest.json").read_text(encoding="utf-8"))
    return records, answers, manifest


@pytest.fixture(scope="module")
def folders(demo_kb_store, dbpedia_store, tmp_path_factory):
    made = []
    for store, specs in ((demo_kb_store, DEMO), (dbpedia_store, DBPEDIA)):
        for spec in specs:
            folder = tmp_path_factory.mktemp("set")
            made.append((folder / "claims", claims_of(store, spec, folder)))
    return made


@pytest.fixture(scope="module")
def sets(folders):
    return [made for _, made in folders]


def stratified_z(strata: list[tuple[list[bool], list[float]]]) -> tuple[float, float]:
    """(z, pooled AUROC): the summed Mann-Whitney U of the positives' scores over the strata, standardized
    by its chance mean and variance; each stratum's scores are distinct."""
    u_sum = mean = variance = pairs = 0.0
    for positive, scores in strata:
        positive = np.asarray(positive, dtype=bool)
        n1, n0 = int(positive.sum()), int((~positive).sum())
        if not n1 or not n0:
            continue
        u = rankdata(scores)[positive].sum() - n1 * (n1 + 1) / 2
        u_sum, mean, pairs = u_sum + u, mean + n1 * n0 / 2, pairs + n1 * n0
        variance += n1 * n0 * (n1 + n0 + 1) / 12
    return (u_sum - mean) / math.sqrt(variance), u_sum / pairs


def test_replaying_the_public_fact_order_does_not_tell_not_enough_info_from_supports(sets):
    strata = []
    for records, answers, manifest in sets:
        key = order_key(manifest["seed"])  # the seed, as a system under test reads it
        true = [(answers["answers"][str(n)], r["label"]) for n, r in enumerate(records, 1)
                if answers["answers"][str(n)]["true_in_kb"]]
        ranks = [key(Fact(a["subject"], a["predicate"], a["object"], a["start"], a["end"])) for a, _ in true]
        earliest_first = [-r for r in rankdata([rank[0] for rank in ranks])]
        strata.append(([label == NEI for _, label in true], earliest_first))
    nei, supports = (sum(sum(p) for p, _ in strata), sum(sum(not x for x in p) for p, _ in strata))
    assert nei > 100 and supports > 100, (nei, supports)
    z, pooled = stratified_z(strata)
    assert abs(z) < Z_BOUND, f"the seed-replaying checker tells NOT ENOUGH INFO: AUROC {pooled:.3f}, z {z:.1f}"


@pytest.mark.parametrize("label", LABELS)
def test_record_position_does_not_tell_the_label(sets, label):
    strata = [([r["label"] == label for r in records], list(range(len(records)))) for records, _, _ in sets]
    z, pooled = stratified_z(strata)
    assert abs(z) < Z_BOUND, f"position tells {label}: AUROC {pooled:.3f}, z {z:.1f}"


def test_the_plan_key_is_in_the_answers_only(folders):
    """Whoever holds the key can replay the plan: it is in answers.json, in no file a system under test
    reads, and each set has its own."""
    keys = set()
    for folder, (_, answers, _) in folders:
        key = answers["plan_key"]
        assert len(bytes.fromhex(key)) == 32
        keys.add(key)
        for name in ("claims.jsonl", "manifest.json", "reference.sorted.nt"):
            assert key not in (folder / name).read_text(encoding="utf-8"), name
    assert len(keys) == len(folders)


EX = "http://example.org/"
KB = """@prefix ex: <http://example.org/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
ex:capital a owl:FunctionalProperty .
""" + "".join(f"ex:S{i} ex:capital ex:C{i} ; ex:near ex:C{(i + 1) % 9} .\n" for i in range(9))


def test_the_plan_key_needs_the_facts_r_lacks(tmp_path):
    """The key changes with any fact of the set's predicates in the KB, so R, which lacks the facts
    taken out, does not give it; facts of other predicates and the order the KB was read in do not
    change it, and the seed does."""
    def key(text, name, seed=0, predicates=(EX + "capital",)):
        return plan_key(adjacency(store_from_text(tmp_path, name, text)), seed, predicates)

    lines = KB.splitlines(keepends=True)
    whole = key(KB, "a.ttl")
    assert key("".join(lines[:3] + lines[:2:-1]), "b.ttl") == whole
    assert key(KB.replace("ex:S8 ex:capital ex:C8 ; ", "ex:S8 "), "c.ttl") != whole  # R without one fact
    assert key(KB.replace("ex:near ex:C0", "ex:near ex:C5"), "d.ttl") == whole
    assert key(KB, "e.ttl", seed=1) != whole
    assert key(KB, "f.ttl", predicates=(EX + "capital", EX + "missing")) == whole


BLANK_KB = KB + """ex:S0 ex:capital [ ex:near ex:C3 ] .
_:capitalless ex:capital ex:C4 ; ex:near _:other .
"""


def test_the_plan_key_is_the_same_through_every_backend_when_the_kb_has_blank_nodes(tmp_path):
    """Blank nodes have the store's own labels (each load and each endpoint draws its own), and the
    index names them without ``<>``-able IRIs: hashed as they came, they gave each backend another key and
    the key malformed lines. Links to or from a blank node are left out of the key: the embedded store,
    another load of it and a real `oxigraph serve` give one key, the one of the KB without them."""
    from conftest import OxigraphServer

    from factforge.sparql.adjacency import build
    from factforge.sparql.store import open_store

    predicates = (EX + "capital",)
    embedded = plan_key(adjacency(store_from_text(tmp_path, "a.ttl", BLANK_KB)), 0, predicates)
    assert plan_key(build(store_from_text(tmp_path, "b.ttl", BLANK_KB)), 0, predicates) == embedded
    assert embedded == plan_key(adjacency(store_from_text(tmp_path, "c.ttl", KB)), 0, predicates)
    (tmp_path / "served").mkdir()
    server = OxigraphServer(tmp_path / "served", [(tmp_path / "a.ttl", None)])
    try:
        remote = open_store(endpoint=server.query_url, fingerprint="kb-blank-nodes")
        assert plan_key(build(remote), 0, predicates) == embedded
    finally:
        server.stop()


UNICODE_KB = BLANK_KB + "".join(f"<http://example.org/Zürich_{i}> ex:capital <http://example.org/城市{i % 4}> .\n"
                                 for i in range(7)) + "ex:S1 ex:capital ex:C4 .\n"


@pytest.mark.parametrize("chunk", [1, 3, 4096])
def test_the_plan_key_hashes_the_lines_its_module_names(tmp_path, monkeypatch, chunk):
    """The key is SHA-256 over "<s> <p> <o> .\\n" of every named link of each predicate, in the index's
    link order, as the module's docstring says: made here a line at a time from the entity names, it is
    the key ``plan_key`` gives, whichever the lines' cut into hashed pieces, with non-ASCII IRIs, a
    subject of two objects and blank nodes (left out) among them."""
    import hashlib

    import factforge.claims.plan_key as module

    monkeypatch.setattr(module, "CHUNK", chunk)
    index = adjacency(store_from_text(tmp_path, "u.ttl", UNICODE_KB))
    predicates = (EX + "near", EX + "capital")
    digest = hashlib.sha256()
    for predicate in sorted(predicates):
        for s, p, o in zip(index.src.tolist(), index.pred.tolist(), index.dst.tolist()):
            names = index.entities[s], index.entities[o]
            if index.predicates[p] == predicate and all(module._SCHEME.match(n) for n in names):
                digest.update(f"<{names[0]}> <{predicate}> <{names[1]}> .\n".encode("utf-8"))
    expected = hashlib.sha256(b"factforge/claims/plan-key\n5\n" + digest.digest()).digest()
    assert plan_key(index, 5, predicates) == expected
    assert digest.digest() != hashlib.sha256().digest()  # lines were hashed


def test_the_plan_keys_lines_are_hashed_once_per_kb_and_give_the_key_hashed_anew(tmp_path, monkeypatch):
    """``plan_key`` with the KB's statistics cache keeps the digest of the lines there: the key is the one
    hashed without the cache, for any seed and predicate order; a later call (another process's: the
    cache's in-process memo set aside) reads it and hashes no line; a secret, which goes into the lines'
    digest, is never served from it, and another predicate set has its own."""
    import factforge.claims.plan_key as module
    from factforge.sparql import cache as cache_module
    from factforge.sparql.cache import StatsCache

    store = store_from_text(tmp_path, "u.ttl", UNICODE_KB)
    index, kb_cache = adjacency(store), StatsCache(store)
    predicates = (EX + "near", EX + "capital")
    plain = {seed: plan_key(index, seed, predicates) for seed in (0, 5)}
    assert plan_key(index, 0, predicates, cache=kb_cache) == plain[0]
    cache_module._MEMO.clear()
    with monkeypatch.context() as patched:
        patched.setattr(module, "_lines_digest", lambda *args: pytest.fail("the lines were hashed again"))
        assert plan_key(index, 5, predicates, cache=kb_cache) == plain[5]
        assert plan_key(index, 5, predicates[::-1], cache=kb_cache) == plain[5]
    assert plan_key(index, 5, predicates, b"secret", cache=kb_cache) == plan_key(index, 5, predicates, b"secret")
    assert plan_key(index, 5, predicates, b"secret") != plain[5]
    assert plan_key(index, 5, predicates[1:], cache=kb_cache) == plan_key(index, 5, predicates[1:]) != plain[5]
