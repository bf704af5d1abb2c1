"""A WSGI fast path for the common ``/sparql`` request: ``GET /sparql?query=<SELECT or ASK>``.

Flask's part of a ``/sparql`` request (context, routing, ``Accept`` parsing, the response object,
the CORS hook) costs as much Python as evaluating a small lookup (docs/performance.md). This path runs
the same ``QueryRunner.run`` (same pool, time limit and row cap) and writes the same status,
headers and body as ``sparql_endpoint.sparql`` does, without Flask, for requests it can classify
with certainty:

* ``GET``, path ``/sparql``, a query string that is exactly one ``query=`` parameter;
* ``Accept`` absent, ``*/*``, or exactly one of the result media types (no list, no parameters);
* the query's form (read after its prologue) is SELECT or ASK.

Everything else goes to Flask untouched. When the runner refuses a query (syntax error 400, row
cap 422, time limit 503, a store error), the refusal is handed to the Flask view through the WSGI
environ, so the error response is Flask's own and the query is not run twice.
"""
from __future__ import annotations

from urllib.parse import parse_qsl

from werkzeug.utils import get_content_type

from factforge.sparql.result_formats import RESULT_MEDIA

from .fastpath import media_names
from .query_runner import QueryRefused, query_form

PATH = "/sparql"
#: environ key under which the fast path hands a refusal to the Flask view (clients cannot set
#: environ keys without the HTTP_ prefix, so this cannot come from a request)
REFUSED = "factforge.sparql.refused"


class SparqlFastPath:
    def __init__(self, app, runner, result_offers: list[tuple[str, str]], cors: dict[str, str]):
        self.app = app
        self.runner = runner
        self.by_media = media_names(result_offers)
        # The headers Flask writes, in its order: Response(mimetype=...) gives Content-Type and
        # Content-Length, the view adds Vary and X-Result-Rows, the blueprint's hook the CORS headers.
        self.content_type = {name: get_content_type(media, "utf-8") for name, media in RESULT_MEDIA.items()}
        self.cors = list(cors.items())
        self.hits = 0

    def _classify(self, environ) -> tuple[str, str] | None:
        """(query text, result format name) for a request this path may answer, else None."""
        if environ.get("REQUEST_METHOD") != "GET" or environ.get("PATH_INFO") != PATH:
            return None
        raw = environ.get("QUERY_STRING", "")
        if not raw.startswith("query="):
            return None
        try:  # as werkzeug splits request.args; bytes that are not UTF-8 are Flask's to refuse
            pairs = parse_qsl(raw.encode("latin-1").decode(), keep_blank_values=True, errors="strict")
        except (UnicodeError, ValueError):
            return None
        if len(pairs) != 1 or pairs[0][0] != "query" or not pairs[0][1]:
            return None
        accept = environ.get("HTTP_ACCEPT", "").strip()
        name = "json" if accept in ("", "*/*") else self.by_media.get(accept)
        if name is None:
            return None
        text = pairs[0][1]
        if query_form(text) not in ("SELECT", "ASK"):
            return None
        return text, name

    def __call__(self, environ, start_response):
        found = self._classify(environ)
        if found is None:
            return self.app(environ, start_response)
        text, name = found
        try:
            answer = self.runner.run(text, name, "turtle")
        except QueryRefused as refused:
            environ[REFUSED] = refused
            return self.app(environ, start_response)
        headers = [("Content-Type", self.content_type[name]), ("Content-Length", str(answer.size)),
                   ("Vary", "Accept")]
        if answer.rows is not None:
            headers.append(("X-Result-Rows", str(answer.rows)))
        headers += self.cors
        self.hits += 1
        start_response("200 OK", headers)
        return answer.chunks()
