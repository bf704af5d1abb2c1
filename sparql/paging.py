"""Reading a SELECT answer from an endpoint page by page, so that no server cap can cut it short.

A SELECT whose own LIMIT fits in one page is sent as it is (its ORDER BY holds). Any other is
wrapped as a subquery, whatever its own modifiers (LIMIT, OFFSET, ORDER BY, GROUP BY, VALUES), and
asked for in pages of ``LIMIT size`` in a total order: first the text of the key (the first
projected variable, ``COALESCE(STR(?key), "")``), then every projected variable, so that rows
that tie are equal. The next page starts after the last key read (keyset paging): ``FILTER(text
of key >= last)`` and an OFFSET of only the rows of that key already read, so a page sorts what
is left instead of the whole answer again. Where the last key's text cannot be told exactly from
the answer (a typed literal, whose lexical form an engine may rewrite, a blank node, an unbound
key, an empty string) that page starts at the OFFSET of every row read, in the same order.

A page with fewer rows than asked for ends the answer, unless the server cut it; ``remote`` finds
a cap from Virtuoso's ``X-SPARQL-MaxRows`` or by a probe (``probe_rows``: rows it asked for,
against what ``probe_count`` counts), asks again below it, and refuses what cannot be paged.

Virtuoso refuses an outer ORDER BY past ``OFFSET + LIMIT`` of 10,000 rows (error SR353, "Sorted
TOP clause"); for it such a page has the order inside a subquery and the slice outside, the form
its documentation gives for paging; it keeps the subquery's order.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from pyoxigraph import Literal

#: Virtuoso refuses ``ORDER BY ... LIMIT l OFFSET k`` with ``k + l`` above this (SR353)
SORTED_TOP = 10_000
XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"

_PROLOGUE = re.compile(r"\s*(?:#[^\n]*\n|PREFIX\s+[A-Za-z0-9_.\-]*:\s*<[^>]*>|BASE\s*<[^>]*>)", re.IGNORECASE)
_SELECT = re.compile(r"\bSELECT\b", re.IGNORECASE)
_MODIFIER = re.compile(r"\s*(DISTINCT|REDUCED)\b", re.IGNORECASE)
_VARIABLE = re.compile(r"[?$]([A-Za-z0-9_\u00B7\u00C0-\uFFFF]+)")
_WHERE = re.compile(r"\bWHERE\b", re.IGNORECASE)
_DATASET = re.compile(r"\bFROM\s+(NAMED\s+)?<", re.IGNORECASE)
#: what may hold braces or keywords that are not the query's own: strings, IRIs, comments
_OPAQUE = re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*"""|\'\'\'(?:[^\'\\]|\\.|\'(?!\'\'))*\'\'\''
                     r'|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|<[^<>"{}|^`\\\x00-\x20]*>|#[^\n]*')
_LIMIT = re.compile(r"\bLIMIT\s+(\d+)", re.IGNORECASE)
_VALUES = re.compile(r"\bVALUES\b", re.IGNORECASE)
_BRACKET = re.compile(r"[(){}]")


@dataclass
class Select:
    """A SELECT query split where a wrapper needs it: the prologue (PREFIX, BASE) and the rest."""

    prologue: str
    body: str
    variables: list[str] | None  # None for SELECT *
    limit: int | None = None     # its own top-level LIMIT

    @classmethod
    def parse(cls, query: str) -> "Select | None":
        """None when the text is not a SELECT this module can wrap (then it is sent as it is)."""
        position = _prologue_end(query)
        body = query[position:]
        if not _SELECT.match(body.lstrip()):
            return None
        head = body.lstrip()[len("SELECT"):]
        head = head[_MODIFIER.match(head).end():] if _MODIFIER.match(head) else head
        variables = _projection(head)
        if variables == [] or _DATASET.search(body):  # a subquery may not name graphs
            return None
        return cls(query[:position], body, variables, _top_limit(body))

    def variables_query(self) -> str:
        """One row of the query, wrapped (its own modifiers kept), for the variables of ``SELECT *``."""
        return f"{self.prologue}\nSELECT * WHERE {{ {{ {self.body}\n}} }}\nLIMIT 1"

    def count(self) -> str:
        """The number of rows of the query, counted by the server: one row, which no cap cuts."""
        return f"{self.prologue}\nSELECT (COUNT(*) AS ?n) WHERE {{ {{ {self.body}\n}} }}"

    def page(self, order: list[str], size: int, *, offset: int = 0, after: str | None = None,
             nested: bool = False) -> str:
        """``size`` rows in the total order, from ``offset`` rows past the first whose key's text is
        at least ``after`` (from the start when None). ``nested``: Virtuoso's form past SORTED_TOP."""
        key = f'COALESCE(STR(?{order[0]}), "")'
        where = f"{{ {self.body}\n}}"
        if after is not None:
            where += f" FILTER({key} >= {Literal(after)})"
        keys = f"({key}) " + " ".join(f"?{name}" for name in order)
        if nested:
            return (f"{self.prologue}\nSELECT * WHERE {{ {{ SELECT * WHERE {{ {where} }} ORDER BY {keys} }} }}"
                    f"\nLIMIT {size} OFFSET {offset}")
        return f"{self.prologue}\nSELECT * WHERE {{ {where} }}\nORDER BY {keys}\nLIMIT {size} OFFSET {offset}"


