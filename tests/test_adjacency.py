"""The adjacency index and the quad table it is built from: the same arrays whether built from the
table or by SPARQL, a lossless cache file, and a table that mirrors the store quad for quad."""
import numpy as np
import pyoxigraph as ox
import pytest

from factforge.sparql import adjacency, scan
from factforge.sparql.loading import load_files
from factforge.sparql.store import open_store

ARRAYS = ("src", "pred", "dst", "in_src", "in_pred", "in_ptr", "out_ptr")

# Lines the plain-line reader must leave to the parser, and literals the store rewrites.
TRICKY = r'''# a comment
<http://a/s> <http://a/p> "01"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://a/s> <http://a/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> <http://g/1> .
<http://a/s> <http://a/p> "1.0"^^<http://www.w3.org/2001/XMLSchema#decimal> .
<http://a/s> <http://a/p> "1"^^<http://www.w3.org/2001/XMLSchema#boolean> .

<http://a/s> <http://a/p> "x y"@EN .
<http://a/s> <http://a/p> "x y"@en <http://g/2> .
<http://a/s> <http://a/p> "caf\u00E9" .
<http://a/s> <http://a/p> "café" .
<http://a/s>	<http://a/p>   <http://a/o> .
<http://a/s> <http://a/p> <http://a/o> . # trailing comment
<http://a/s> <http://a/p> <http://a/o> <http://g/1> .
<http://a/s> <http://a/p> "a <b>"^^<http://a/dt> .
<http://a/s> <http://a/p> "a <b>" <http://g/1> .
<http://a/s> <http://a/p> "a . # b" .
<http://a/s> <http://a/p> "x"^^<http://www.w3.org/2001/XMLSchema#string> <http://g/1> .
<http://a/s> <http://a/p> "x" <http://g/1> .
<http://a/s> <http://a/\u0070> "tab	in" .
<http://a/s> <http://a/p> "2001-01-01T00:00:00+00:00"^^<http://www.w3.org/2001/XMLSchema#dateTime> .
<http://a/s> <http://a/p> "2001-02-30"^^<http://www.w3.org/2001/XMLSchema#date> .
<http://a/s> <http://a/p> "0099"^^<http://www.w3.org/2001/XMLSchema#gYear> .
<http://a/s> <http://a/p> "q\"uote" .
<http://a/s> <http://a/p> "q\"uote" .
'''


def quads_of(store):
    return {tuple(str(t) for t in (q.subject, q.predicate, q.object))
            + (None if isinstance(q.graph_name, ox.DefaultGraph) else str(q.graph_name),) for q in store.db}


def quads_in(table):
    terms = [t.decode() for t in table.terms]
    return {(terms[s], terms[p], terms[o], terms[g] if g >= 0 else None)
            for s, p, o, g in zip(table.s.tolist(), table.p.tolist(), table.o.tolist(), table.g.tolist())}


def test_the_table_mirrors_the_store_quad_for_quad(tmp_path):
    source = tmp_path / "tricky.nq"
    source.write_text(TRICKY, encoding="utf-8")
    other = tmp_path / "same.nt"
    other.write_text('<http://a/s> <http://a/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .\n', encoding="utf-8")
    store = open_store(tmp_path / "kb")
    load_files(store, [source], progress=False)
    load_files(store, [other], graph="http://g/3", progress=False)
    table = scan.kb_table(store)
    assert table is not None and quads_in(table) == quads_of(store)
    assert len(table.s) == len(store.db)


def test_a_changed_file_is_not_read_for_its_old_load(tmp_path):
    source = tmp_path / "kb.ttl"
    source.write_text("<http://a/s> <http://a/p> <http://a/o> .\n", encoding="utf-8")
    store = open_store(tmp_path / "kb")
    load_files(store, [source], progress=False)  # Turtle: scanned later, from the file
    source.write_text("<http://a/s> <http://a/p> <http://a/other> .\n", encoding="utf-8")
    assert scan.kb_table(store) is None


def test_index_from_the_table_equals_the_index_from_sparql(dbpedia_store):
    assert scan.kb_table(dbpedia_store) is not None
    fast = adjacency.build(dbpedia_store)
    slow = adjacency.build(dbpedia_store, use_table=False)
    assert fast.entities == slow.entities and fast.predicates == slow.predicates
    for name in ARRAYS + ("type_ptr", "type_cls"):
        assert np.array_equal(getattr(fast, name), getattr(slow, name)), name
    assert slow.has_types and slow.classes == fast.classes


def test_the_cache_file_keeps_every_array(dbpedia_store, tmp_path):
    index = adjacency.build(dbpedia_store)
    adjacency._write(index, tmp_path / adjacency.FILE)
    back = adjacency._read(tmp_path / adjacency.FILE)
    assert back.entities == index.entities and back.predicates == index.predicates
    for name in ARRAYS + ("type_ptr", "type_cls"):
        assert np.array_equal(getattr(back, name), getattr(index, name)), name
    assert back.has_types and back.classes == index.classes


