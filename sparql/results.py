"""Serializing query answers that were read row by row, in the SPARQL 1.1 result formats.

pyoxigraph can serialize a result only by consuming its whole iterator, which leaves no place to
stop at a row cap or a deadline; the read-only endpoint therefore reads rows itself (with both
checks) and writes them here. Formats follow the W3C specs: SPARQL 1.1 Query Results JSON, XML,
CSV and TSV; graphs go through pyoxigraph's RDF serializers.
"""
from __future__ import annotations

import csv
import io
import itertools
import json
from typing import Iterable, Iterator, Sequence
from xml.sax.saxutils import escape, quoteattr

import pyoxigraph as ox

from .result_formats import GRAPH_MEDIA

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"

Row = Sequence[object]  # one term (or None when unbound) per variable, in variable order


def _json_term(term) -> dict:
    if isinstance(term, ox.NamedNode):
        return {"type": "uri", "value": term.value}
    if isinstance(term, ox.BlankNode):
        return {"type": "bnode", "value": term.value}
    if isinstance(term, ox.Triple):
        return {"type": "triple", "value": {"subject": _json_term(term.subject),
                                            "predicate": _json_term(term.predicate),
                                            "object": _json_term(term.object)}}
    out = {"type": "literal", "value": term.value}
    if term.language:
        out["xml:lang"] = term.language
    elif term.datatype.value != XSD_STRING:
        out["datatype"] = term.datatype.value
    return out


def json_chunks(variables: list[str], rows: Iterable[Row]) -> Iterator[str]:
    """The text of ``json.dumps`` of the whole answer, a row at a time."""
    yield '{"head": {"vars": ' + json.dumps(variables, ensure_ascii=False) + '}, "results": {"bindings": ['
    separator = ""
    for row in rows:
        binding = {name: _json_term(term) for name, term in zip(variables, row) if term is not None}
        yield separator + json.dumps(binding, ensure_ascii=False)
        separator = ", "
    yield "]}}"


def _xml_term(term) -> str:
    if isinstance(term, ox.NamedNode):
        return f"<uri>{escape(term.value)}</uri>"
    if isinstance(term, ox.BlankNode):
        return f"<bnode>{escape(term.value)}</bnode>"
    if isinstance(term, ox.Triple):
        return (f"<triple><subject>{_xml_term(term.subject)}</subject><predicate>{_xml_term(term.predicate)}"
                f"</predicate><object>{_xml_term(term.object)}</object></triple>")
    if term.language:
        return f"<literal xml:lang={quoteattr(term.language)}>{escape(term.value)}</literal>"
    if term.datatype.value != XSD_STRING:
        return f"<literal datatype={quoteattr(term.datatype.value)}>{escape(term.value)}</literal>"
    return f"<literal>{escape(term.value)}</literal>"


_XML_HEAD = '<?xml version="1.0"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">'


def xml_chunks(variables: list[str], rows: Iterable[Row]) -> Iterator[str]:
    yield "".join([_XML_HEAD, "<head>", *(f"<variable name={quoteattr(v)}/>" for v in variables), "</head><results>"])
    for row in rows:
        yield "".join(["<result>", *(f"<binding name={quoteattr(name)}>{_xml_term(term)}</binding>"
                                     for name, term in zip(variables, row) if term is not None), "</result>"])
    yield "</results></sparql>\n"


def _csv_term(term) -> str:
    if term is None:
        return ""
    if isinstance(term, ox.BlankNode):
        return f"_:{term.value}"
    if isinstance(term, ox.Triple):
        return str(term)
    return term.value


def csv_chunks(variables: list[str], rows: Iterable[Row]) -> Iterator[str]:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n")  # the CSV results spec asks for CRLF
    for line in itertools.chain([variables], ([_csv_term(term) for term in row] for row in rows)):
        writer.writerow(line)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()


def tsv_chunks(variables: list[str], rows: Iterable[Row]) -> Iterator[str]:
    # TSV results write terms in Turtle/N-Triples syntax, which is what str() of a pyoxigraph term is.
    yield "\t".join(f"?{v}" for v in variables) + "\n"
    for row in rows:
        yield "\t".join("" if term is None else str(term) for term in row) + "\n"


def ask_bytes(value: bool, name: str) -> bytes:
    if name == "json":
        return json.dumps({"head": {}, "boolean": bool(value)}).encode()
    if name == "xml":
        return f"{_XML_HEAD}<head/><boolean>{'true' if value else 'false'}</boolean></sparql>\n".encode()
    if name == "csv":
        return f"_askResult\r\n{'true' if value else 'false'}\r\n".encode()
    return f"?_askResult\n{'true' if value else 'false'}\n".encode()


#: each SELECT format's text, a row at a time (an answer written as it is read)
SELECT_CHUNKS = {"json": json_chunks, "xml": xml_chunks, "csv": csv_chunks, "tsv": tsv_chunks}


def select_bytes(name: str, variables: list[str], rows: Iterable[Row]) -> bytes:
    return "".join(SELECT_CHUNKS[name](variables, rows)).encode("utf-8")


def graph_bytes(triples: Iterable[ox.Triple], name: str) -> bytes:
    rdf_format, _media = GRAPH_MEDIA[name]
    return ox.serialize(list(triples), format=rdf_format)
