"""What an endpoint's answers cost in time, as a neighbourhood reader saw them, for its choice
between a hub run's draws and the whole run.

A walk's draw from a hub's run is one row, but its query sorts the run in the store (the draw is
the k-th node in IRI order, ORDER BY and OFFSET); the run read whole is one unordered query of all
its rows. Engines differ by far: Virtuoso draws in about the time of reading the run, Oxigraph's
sort costs many times that (docs/endpoints.md, dialect differences). The reader keeps to draws
(fewest rows) unless the draws a run is expected to get, together, would cost more than
``SLOW_SORT`` reads of the run (``reads_whole``).

A draw's cost is modelled as a sort's, in proportion to n·log2(n) for a run of n links, and a
read's in proportion to n: a draw's cost per link grows with the run, so a cost per link measured
on a short run under-rated a long run's draws, and Oxigraph went on drawing where reading the run
took a fraction of the time (docs/performance.md, "Draws weighed as sorts of their own run").
Each factor is the least seen (the least disturbed by other work on the machine). Only reads of
runs are timed (``entity_{side}_runs``, the draws' own shape unordered): a VALUES batch of
entities' links or of walk runs with their counts is another query, and its cost a row says
little of a run's. Only answers over ``TIMED_LINKS`` are timed: below that, a query's fixed cost
(parse, HTTP) is most of its time, and what is measured there says nothing of sorting. Times
change the fetch plan only, never what a scenario is made of (each round is made again until
nothing is missing).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

#: runs and answers of at least this many links are timed
TIMED_LINKS = 4_000
#: a run's draws, together, may cost this many times the run's unordered read, to save its rows
SLOW_SORT = 4.0


def sort_steps(links: int) -> float:
    return links * math.log2(max(links, 2))


@dataclass
class ReadCosts:
    """Seconds per sort step (n·log2 n) of a draw from a run of n links, and per row of an
    unordered read of a run: the least seen, None until timed."""

    draw_per_step: float | None = None
    read_per_row: float | None = None

    def drew(self, run_links: int, seconds: float) -> None:
        if run_links >= TIMED_LINKS:
            self.draw_per_step = _least(self.draw_per_step, seconds / sort_steps(run_links))

    def read(self, rows: int, seconds: float) -> None:
        if rows >= TIMED_LINKS:
            self.read_per_row = _least(self.read_per_row, seconds / rows)

    def unweighed(self, run_links: int) -> bool:
        """Would a draw from a run this long be timed with no unordered read to weigh it against?"""
        return run_links >= TIMED_LINKS and self.read_per_row is None

    def reads_whole(self, run_links: int, draws: int) -> bool:
        """Would ``draws`` draws from a run of this many links cost more than ``SLOW_SORT`` reads
        of the run? False until both a draw and a read were timed."""
        if self.draw_per_step is None or self.read_per_row is None or run_links < 1:
            return False
        return draws * self.draw_per_step * sort_steps(run_links) > SLOW_SORT * self.read_per_row * run_links


def _least(old: float | None, new: float) -> float:
    return new if old is None else min(old, new)
