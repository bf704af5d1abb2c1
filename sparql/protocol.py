"""One SPARQL 1.1 Protocol request to a remote endpoint, and what its answer says about itself.

The request is a form POST with the query, the KB's graphs (``default-graph-uri`` and
``named-graph-uri``) and nothing else: the result format is asked for by the Accept header only.
Extra format parameters (SPARQLWrapper's ``format=json&output=json&results=json``) make Virtuoso
answer 406 to any other Accept than JSON.

Three ways an answer can fail, kept apart because a user fixes each differently:

* ``Unreachable``: no HTTP answer at all (refused, DNS, timeout);
* ``EndpointHTTPError``: an HTTP answer other than 2xx, reported with its status and the start
  of its body (where Virtuoso and Oxigraph say what was wrong with the query);
* ``IncompleteAnswer``: a 2xx answer that says it is not the whole answer: Virtuoso's
  ``X-SQL-State`` headers of an "anytime" query stopped at its time limit. A row cap
  (``X-SPARQL-MaxRows``) is read by the caller, which knows how many rows it asked for.
"""
from __future__ import annotations

import urllib.error
import urllib.parse
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Iterator

from .messages import clipped
from .interface import StoreError

#: how much of an error body a message quotes
BODY_SHOWN = 300


class Unreachable(StoreError):
    """No HTTP answer from the endpoint."""

    client_status = 502


class EndpointHTTPError(StoreError):
    """The endpoint answered with an HTTP error status."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status
        # a query the endpoint could not parse is the client's fault; anything else is the endpoint's
        self.client_status = 400 if status == 400 else 502


class IncompleteAnswer(StoreError):
    """The endpoint's answer is, or may be, cut short: never to be used as data."""

    client_status = 422


@dataclass
class Reply:
    status: int
    headers: dict[str, str]  # lower-case names
    body: bytes
    #: the body not read yet (``SparqlHttp.opened``), read through ``read``
    stream: IO[bytes] | None = None
    url: str = ""

    def read(self, size: int | None = None) -> bytes:
        """Up to ``size`` bytes more of a streamed body (None: the rest); a connection lost midway is
        ``Unreachable``."""
        try:
            return self.stream.read(size)
        except OSError as error:
            raise Unreachable(f"endpoint {self.url} broke off its answer: {error}") from None

    @property
    def media_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip()

    @property
    def row_cap(self) -> int | None:
        """Virtuoso's ``X-SPARQL-MaxRows``: sent when an answer reached the server's row cap."""
        value = self.headers.get("x-sparql-maxrows", "").strip()
        return int(value) if value.isdigit() else None

    @property
    def server(self) -> str:
        return self.headers.get("server", "")

    @property
    def is_virtuoso(self) -> bool:
        return self.server.lower().startswith("virtuoso")


class SparqlHttp:
    def __init__(self, url: str, *, graphs: tuple[str, ...] = (), timeout: float = 300.0):
        self.url = url
        self.graphs = tuple(graphs)
        self.timeout = timeout

    def fields(self, query: str) -> list[tuple[str, str]]:
        # the KB's graphs make the default graph (their merge), as the union default graph of the
        # embedded store; named-graph-uri beside them made Virtuoso fail on ordered pages (SR014)
        return [("query", query)] + [("default-graph-uri", g) for g in self.graphs]

    def post(self, query: str, accept: str) -> Reply:
        """The answer, its body read whole."""
        with self.opened(query, accept) as reply:
            reply.body = reply.read()
        reply.stream = None
        return reply

    @contextmanager
    def opened(self, query: str, accept: str) -> Iterator[Reply]:
        """The answer with its body not read yet, for reading it as it comes (``reply.read``)."""
        request = urllib.request.Request(
            self.url, data=urllib.parse.urlencode(self.fields(query)).encode("utf-8"), method="POST",
            headers={"Accept": accept, "Content-Type": "application/x-www-form-urlencoded; charset=UTF-8",
                     "User-Agent": "factforge"})
        try:
            response = urllib.request.urlopen(request, timeout=self.timeout)
        except urllib.error.HTTPError as error:
            raise self._http_error(error) from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise Unreachable(f"endpoint {self.url} is unreachable: {reason}") from None
        with response:
            reply = Reply(response.status, {k.lower(): v for k, v in response.headers.items()}, b"",
                          stream=response, url=self.url)
            state = reply.headers.get("x-sql-state")
            if state:
                raise IncompleteAnswer(f"endpoint {self.url} sent a partial answer (SQL state {state}: "
                                       f"{clipped(reply.headers.get('x-sql-message', ''), BODY_SHOWN)}); it stopped "
                                       f"at its own time limit, so the answer is not used")
            yield reply

    def _http_error(self, error: urllib.error.HTTPError) -> EndpointHTTPError:
        try:
            body = error.read().decode("utf-8", "replace")
        except OSError:
            body = ""
        text = " ".join(body.split())
        shown = f": {clipped(text, BODY_SHOWN)}" if text else ""
        return EndpointHTTPError(f"endpoint {self.url} answered HTTP {error.code} {error.reason}{shown}", error.code)
