"""A SPARQL 1.1 Query Results JSON body read as it arrives: one binding at a time.

The body of a large answer (every fact of a big predicate) is far larger than any one row, and
reading it whole holds it three times (the bytes, the parsed document, the rows). Here only a
buffer of the body and the binding being read are held: the document's other members (``head``,
``boolean``, anything else) are read whole, as they are small, and ``results.bindings`` is read
element by element with the standard library's decoder, so every binding is exactly the object
``json.loads`` of the whole body would have given. No other JSON is accepted.
"""
from __future__ import annotations

import codecs
import json
import re
from typing import Callable, Iterator

from .interface import StoreError

#: bytes asked of the stream at a time
CHUNK = 1 << 16
_SPACE = re.compile(r"[ \t\n\r]*")


class MalformedAnswer(StoreError):
    """The body is not SPARQL JSON results."""


class JsonResults:
    """The members of one answer: ``members`` holds each top-level member but ``results`` once it
    has been read past (``head`` comes first from every engine met, so it is known before the first
    binding); ``bindings()`` yields the bindings, and may be called once."""

    def __init__(self, read: Callable[[int], bytes]):
        self._read = read
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._json = json.JSONDecoder()
        self._text = ""
        self._at = 0
        self._ended = False
        self.members: dict = {}
        self.has_results = False

    @property
    def variables(self) -> list[str]:
        head = self.members.get("head")
        return list(head.get("vars", [])) if isinstance(head, dict) else []

    def bindings(self) -> Iterator[dict]:
        """Every binding, then the rest of the document (an error if it is not well formed)."""
        for name in self._members():
            if name == "results":
                self.has_results = True
                yield from self._results()
            else:
                self.members[name] = self._value()
        if self._peek() != "":
            raise MalformedAnswer(f"not a SPARQL JSON answer: text after its end at character {self._at}")

    def _results(self) -> Iterator[dict]:
        for name in self._members():
            if name != "bindings":
                self._value()
                continue
            for _ in self._items("[", "]"):
                binding = self._value()
                if not isinstance(binding, dict):
                    raise MalformedAnswer("not a SPARQL JSON answer: a binding is not an object")
                yield binding

    def _members(self) -> Iterator[str]:
        """The name of each member of an object, yielded when its value is next to read (the caller
        reads it)."""
        for _ in self._items("{", "}"):
            name = self._value()
            self._expect(":")
            yield name

    def _items(self, opening: str, closing: str) -> Iterator[None]:
        """Once per element of an array or member of an object, when it is next to read (the caller
        reads it), the commas between them and the closing bracket checked."""
        self._expect(opening)
        if self._peek() == closing:
            self._at += 1
            return
        while True:
            yield
            if self._separator(closing):
                return

    # --- reading -----------------------------------------------------------------------------------
    def _more(self, least: int = CHUNK) -> bool:
        """Read at least ``least`` more bytes into the buffer (dropping what was read), fewer only at
        the end of the body; False when it had ended already."""
        if self._ended:
            return False
        pieces, got = [], 0
        while got < least:
            piece = self._read(max(CHUNK, least - got))
            if not piece:
                self._ended = True
                break
            pieces.append(piece)
            got += len(piece)
        data = b"".join(pieces)
        self._text = self._text[self._at:] + self._decoder.decode(data, final=self._ended)
        self._at = 0
        return True

    def _peek(self) -> str:
        """The next character that is not white space ("" at the end), not consumed."""
        while True:
            self._at = _SPACE.match(self._text, self._at).end()
            if self._at < len(self._text) or not self._more():
                return self._text[self._at:self._at + 1]

    def _expect(self, char: str) -> None:
        found = self._peek()
        if found != char:
            raise MalformedAnswer(f"not a SPARQL JSON answer: {found or 'the end'!r} where {char!r} belongs")
        self._at += 1

    def _separator(self, closing: str) -> bool:
        """After a member or an element: True at ``closing`` (consumed), False at a comma."""
        found = self._peek()
        if found not in (",", closing):
            raise MalformedAnswer(f"not a SPARQL JSON answer: {found or 'the end'!r} where ',' or {closing!r} belongs")
        self._at += 1
        return found == closing

    def _value(self):
        """One whole JSON value, read further into the body until it is complete."""
        self._peek()
        while True:
            try:
                value, end = self._json.raw_decode(self._text, self._at)
            except json.JSONDecodeError as error:
                # a value longer than the buffer: read as much again, so that it is decoded anew only
                # a few times however long it is
                if self._more(max(CHUNK, len(self._text) - self._at)):
                    continue
                raise MalformedAnswer(f"not a SPARQL JSON answer: {error}") from None
            if end == len(self._text) and self._more():
                continue  # a number may go on in the next chunk
            self._at = end
            return value
