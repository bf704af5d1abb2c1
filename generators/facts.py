"""Facts as the generators pass them around, and the provenance of false ones.

A ``Fact`` is what a system under test sees (subject, predicate, object, and dates for dated
facts). A ``Negative`` wraps a false fact with how it was made; that part only ever goes to the
answers file.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, order=True)
class Fact:
    s: str
    p: str
    o: str
    start: str | None = None
    end: str | None = None

    @property
    def pair(self) -> tuple[str, str]:
        return (self.s, self.o)

    @property
    def triple(self) -> tuple[str, str, str]:
        return (self.s, self.p, self.o)


@dataclass(frozen=True)
class Negative:
    fact: Fact
    kind: str
    source: Fact
    detail: dict = field(default_factory=dict, compare=False, hash=False)

    def provenance(self) -> dict:
        return {"kind": self.kind, "source": {"subject": self.source.s, "predicate": self.source.p,
                                              "object": self.source.o}, **self.detail}