def test_types_in_the_index_are_what_the_entity_types_query_gives(dbpedia_store):
    """Every indexed entity's classes, against the query the type checks used before (both graphs:
    the instances' types and the ontology's)."""
    from factforge.sparql import profiles

    index = adjacency.build(dbpedia_store)
    assert index.has_types
    by_query = profiles.entity_types(dbpedia_store, index.entities)
    from_index = {e: list(index.classes_of(i)) for i, e in enumerate(index.entities) if index.classes_of(i)}
    assert from_index == by_query
    assert len(from_index) > 20_000  # most DBpedia50 entities are typed: the comparison covers them


def test_types_from_the_index_make_the_same_scenarios(dbpedia_store, monkeypatch):
    from factforge.generators.scenario import generate
    from factforge.generators.spec import ScenarioSpec
    from factforge.generators.writers import render

    specs = [ScenarioSpec("http://dbpedia.org/ontology/birthPlace", size=100, transparency=0.0, ambiguous=kind, seed=4)
             for kind in ("random_walk", "lcwa")]
    with_index = [render(generate(dbpedia_store, spec), "jsonl", "all") for spec in specs]
    monkeypatch.setattr(adjacency.Adjacency, "has_types", property(lambda self: False))  # types by query
    assert [render(generate(dbpedia_store, spec), "jsonl", "all") for spec in specs] == with_index


@pytest.mark.parametrize("entity", ["http://dbpedia.org/resource/Albert_Einstein", "http://example.org/none", ""])
def test_ids_by_bisection_agree_with_a_dict(dbpedia_store, entity):
    index = adjacency.adjacency(dbpedia_store)
    assert index.id(entity) == index.index.get(entity)
    step = max(1, len(index.entities) // 500)
    assert all(index.id(index.entities[i]) == i for i in range(0, len(index.entities), step))


def test_a_plain_ntriples_load_leaves_its_table_and_the_same_digest(tmp_path, monkeypatch):
    from conftest import DBPEDIA_NT, need
    from factforge.sparql import loading
    from factforge.sparql.loading import file_digest

    monkeypatch.setattr(loading, "SCAN_WHILE_LOADING", 0)  # DBpedia50 is below the size that pays
    store = open_store(tmp_path / "kb")
    load_files(store, [need(DBPEDIA_NT)], graph="http://example.org/g", progress=False)
    [entry] = store.meta()["loads"]
    assert entry["sha256"] == file_digest(DBPEDIA_NT)
    assert scan._existing_table(store, entry) is not None  # written by the load, not scanned later
    assert quads_in(scan.kb_table(store)) == quads_of(store)


def test_follow_many_agrees_with_follow(dbpedia_store):
    """Walks step many (node, signed step) rows at once; each row's run must be ``follow``'s, with
    the int64 codes and without them (a KB too large for them)."""
    index = adjacency.adjacency(dbpedia_store)
    rng = np.random.default_rng(3)
    nodes = rng.integers(0, len(index.entities), 2000)
    steps = []
    for node in nodes.tolist():
        _, signed = index.steps(node)
        # mostly steps the node has, some it has not (an empty run)
        steps.append(int(signed[rng.integers(signed.size)]) if signed.size and rng.random() < 0.8
                     else int(rng.choice([-1, 1]) * rng.integers(1, len(index.predicates) + 1)))
    steps = np.array(steps)
    lo, hi = index.follow_many(nodes, steps)
    for i, (node, step) in enumerate(zip(nodes.tolist(), steps.tolist())):
        got = (index.dst if step > 0 else index.in_src)[lo[i]:hi[i]]
        assert np.array_equal(got, index.follow(node, step)), (node, step)
    assert (hi > lo).sum() > 1000 and (hi == lo).sum() > 50
    index.__dict__["in_codes"] = None  # as if the codes did not fit in 63 bits
    try:
        assert [a.tolist() for a in index.follow_many(nodes, steps)] == [lo.tolist(), hi.tolist()]
    finally:
        del index.__dict__["in_codes"]


def test_a_file_loaded_by_a_relative_path_is_found_from_another_folder(tmp_path, monkeypatch):
    """The quad table of a small file is scanned from it when first needed, maybe by a process
    started elsewhere: a path kept as typed would be looked up there, and the index built by queries."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "kb.nt").write_text("<http://a/s> <http://a/p> <http://a/o> .\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path / "data")
    store = open_store(tmp_path / "kb")
    load_files(store, ["kb.nt"], progress=False)
    monkeypatch.chdir(tmp_path)
    scan._MEMO.clear()
    assert scan.kb_table(store) is not None


def test_a_scenario_over_an_index_built_by_queries_asks_no_types(dbpedia_store, monkeypatch):
    """A store whose load left no quad table (its file moved, a store loaded by other tools)."""
    from factforge.generators.scenario import generate
    from factforge.generators.spec import ScenarioSpec
    from factforge.generators.writers import render

    spec = ScenarioSpec("http://dbpedia.org/ontology/birthPlace", size=100, transparency=0.0, ambiguous="lcwa", seed=4)
    expected = render(generate(dbpedia_store, spec), "jsonl", "all")
    index = adjacency.build(dbpedia_store, use_table=False)
    asked = []
    real = dbpedia_store.select
    monkeypatch.setattr(dbpedia_store, "select", lambda template, **kw: asked.append(template) or real(template, **kw))
    assert render(generate(dbpedia_store, spec, index=index), "jsonl", "all") == expected
    assert "entity_types" not in asked
