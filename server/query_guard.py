"""What ``/sparql`` checks in query text before any SPARQL engine sees it.

* **Size and nesting.** Oxigraph's parser and planner recurse on nested groups, brackets, blank
  nodes and chains of unary operators; deep enough nesting overflows a thread's stack and kills
  the whole process (a segfault: nothing can catch it). Queries run in a child process on a big
  stack (server/query_host.py), so a crash costs only that child; refusing deep nesting here turns
  the common forms into a clear 400 instead of a crash or a stopped worker.
* **SERVICE.** A federated query makes the server call another host and hand back its answer (or
  its error): a way to reach hosts behind our network and to scan ports. It is refused unless the
  operator lists the endpoint (``serve --service-allow IRI``), written in full as ``<IRI>``.

The scanner reads SPARQL's lexical structure only (strings, IRIs, comments, variables, names),
so a bracket or the word SERVICE inside a string, an IRI or a comment is not counted.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field



class QueryRefused(Exception):
    """The query cannot be answered; ``status`` is the HTTP status that says why."""

    def __init__(self, status: int, message: str, headers: dict | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


#: IRIREF of the SPARQL grammar (any character but these between < and >), with the \\u escapes
#: that SPARQL resolves before parsing
_IRI = re.compile(r'<(?:[^<>"{}|^`\\\x00-\x20]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*>')
_NAME = re.compile(r"[^\s{}()\[\]<>\"'#,;!=*+/&|^?$@.][^\s{}()\[\]<>\"'#,;!=*+/&|^?$@]*")
_VARIABLE = re.compile(r"[?$][^\s{}()\[\]<>\"'#,;!=*+/&|^?$@.]*")
_UCHAR = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")
_OPENERS, _CLOSERS, _UNARY = "{([", "})]", "!+-"


@dataclass(frozen=True)
class QueryLimits:
    max_length: int = 256 * 1024      # characters of query text
    max_depth: int = 256              # nested groups, brackets, blank nodes and unary operators
    service_allow: frozenset[str] = field(default_factory=frozenset)


def check_query(text: str, limits: QueryLimits) -> None:
    """Raise QueryRefused if the text is too long, nested too deep, or calls a SERVICE not allowed."""
    if len(text) > limits.max_length:
        raise QueryRefused(400, f"query: {len(text)} characters, more than the limit of {limits.max_length}")
    depth = unary_run = 0
    expect_service_target = False
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char.isspace():
            i += 1
            continue
        if char in _UNARY:
            unary_run += 1
            if depth + unary_run > limits.max_depth:
                raise _too_deep(limits)
            i += 1
            continue
        unary_run = 0
        if char == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end + 1
            continue
        if char in "\"'":
            i = _string_end(text, i)
            continue
        if char == "<":
            iri = _IRI.match(text, i)
            if iri:
                if expect_service_target:
                    _check_service_iri(_unescape(iri.group()[1:-1]), limits)
                    expect_service_target = False
                i = iri.end()
                continue
        elif char in _OPENERS:
            depth += 1
            if depth > limits.max_depth:
                raise _too_deep(limits)
        elif char in _CLOSERS:
            depth = max(0, depth - 1)
        elif char in "?$":
            variable = _VARIABLE.match(text, i)
            if expect_service_target:
                raise _service_refused(limits, f"SERVICE {variable.group()}: a variable endpoint")
            i = variable.end()
            continue
        else:
            name = _NAME.match(text, i)
            if name:
                word = name.group()
                if expect_service_target and word.upper() != "SILENT":
                    raise _service_refused(limits, f"SERVICE {word[:200]}: write the endpoint as a full <IRI>")
                if ":" not in word and "SERVICE" in word.upper() and word.upper() != "SERVICE":
                    # the parser may split a run like 1SERVICE into a number and the keyword
                    raise _service_refused(limits, f"{word[:200]}: write SERVICE as a word of its own")
                if word.upper() == "SERVICE":
                    if not limits.service_allow:
                        raise _service_refused(limits, "SERVICE")
                    expect_service_target = True
                i = name.end()
                continue
        if expect_service_target:
            raise _service_refused(limits, "SERVICE without an endpoint IRI")
        i += 1


def _string_end(text: str, start: int) -> int:
    """Index after the string literal starting at ``start`` (to the end if it is not closed: the
    parser then reports the syntax error)."""
    quote = text[start]
    if text.startswith(quote * 3, start):
        end = start + 3
        while True:
            end = text.find(quote * 3, end)
            if end < 0:
                return len(text)
            if _escaped(text, end):
                end += 1
                continue
            return end + 3
    end = start + 1
    while end < len(text):
        char = text[end]
        if char == "\\":
            end += 2
            continue
        if char == quote or char == "\n":
            return end + 1
        end += 1
    return len(text)


def _escaped(text: str, at: int) -> bool:
    slashes = 0
    while at - slashes - 1 >= 0 and text[at - slashes - 1] == "\\":
        slashes += 1
    return slashes % 2 == 1


def _unescape(iri: str) -> str:
    """SPARQL's \\uXXXX escapes in an IRI, resolved as the parser resolves them."""
    return _UCHAR.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)), iri)


def _check_service_iri(iri: str, limits: QueryLimits) -> None:
    if iri not in limits.service_allow:
        raise _service_refused(limits, f"SERVICE <{iri[:200]}>: not one of the allowed endpoints")


def _service_refused(limits: QueryLimits, what: str) -> QueryRefused:
    if not limits.service_allow:
        return QueryRefused(403, "query: SERVICE (federated query) is off on this endpoint: it would make the "
                                 "server call other hosts")
    return QueryRefused(403, f"query: {what}; this endpoint allows SERVICE only to the endpoints its operator "
                             f"listed (serve --service-allow)")


def _too_deep(limits: QueryLimits) -> QueryRefused:
    return QueryRefused(400, f"query: nested deeper than the limit of {limits.max_depth} levels "
                             f"(groups, brackets, blank nodes, collections and unary operators)")
