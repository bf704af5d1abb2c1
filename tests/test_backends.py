"""The same KB behind the embedded store and a real `oxigraph serve`: every template, same rows."""
import io

import pytest
from pyoxigraph import Literal

from factforge.sparql import profiles, templates
from factforge.sparql.store import StoreError, open_store
from factforge.sparql.terms import SCHEMA_NAMESPACES, iri

BIRTH_PLACE = iri("dbo:birthPlace")
ENTITIES = [iri(f"dbr:{name}") for name in [
    "Albert_Einstein", "Soviet_Union", "Princeton,_New_Jersey", "London", "$_(film)", "%C2%A1Three_Amigos!"]] + [
    iri("dbo:City")]  # labelled in the ontology graph


# Templates whose answer on DBpedia50 + its ontology is empty, and why (tested on other data).
EMPTY_ON_DBPEDIA50 = {
    "declared_inverses": "the 2018 DBpedia ontology declares no owl:inverseOf",
    "fact_dates": "DBpedia50 has no reified, dated statements",
    "negatives_factbench_date": "DBpedia50 has no reified, dated statements",
    "claim_date_statements": "DBpedia50 has no reified, dated statements",
    "restatements": "DBpedia50 has no statement nodes (tests/test_reference_statements.py: demo KB, FactBench)",
    "statement_nodes": "DBpedia50 has no statement nodes (tests/test_reference_statements.py: FactBench)",
}


# The candidate false facts of each negative kind (negatives_*) are asked for a predicate with few
# facts: FactBench's corruptions pair every subject with every object of it.
NEGATIVES_PREDICATE = iri("dbo:capital")


def params_for(template, store):
    values = {}
    negatives = template.name.startswith("negatives_")
    for name in template.params:
        if name == "predicate":
            values[name] = NEGATIVES_PREDICATE if negatives else BIRTH_PLACE
        elif name == "sources":
            facts = profiles.predicate_facts(store, NEGATIVES_PREDICATE.value)
            values[name] = [(iri(s), iri(o)) for s, o in (facts[:8] if template.name == "negatives_lcwa" else facts[:3])]
        elif name == "links":
            values[name] = profiles.degree_predicates(store)[:40]
        elif name == "max_path_length":
            values[name] = 2
        elif name == "predicates":
            values[name] = profiles.degree_predicates(store)[:40]
        elif name in ("entities", "subjects"):
            values[name] = ENTITIES
        elif name == "entity":  # one with links of BIRTH_PLACE in the template's direction
            values[name] = iri("dbr:London" if template.name == "entity_in_links" else "dbr:Adam_Buxton")
        elif name in ("limit", "offset"):
            # London has more in-links: a slice past the first; Adam Buxton one birthplace
            values[name] = 5 if name == "limit" or template.name == "entity_in_links" else 0
        elif name == "runs":  # London's birthPlace in-links; Adam Buxton's birthplace
            values[name] = [(iri("dbr:London" if template.name == "entity_in_runs" else "dbr:Adam_Buxton"), BIRTH_PLACE)]
        elif name == "pairs":  # Einstein died in Princeton; London and Adam Buxton: no link either way
            values[name] = [(iri("dbr:Princeton,_New_Jersey"), iri("dbr:Albert_Einstein")),
                            (iri("dbr:London"), iri("dbr:Adam_Buxton"))]
        elif name == "middles":  # Einstein died in Princeton, a borough as Belmar is; London: no link to Belmar
            values[name] = [(iri("dbr:Princeton,_New_Jersey"), iri("dbr:Belmar,_New_Jersey"), iri("dbr:Albert_Einstein")),
                            (iri("dbr:London"), iri("dbr:Belmar,_New_Jersey"), iri("dbr:Albert_Einstein"))]
        elif name == "scanned_middles":  # the same, its object scanned and joined
            values[name] = [(iri("dbr:Princeton,_New_Jersey"), iri("dbr:Belmar,_New_Jersey"), iri("dbr:Albert_Einstein"))]
        elif name == "objects":  # Belmar, and London, the object of no scanned row
            values[name] = [iri("dbr:Belmar,_New_Jersey"), iri("dbr:London")]
        elif name == "out_runs":  # Adam Buxton's birthplace: a short run, read with its length
            values[name] = [(iri("dbr:Adam_Buxton"), BIRTH_PLACE)]
        elif name == "in_runs":  # London's birthPlace in-links: longer than most_links, counted only
            values[name] = [(iri("dbr:London"), BIRTH_PLACE)]
        elif name in ("holder_runs", "scanned_holder_runs"):  # Vancouver and British Columbia share 15 birthPlace
            # holders; London and Adam Buxton none
            values[name] = ([(iri("dbr:Vancouver"), iri("dbr:British_Columbia"), BIRTH_PLACE)] if name == "holder_runs"
                            else [(iri("dbr:London"), iri("dbr:Adam_Buxton"), BIRTH_PLACE),
                                  (iri("dbr:Minsk"), iri("dbr:Soviet_Union"), BIRTH_PLACE)])
        elif name == "scanned_runs":  # the y ends of scanned_holder_runs, and British Columbia's, which no scanned row has
            values[name] = [(iri("dbr:Adam_Buxton"), BIRTH_PLACE), (iri("dbr:Soviet_Union"), BIRTH_PLACE),
                            (iri("dbr:British_Columbia"), BIRTH_PLACE)]
        elif name == "most_links":
            values[name] = 5
        elif name == "schema":
            values[name] = [Literal(namespace) for namespace in SCHEMA_NAMESPACES]
        elif name == "facts":
            values[name] = [(iri("dbr:Albert_Einstein"), iri("dbo:deathPlace"), iri("dbr:Princeton,_New_Jersey")),
                            (iri("dbr:Albert_Einstein"), iri("dbo:deathPlace"), iri("dbr:London"))]
        else:  # a new template parameter must be given a sample here
            pytest.fail(f"no sample value for parameter {name} of {template.name}")
    return values


