"""What an endpoint's answers cost in time, as a neighbourhood reader saw them, for its choice
between a hub run's draws and the whole run.

A walk's draw from a hub's run is one row, but its query sorts the run in the store (the draw is
the k-th node in IRI order, ORDER BY and OFFSET); the run read whole is one unordered query of all
its rows. Engines differ by far: Virtuoso draws in about the time of reading the run, Oxigraph's
sort costs many times that (docs/endpoints.md, dialect differences). So the reader keeps to the
draws (fewest rows) unless the store has shown that it sorts slowly: a draw costs more than
``SLOW_SORT`` times reading the same run. Only reads of runs are timed (``entity_{side}_runs``, the
draws' own shape unordered): a VALUES batch of entities' links or of walk runs with their counts is
another query, and its cost a row says little of a run's. The comparison is per link, the least of
each seen, which under-rates long runs' draws (a sort's cost a link grows with the run): a known
gap (docs/performance.md, "Draws from long runs at 10M, seed 2"). Only answers over ``TIMED_LINKS`` are timed: below that,
a query's fixed cost (parse, HTTP) is most of its time, and what is measured there says nothing of
sorting. Times change the fetch plan only, never what a scenario is made of (each round is made
again until nothing is missing).
"""
from __future__ import annotations

from dataclasses import dataclass

#: runs and answers of at least this many links are timed
TIMED_LINKS = 4_000
#: a draw costing more than this many times the run's unordered read marks the store as sorting slowly
SLOW_SORT = 4.0


@dataclass
class ReadCosts:
    """Seconds per link of a draw's run, and per row of an unordered link answer: the least seen
    (the least disturbed by other work on the machine), None until timed."""

    draw_per_link: float | None = None
    read_per_row: float | None = None

    def drew(self, run_links: int, seconds: float) -> None:
        if run_links >= TIMED_LINKS:
            self.draw_per_link = _least(self.draw_per_link, seconds / run_links)

    def read(self, rows: int, seconds: float) -> None:
        if rows >= TIMED_LINKS:
            self.read_per_row = _least(self.read_per_row, seconds / rows)

    def unweighed(self, run_links: int) -> bool:
        """Would a draw from a run this long be timed with no unordered read to weigh it against?"""
        return run_links >= TIMED_LINKS and self.read_per_row is None

    @property
    def sorts_slowly(self) -> bool:
        return (self.draw_per_link is not None and self.read_per_row is not None
                and self.draw_per_link > SLOW_SORT * self.read_per_row)


def _least(old: float | None, new: float) -> float:
    return new if old is None else min(old, new)