class Cursor:
    """Where the next page starts: the rows read, and the run of rows at their end whose key has
    the same text (in the total order those are every row read with that key's text)."""

    def __init__(self, key: str):
        self.key = key
        self.read = 0
        self.run_text: str | None = None
        self.run = 0
        self.last_keyable = False

    def advance(self, bindings: list[dict]) -> None:
        for binding in bindings:
            text = _text(binding.get(self.key))
            if text is not None and text == self.run_text:
                self.run += 1
            else:
                self.run_text, self.run = text, 1
        self.read += len(bindings)
        self.last_keyable = bool(bindings) and _keyable(bindings[-1].get(self.key))

    def start(self, keyset: bool) -> tuple[int, str | None]:
        """(offset, after) of the next page."""
        if keyset and self.last_keyable:
            return self.run, self.run_text
        return self.read, None


def _text(value: dict | None) -> str | None:
    """STR() of a term of a JSON answer: an IRI's or a literal's text; None for a blank node or unbound."""
    if value is None or value.get("type") not in ("uri", "literal", "typed-literal"):
        return None
    return value.get("value")


def _keyable(value: dict | None) -> bool:
    """Whether the engine's STR() of this term is surely the text the answer shows: IRIs and
    string literals (an engine may rewrite a number's or a date's lexical form)."""
    if value is None or not value.get("value"):
        return False
    if value.get("type") == "uri":
        return True
    return value.get("type") in ("literal", "typed-literal") and value.get("datatype") in (None, XSD_STRING,
                                                                                          LANG_STRING)


def _top_limit(body: str) -> int | None:
    """The LIMIT of the query itself (not of a subquery): after the WHERE clause's closing brace."""
    text = _OPAQUE.sub(lambda match: " " * len(match.group()), body)
    depth, parens, start = 0, 0, None
    for bracket in _BRACKET.finditer(text):  # only brackets matter: a VALUES batch is long
        index, char = bracket.start(), bracket.group()
        if char == "(":
            parens += 1
        elif char == ")":
            parens -= 1
        elif char == "{" and (parens == 0 or start is not None):
            start = index if start is None else start
            depth += 1
        elif char == "}" and start is not None:
            depth -= 1
            if depth == 0:
                tail = text[index + 1:]
                values = _VALUES.search(tail)
                limit = _LIMIT.search(tail[:values.start()] if values else tail)
                return int(limit.group(1)) if limit else None
    return None


def _prologue_end(query: str) -> int:
    position = 0
    while match := _PROLOGUE.match(query, position):
        position = match.end()
    return position


def _projection(head: str) -> list[str] | None:
    """The projected variables of a SELECT clause (the text after SELECT [DISTINCT]): ``?x`` at
    the top level, and the ``AS ?y`` of each ``(expression AS ?y)``; None for ``*``."""
    if head.lstrip().startswith("*"):
        return None
    names: list[str] = []
    depth = 0
    index = 0
    while index < len(head):
        char = head[index]
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "{" and depth == 0:
            break
        elif depth == 0 and _WHERE.match(head, index) and (index == 0 or not head[index - 1].isalnum()):
            break
        elif char in "?$":
            match = _VARIABLE.match(head, index)
            if match:
                if depth == 0 or _ends_alias(head, index):
                    names.append(match.group(1))
                index = match.end()
                continue
        index += 1
    return names


def _ends_alias(head: str, index: int) -> bool:
    """Whether the variable at ``index`` is the ``?y`` of ``AS ?y)``."""
    return bool(re.search(r"\bAS\s*$", head[:index], re.IGNORECASE))


def probe_rows(rows: int) -> str:
    """A SELECT of exactly ``rows`` rows on any server and any KB, the KB untouched: a product of
    digit VALUES (one variable projected, so the rows are small)."""
    digits = max(1, math.ceil(math.log10(rows + 1)))
    values = " ".join(f"VALUES ?d{i} {{ 0 1 2 3 4 5 6 7 8 9 }}" for i in range(digits))
    return f"SELECT ?d0 WHERE {{ {values} }} LIMIT {rows}"


def probe_count(rows: int) -> str:
    """The number of rows ``probe_rows(rows)`` has, counted by the server: one row, never cut."""
    return f"SELECT (COUNT(*) AS ?n) WHERE {{ {probe_rows(rows)} }}"


_FORM = re.compile(r"\s*(SELECT|ASK|CONSTRUCT|DESCRIBE)\b", re.IGNORECASE)


def query_form(query: str) -> str | None:
    """SELECT, ASK, CONSTRUCT or DESCRIBE, read after the prologue; None when it is none of them."""
    form = _FORM.match(query, _prologue_end(query))
    return form.group(1).upper() if form else None
