"""The one table of SPARQL answer formats: each name, its media type, the other media types a
client may ask for it by, pyoxigraph's format for it, and how a person sees it (a label, a file
extension). The stores, the result writers, the /sparql route, its OpenAPI description,
``factforge query --format`` and the console (through ``/api/result-formats``) all read it.
"""
from __future__ import annotations

from dataclasses import dataclass

import pyoxigraph as ox


@dataclass(frozen=True)
class ResultFormat:
    name: str
    media_type: str
    oxigraph: ox.QueryResultsFormat | ox.RdfFormat
    #: other media types that ask for this format in an Accept header
    aliases: tuple[str, ...] = ()
    label: str = ""
    extension: str = ""

    @property
    def graph(self) -> bool:
        """For CONSTRUCT and DESCRIBE answers (an RDF graph), not SELECT and ASK ones."""
        return isinstance(self.oxigraph, ox.RdfFormat)


FORMATS: tuple[ResultFormat, ...] = (
    ResultFormat("json", "application/sparql-results+json", ox.QueryResultsFormat.JSON, ("application/json",),
                 label="JSON", extension="json"),
    ResultFormat("xml", "application/sparql-results+xml", ox.QueryResultsFormat.XML, ("application/xml", "text/xml"),
                 label="XML", extension="srx"),
    ResultFormat("csv", "text/csv", ox.QueryResultsFormat.CSV, label="CSV", extension="csv"),
    ResultFormat("tsv", "text/tab-separated-values", ox.QueryResultsFormat.TSV, label="TSV", extension="tsv"),
    ResultFormat("turtle", "text/turtle", ox.RdfFormat.TURTLE, ("application/x-turtle",),
                 label="Turtle", extension="ttl"),
    # Virtuoso and older servers send N-Triples as text/plain
    ResultFormat("ntriples", "application/n-triples", ox.RdfFormat.N_TRIPLES, ("text/plain",),
                 label="N-Triples", extension="nt"),
    ResultFormat("jsonld", "application/ld+json", ox.RdfFormat.JSON_LD, ("application/json",),
                 label="JSON-LD", extension="jsonld"),
    ResultFormat("rdfxml", "application/rdf+xml", ox.RdfFormat.RDF_XML, label="RDF/XML", extension="rdf"),
)
BY_NAME = {f.name: f for f in FORMATS}

#: result format name → media type, for SELECT and ASK
RESULT_MEDIA = {f.name: f.media_type for f in FORMATS if not f.graph}
#: graph format name → (pyoxigraph format, media type), for CONSTRUCT and DESCRIBE
GRAPH_MEDIA = {f.name: (f.oxigraph, f.media_type) for f in FORMATS if f.graph}


def offers(*, graph: bool) -> list[tuple[str, str]]:
    """(media type, name) pairs for content negotiation: every main media type first, then the aliases."""
    chosen = [f for f in FORMATS if f.graph == graph]
    return [(f.media_type, f.name) for f in chosen] + [(alias, f.name) for f in chosen for alias in f.aliases]