def canonical(rows):
    return sorted(tuple(sorted((k, str(v)) for k, v in row.items())) for row in rows)


@pytest.fixture(scope="module")
def remote(dbpedia_server):
    return open_store(endpoint=dbpedia_server.query_url)


@pytest.mark.parametrize("name", templates.names())
def test_template_gives_identical_rows(name, dbpedia_store, remote):
    template = templates.load(name)
    values = params_for(template, dbpedia_store)
    if template.form == "ASK":
        assert dbpedia_store.ask(name, **values) == remote.ask(name, **values)
        return
    if template.form == "CONSTRUCT":
        assert sorted(map(str, dbpedia_store.construct(name, **values))) == sorted(map(str, remote.construct(name, **values)))
        return
    local = canonical(dbpedia_store.select(name, **values))
    if name in EMPTY_ON_DBPEDIA50:
        assert local == [] == canonical(remote.select(name, **values))
        return
    assert local, f"{name} returned no row on DBpedia50: the comparison would prove nothing"
    assert local == canonical(remote.select(name, **values))


def test_shared_holders_are_the_same_looked_up_or_scanned(dbpedia_store, remote):
    """A triple's holders are looked up from x's run, or both runs are scanned and joined (two
    triples sharing one y run, scanned once; a run listed that no triple has): the counts must not
    depend on the way, and only the triples listed are answered (not Minsk with Azerbaijan, whose
    runs are both scanned here)."""
    born = BIRTH_PLACE
    triples = [(iri("dbr:Minsk"), iri("dbr:Soviet_Union"), born),
               (iri("dbr:Azerbaijan_Soviet_Socialist_Republic"), iri("dbr:Soviet_Union"), born),
               (iri("dbr:Vancouver"), iri("dbr:British_Columbia"), born)]
    runs = [(iri("dbr:Soviet_Union"), born), (iri("dbr:British_Columbia"), born), (iri("dbr:London"), born)]
    for store in (dbpedia_store, remote):
        looked_up = canonical(store.select("shared_holders", holder_runs=triples, scanned_holder_runs=[], scanned_runs=[]))
        scanned = canonical(store.select("shared_holders", holder_runs=[], scanned_holder_runs=triples, scanned_runs=runs))
        split = canonical(store.select("shared_holders", holder_runs=triples[2:], scanned_holder_runs=triples[:2],
                                       scanned_runs=runs[:1]))
        assert len(looked_up) == 3, "three pairs with shared holders on DBpedia50, or the comparison would prove little"
        assert looked_up == scanned == split


