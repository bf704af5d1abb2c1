"""``/sparql``: the SPARQL 1.1 Protocol for queries, read-only, with CORS for outside consoles.

GET ``?query=``, POST ``application/sparql-query``, POST form-encoded ``query=``. Updates (the
``update`` parameter, ``application/sparql-update``, or update text) get 403. The answer format
comes from ``Accept`` (or ``?format=``): SELECT/ASK as SPARQL JSON, XML, CSV or TSV; CONSTRUCT and
DESCRIBE as Turtle, N-Triples, JSON-LD or RDF/XML.
"""
from __future__ import annotations

from urllib.parse import unquote_to_bytes

from flask import Blueprint, Response, redirect, request, url_for

from factforge.sparql.messages import clipped
from factforge.sparql.result_formats import offers

from .errors import ApiError
from .negotiation import choose
from .query_runner import QueryRefused, query_form
from .sparql_fastpath import REFUSED
from .state import state

endpoint = Blueprint("sparql", __name__)

RESULT_OFFERS = offers(graph=False)
GRAPH_OFFERS = offers(graph=True)
CORS = {"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
        "Access-Control-Allow-Headers": "Content-Type, Accept", "Access-Control-Max-Age": "86400"}


@endpoint.after_request
def _cors(response: Response) -> Response:
    if request.path == "/sparql":
        response.headers.update(CORS)
    return response


@endpoint.route("/sparql", methods=["OPTIONS"])
def preflight():
    return Response(status=204)


@endpoint.route("/sparql", methods=["GET", "POST"])
def sparql():
    text = _query_text()
    if text is None:
        if request.method in ("GET", "HEAD") and request.accept_mimetypes.best == "text/html":
            return redirect(url_for("console.page"))
        raise ApiError(400, "query: missing (GET ?query=, POST application/sparql-query, or POST form query=)", "query")
    for name in ("default-graph-uri", "named-graph-uri"):
        if request.values.get(name):
            raise ApiError(400, f"{name}: not supported; the dataset is the union of all graphs (use GRAPH in the query)", name)
    form = query_form(text)
    if form in ("CONSTRUCT", "DESCRIBE"):
        result_format, graph_format = "json", choose(GRAPH_OFFERS, "turtle")
    elif form in ("SELECT", "ASK"):
        result_format, graph_format = choose(RESULT_OFFERS, "json"), "turtle"
    else:  # an update or unparseable text: the runner explains which
        result_format, graph_format = "json", "turtle"
    try:
        refused = request.environ.get(REFUSED)  # already run by server/sparql_fastpath.py and refused
        if refused is not None:
            raise refused
        answer = state().runner.run(text, result_format, graph_format)
    except QueryRefused as refused:
        raise ApiError(refused.status, refused.message, "query", refused.headers) from None
    size = answer.size
    response = Response(answer.chunks(), mimetype=answer.media_type)
    response.headers["Content-Length"] = str(size)
    response.headers["Vary"] = "Accept"
    if answer.rows is not None:
        response.headers["X-Result-Rows"] = str(answer.rows)
    return response


def _query_text() -> str | None:
    if request.method in ("GET", "HEAD"):  # Flask answers HEAD with GET's view, less the body
        _check_utf8(request.query_string)
        if "update" in request.args:
            raise ApiError(403, "update: this endpoint is read-only", "update")
        return request.args.get("query")
    media = (request.mimetype or "").lower()
    if media == "application/sparql-update":
        raise ApiError(403, "this endpoint is read-only: SPARQL updates are refused", "Content-Type")
    if media == "application/sparql-query":
        try:
            return request.get_data(cache=True).decode("utf-8")
        except UnicodeDecodeError:
            raise ApiError(400, "body: the query is not UTF-8", "body") from None
    if media == "application/x-www-form-urlencoded":
        _check_utf8(request.get_data(cache=True))  # the form is parsed from the cached bytes
    if media in ("application/x-www-form-urlencoded", "multipart/form-data"):
        if "update" in request.form:
            raise ApiError(403, "update: this endpoint is read-only", "update")
        return request.form.get("query")
    raise ApiError(415, f"Content-Type: {media or 'none'} is not application/sparql-query or a form", "Content-Type")


def _check_utf8(encoded: bytes) -> None:
    """400 naming the first parameter that is not UTF-8 once percent-decoded. werkzeug keeps such
    bytes as the text ``%FF``, so the query would run as text nobody sent."""
    for pair in encoded.split(b"&"):
        name, _, value = (unquote_to_bytes(part.replace(b"+", b" ")) for part in pair.partition(b"="))
        try:
            name.decode("utf-8")
            value.decode("utf-8")
        except UnicodeDecodeError:
            field = clipped(name.decode("utf-8", "replace"), 40)
            raise ApiError(400, f"{field}: not UTF-8 (percent-encode the UTF-8 bytes of the text)", field) from None
