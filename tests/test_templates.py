"""Query templates: every file is valid SPARQL once bound, and binding admits only real terms."""
import pytest
from pyoxigraph import Literal, NamedNode, Store

from factforge.sparql import templates
from factforge.sparql.templates import TemplateError
from factforge.sparql.terms import TermError, iri, literal


def sample_params(template):
    sample = NamedNode("http://dbpedia.org/ontology/birthPlace")
    rows = {"facts": [(sample, sample, sample)], "sources": [(sample, sample)],  # VALUES blocks over several variables
            "runs": [(sample, sample)], "pairs": [(sample, sample)], "middles": [(sample, sample, sample)],
            "scanned_middles": [(sample, sample, sample)], "out_runs": [(sample, sample)],
            "in_runs": [(sample, sample)], "holder_runs": [(sample, sample, sample)],
            "scanned_holder_runs": [(sample, sample, sample)], "scanned_runs": [(sample, sample)]}
    numbers = {"limit": 10, "offset": 0, "most_links": 1000}
    return {name: numbers.get(name, rows.get(name, [sample]) if name.endswith("s") else sample)
            for name in template.params}


@pytest.mark.parametrize("name", templates.names())
def test_every_template_is_documented_and_runs(name):
    template = templates.load(name)
    assert template.description, f"{name}.rq needs a leading comment saying what it answers"
    query = template.bind(sample_params(template))
    assert "$" not in query
    Store().query(query)  # raises SyntaxError on a malformed template


def test_iri_parameters_are_validated_not_pasted():
    template = templates.load("predicate_facts")
    for hostile in ["http://x> } ; DROP ALL ; { <http://y", "not an iri", "http://a b", ""]:
        with pytest.raises(TermError):
            template.bind({"predicate": iri(hostile)})
    with pytest.raises(TemplateError, match="must be an RDF term"):
        template.bind({"predicate": "http://dbpedia.org/ontology/birthPlace"})


def test_literals_are_escaped():
    query = templates.parse("t", "# t\nSELECT * WHERE { ?s ?p $value }").bind(
        {"value": literal('a"} . ?s ?p ?o . #\n', language="en")})
    store = Store()
    store.query(query)  # still one well-formed query
    assert '\\"' in query and "\\n" in query


def test_missing_and_unknown_parameters_are_named():
    template = templates.load("predicate_facts")
    with pytest.raises(TemplateError, match="missing parameter.*predicate"):
        template.bind({})
    with pytest.raises(TemplateError, match="unknown parameter.*limit"):
        template.bind({"predicate": iri("dbo:birthPlace"), "limit": 3})
    with pytest.raises(TemplateError, match="no query template"):
        templates.load("../etc/passwd")


def test_values_batches_render_rows_and_tuples():
    one = templates.parse("t", "# t\nSELECT * WHERE { VALUES ?e { $entities } }")
    assert one.bind({"entities": [iri("dbr:A"), iri("dbr:B")]}).count("<http://dbpedia.org/resource/") == 2
    two = templates.parse("t", "# t\nSELECT * WHERE { VALUES (?s ?o) { $pairs } }")
    query = two.bind({"pairs": [(iri("dbr:A"), iri("dbr:B")), (iri("dbr:C"), Literal("x"))]})
    rows = list(Store().query(query))
    assert [(r["s"].value, r["o"].value) for r in rows] == [
        ("http://dbpedia.org/resource/A", "http://dbpedia.org/resource/B"), ("http://dbpedia.org/resource/C", "x")]
    with pytest.raises(TemplateError, match="differ in length"):
        two.bind({"pairs": [(iri("dbr:A"),), (iri("dbr:B"), iri("dbr:C"))]})


def test_curies_and_bracketed_iris():
    assert iri("dbo:birthPlace").value == "http://dbpedia.org/ontology/birthPlace"
    assert iri("<http://example.org/x>").value == "http://example.org/x"
    with pytest.raises(TermError, match="predicate"):
        iri("no scheme", field="predicate")
