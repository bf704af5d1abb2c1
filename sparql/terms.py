"""RDF terms as the rest of factforge sees them: validated IRIs, literals, prefixes.

Every term that reaches a query passes through here. pyoxigraph's term classes are the
canonical representation for both backends, because they validate on construction and
serialize to escaped N-Triples syntax, which is also valid SPARQL syntax.
"""
from __future__ import annotations

import re

from pyoxigraph import BlankNode, Literal, NamedNode

from .messages import shown

Term = NamedNode | BlankNode | Literal

PREFIXES: dict[str, str] = {
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "owl": "http://www.w3.org/2002/07/owl#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "skos": "http://www.w3.org/2004/02/skos/core#",
    "foaf": "http://xmlns.com/foaf/0.1/",
    "schema": "http://schema.org/",
    "dbo": "http://dbpedia.org/ontology/",
    "dbr": "http://dbpedia.org/resource/",
    "wd": "http://www.wikidata.org/entity/",
    "ff": "https://w3id.org/factforge/vocab#",
}

RDF_TYPE = NamedNode(PREFIXES["rdf"] + "type")
RDFS_LABEL = NamedNode(PREFIXES["rdfs"] + "label")
RDFS_SUBCLASSOF = NamedNode(PREFIXES["rdfs"] + "subClassOf")
OWL_THING = NamedNode(PREFIXES["owl"] + "Thing")

# Predicates in these namespaces describe the schema or the documents, not the world:
# they are left out of entity degrees and of the paths that negatives are drawn from.
SCHEMA_NAMESPACES = (
    PREFIXES["rdf"], PREFIXES["rdfs"], PREFIXES["owl"], PREFIXES["skos"],
    "http://www.w3.org/ns/prov#", "http://purl.org/dc/terms/", "http://purl.org/dc/elements/1.1/",
    "http://purl.org/vocab/vann/", "http://www.w3.org/ns/shacl#",
)



class TermError(ValueError):
    """A value that should have been an RDF term is not one; the message says why."""


def iri(value: str | NamedNode, *, field: str = "iri") -> NamedNode:
    """Validate ``value`` as an absolute IRI (or a known prefix:name) and return it.

    ``field`` names the input in the error message, so a user sees which argument was wrong.
    """
    if isinstance(value, NamedNode):
        return value
    if not isinstance(value, str) or not value.strip():
        raise TermError(f"{field}: expected an IRI, got {shown(value)}")
    text = value.strip()
    if text.startswith("<") and text.endswith(">"):
        text = text[1:-1]
    # prefix:name, where the prefix is a known one and the rest is not an authority (http://...);
    # str.partition rather than a regex: type lookups validate thousands of IRIs per scenario
    prefix, colon, name = text.partition(":")
    if colon and prefix in PREFIXES and not name.startswith("//"):
        text = PREFIXES[prefix] + name
    try:
        return NamedNode(text)
    except ValueError as error:
        raise TermError(f"{field}: {shown(value)} is not a valid absolute IRI ({error})") from None


def literal(value: str | int | float | bool, *, datatype: str | None = None,
            language: str | None = None) -> Literal:
    """A literal; Python numbers and booleans get their XSD datatype."""
    if isinstance(value, bool):
        return Literal("true" if value else "false", datatype=iri("xsd:boolean"))
    if isinstance(value, int) and datatype is None:
        return Literal(str(value), datatype=iri("xsd:integer"))
    if isinstance(value, float) and datatype is None:
        return Literal(repr(value), datatype=iri("xsd:double"))
    try:
        if language:
            return Literal(str(value), language=language)
        if datatype:
            return Literal(str(value), datatype=iri(datatype, field="datatype"))
        return Literal(str(value))
    except ValueError as error:
        raise TermError(f"literal {shown(value)}: {error}") from None


def to_sparql(term: Term) -> str:
    """The term in SPARQL syntax; pyoxigraph's N-Triples form escapes everything needed."""
    if isinstance(term, (NamedNode, Literal)):
        return str(term)
    if isinstance(term, BlankNode):
        raise TermError("blank nodes cannot be sent to a query as parameters")
    raise TermError(f"not an RDF term: {shown(term)}")


def compact(term: Term | str) -> str:
    """A short human form (dbo:birthPlace) for display; the full IRI when no prefix fits."""
    value = term.value if isinstance(term, (NamedNode, Literal, BlankNode)) else str(term)
    for prefix, namespace in PREFIXES.items():
        if value.startswith(namespace) and _is_plain_local(value[len(namespace):]):
            return f"{prefix}:{value[len(namespace):]}"
    return value


def _is_plain_local(local: str) -> bool:
    return bool(local) and re.fullmatch(r"[A-Za-z_][\w.\-]*", local) is not None and not local.endswith(".")


def is_blank_name(value: str) -> bool:
    """Does an index entity's name (its term's value) name a blank node? An IRI is absolute, so it
    holds its scheme's ":"; a blank node label cannot (N-Triples' BLANK_NODE_LABEL), nor can the
    labels given to Virtuoso's blank nodes (``remote._blank``)."""
    return ":" not in value


def is_schema_predicate(predicate: str) -> bool:
    return predicate.startswith(SCHEMA_NAMESPACES)


def from_ntriples(text: str) -> Term:
    """Parse one term written in N-Triples syntax (as produced by ``to_sparql``)."""
    from pyoxigraph import RdfFormat, parse

    quads = list(parse(f"<urn:x:s> <urn:x:p> {text} .".encode(), format=RdfFormat.N_TRIPLES))
    return quads[0].object