def test_middle_step_pairs_are_the_same_looked_up_or_scanned(dbpedia_store, remote):
    """A row's object is looked up from its middle's links, or scanned once and joined (the
    objects listed beside, each of them once for the rows that share it, and some not in any
    row): the step pairs must not depend on the way, nor on the rows asked beside it."""
    middles = [(iri("dbr:Princeton,_New_Jersey"), iri("dbr:Belmar,_New_Jersey"), iri("dbr:Albert_Einstein")),
               (iri("dbr:London"), iri("dbr:Belmar,_New_Jersey"), iri("dbr:Albert_Einstein")),
               (iri("dbr:Soviet_Union"), iri("dbr:London"), iri("dbr:Albert_Einstein"))]
    objects = [iri("dbr:Belmar,_New_Jersey"), iri("dbr:London")]
    for store in (dbpedia_store, remote):
        looked_up = canonical(store.select("middle_step_pairs", middles=middles, scanned_middles=[], objects=[]))
        scanned = canonical(store.select("middle_step_pairs", middles=[], scanned_middles=middles, objects=objects))
        split = canonical(store.select("middle_step_pairs", middles=middles[2:], scanned_middles=middles[:2],
                                       objects=objects[:1] + [iri("dbr:Princeton,_New_Jersey")]))
        assert {dict(row)["o"] for row in looked_up} == {str(objects[0]), str(objects[1])}, \
            "step pairs for both objects on DBpedia50, or the comparison would prove little"
        assert looked_up == scanned == split


def test_profiles_agree(dbpedia_store, remote):
    assert profiles.predicate_profile(dbpedia_store, "dbo:birthPlace") == profiles.predicate_profile(remote, "dbo:birthPlace")
    assert profiles.type_paths(dbpedia_store, [e.value for e in ENTITIES]) == profiles.type_paths(remote, [e.value for e in ENTITIES])


def test_raw_queries_and_errors_through_both(dbpedia_store, remote):
    query = "SELECT ?o WHERE { <http://dbpedia.org/resource/Albert_Einstein> ?p ?o } ORDER BY ?o"
    assert canonical(dbpedia_store.select_query(query)) == canonical(remote.select_query(query))
    for store in (dbpedia_store, remote):
        with pytest.raises(StoreError):
            list(store.select_query("SELECT WHERE {"))
    unreachable = open_store(endpoint="http://127.0.0.1:9/query")
    with pytest.raises(StoreError, match="unreachable"):
        unreachable.triple_count()


def test_a_scenario_is_the_same_through_a_server(tmp_path):
    """The whole generator through SPARQLWrapper and oxigraph serve: the same facts, byte for byte."""
    from conftest import OxigraphServer
    from factforge.generators.reference_kb import ReferenceKB
    from factforge.generators.scenario import generate
    from factforge.generators.spec import ScenarioSpec
    from factforge.generators.writers import render
    from factforge.sparql.demo_kb import demo_kb_path
    from factforge.sparql.loading import load_files

    server = OxigraphServer(tmp_path, [(demo_kb_path(), None)])
    try:
        local = open_store(None)
        load_files(local, [demo_kb_path()], progress=False)
        remote = open_store(endpoint=server.query_url)
        spec = ScenarioSpec(predicate="dbo:capital", size=40, transparency=0.5, ambiguous="random_walk",
                            train_size=10, seed=3)
        here, there = generate(local, spec), generate(remote, spec)
        for fmt in ("tsv", "jsonl"):
            for split in ("test", "train"):
                assert render(here, fmt, split) == render(there, fmt, split)
        assert here.answers == there.answers and here.removed == there.removed
        # R through either backend's Store.triples (its sorted dump, built from each) (a scan of the quads, or predicate by predicate): the same bytes
        written = [io.BytesIO(), io.BytesIO()]
        for store, out in zip((local, remote), written):
            ReferenceKB.of(store, here.removed).write_ntriples(out)
        assert written[0].getvalue() == written[1].getvalue()
        assert 0 < written[0].getvalue().count(b"\n") < local.triple_count()
    finally:
        server.stop()

