"""Random walks that fetch what they lack on the spot, in a round that has lacked nothing so far.

Neighbourhood generation runs in rounds (``generators.neighbourhood``): a lookup that lacks links
notes them and answers from what is there, and the round's result is dropped. The walks of a
scenario share one seeded generator, source after source, so a walk that lacked a run drew from a
wrong count and every later source's draws came out different: a round put right the walks of a
few more sources only, and each round generated the whole scenario again (docs/performance.md,
issue 17's session-19 figures).

When everything a round read before its walks was whole, the walks read exactly what the whole
index's walks read, up to their first lack. So there a walk need not guess: ``WalkAhead`` asks the
reader for what the step lacks (the run's length and, unless it is a hub's run, its links, in
one query; the drawn link of a hub's run after the draw), at once, and takes the step as the whole index does: the run's length counted before the draw (so the
seeded draw is the same), the node at the drawn place in IRI order after it. Every source's walks
then come out as the whole index's in that one round. The rest of the round still reads the
round's index, which lacks what the walks fetched: the round is dropped as before, and the next
one reads it all from its index (``Neighbourhood.walked_ahead``). A round that lacked something
before its walks ends there instead (``WalksLack``, raised by ``Neighbourhood.walker``).

A node a walk reaches that the round's index does not hold gets a number past its entities for
the rest of the round's walks (``entities`` here names it); only names leave ``walk_ends``.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from .adjacency import Adjacency, steppable


class WalksLack(Exception):
    """A round whose walks would draw from what it lacks (a lookup before them lacked links): it
    ends there."""


class _Names:
    """The round index's entities, then the nodes walks reached beyond them."""

    def __init__(self, walker: "WalkAhead"):
        self.walker = walker

    def __getitem__(self, node: int) -> str:
        base = self.walker.base
        return self.walker.index.entities[node] if node < base else self.walker.extra[node - base]

    def __len__(self) -> int:
        return self.walker.base + len(self.walker.extra)


class WalkAhead:
    """``walk_step`` over a ``Neighbourhood`` that read only whole data so far, fetching what it lacks."""

    def __init__(self, index, reader):
        self.index = index
        self.reader = reader
        self.base = len(index.entities)
        self.extra: list[str] = []
        self.extra_ids: dict[str, int] = {}
        self.entities = _Names(self)
        # (name, signed step) -> the names at the other end, from this round's fetches: a run made
        # whole by them had all its links in them
        self.fetched: dict[tuple[str, int], set[str]] = {}
        self.whole: dict[tuple[str, int], list[str]] = {}  # runs known whole, in IRI order
        self.fetches = 0

    def step_name(self, step: int) -> str:
        return self.index.step_name(step)

    def node(self, name: str) -> int:
        found = Adjacency.id(self.index, name)  # not the index's own id(): that notes a lack
        if found is None:
            found = self.extra_ids.get(name)
            if found is None:
                found = self.extra_ids[name] = self.base + len(self.extra)
                self.extra.append(name)
        return found

    # --- what the reader holds -------------------------------------------------------------------
    def _fetch(self, picks: set) -> None:
        """The reader's ``fetch`` of these draws (entity, side, predicate IRI, k), its new links
        kept here by run."""
        lacking = SimpleNamespace(missing=set(), missing_runs=set(), missing_picks=set(picks), maybe_hubs=set(),
                                  missing_degrees=set(), missing_pairs=set(), missing_middles=set(),
                                  missing_shared=set())
        self._keeping(lambda: self.reader.fetch(lacking))

    def _fetch_runs(self, runs: set) -> None:
        """The length of each of these runs (entity, side, predicate IRI) and, where it is no hub's
        run, its links, in one round trip (``NeighbourhoodReader.fetch_walk_runs``), kept here by run."""
        if not self._keeping(lambda: self.reader.fetch_walk_runs(runs)):
            raise RuntimeError("a walk lacked runs that were already counted")  # a bug: it would loop

    def _keeping(self, fetch) -> int:
        """``fetch()``, the links it adds to the reader kept here by run as well."""
        links = self.reader.links

        def kept(s: str, p: int, o: str) -> None:
            self.fetched.setdefault((s, p + 1), set()).add(o)
            self.fetched.setdefault((o, -(p + 1)), set()).add(s)

        links.listener = kept
        try:
            done = fetch()
        finally:
            links.listener = None
        self.fetches += 1
        self.index.walked_ahead += 1
        return done

    def _whole_run(self, name: str, step: int) -> list[str] | None:
        """The run's names in IRI order when the reader holds it whole (fetched this round: the
        round's index did not), else None."""
        found = self.whole.get((name, step))
        if found is not None:
            return found
        side, predicate = self.index.side(step)
        reader = self.reader
        # every link of the scenario's predicate is in the index: a node it lacks has none of them
        if abs(step) - 1 == self.index.own_predicate or name in reader.complete \
                or (name, side, predicate) in reader.runs:
            found = self.whole[(name, step)] = sorted(self.fetched.get((name, step), ()))
        return found

    def _size(self, name: str, step: int) -> int | None:
        """The run's length counted in the store, None when not counted."""
        sizes = self.reader.sizes.get(name)
        if sizes is None:
            return self.reader.run_lengths.get((name, *self.index.side(step)))
        return sizes.get(self.index.side(step), 0)

    # --- the step ----------------------------------------------------------------------------------
    def walk_step(self, nodes: np.ndarray, steps: np.ndarray, rng, most: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """As ``Neighbourhood.walk_step`` over the whole index: each run's length is known before
        the one draw for all rows (fetched where lacking), the drawn node after it."""
        nodes, steps = np.asarray(nodes, dtype=np.int64), np.asarray(steps, dtype=np.int64)
        index = self.index
        inside = nodes < self.base
        whole = np.zeros(nodes.size, dtype=bool)
        whole[inside] = index._run_whole(nodes[inside], steps[inside])
        lo = np.zeros(nodes.size, dtype=np.int64)
        counts = np.zeros(nodes.size, dtype=np.int64)
        if whole.any():
            lo[whole], hi = Adjacency.follow_many(index, nodes[whole], steps[whole])
            counts[whole] = hi - lo[whole]
        rest = np.flatnonzero(~whole).tolist()
        names = {i: self.entities[int(nodes[i])] for i in rest}
        runs: dict[int, list[str]] = {}
        while True:
            lacking = set()
            for i in rest:
                if i in runs:
                    continue
                step = int(steps[i])
                run = self._whole_run(names[i], step)
                if run is not None:
                    runs[i] = run
                    counts[i] = len(run)
                    continue
                size = self._size(names[i], step)
                if size is None:
                    lacking.add((names[i], *index.side(step)))
                else:
                    counts[i] = size
            if not lacking:
                break
            self._fetch_runs(lacking)
        alive = steppable(counts, most)
        k = rng.integers(0, counts[alive])
        reached = nodes[alive].copy()
        at = np.flatnonzero(alive)
        whole_alive = whole[alive]
        if whole_alive.any():
            reached[whole_alive] = index.at_runs(lo[alive][whole_alive] + k[whole_alive], steps[alive][whole_alive] > 0)
        todo = np.flatnonzero(~whole_alive).tolist()
        while todo:
            lacking, left = set(), []
            for j in todo:
                i, draw = int(at[j]), int(k[j])
                name, step = names[i], int(steps[i])
                side, predicate = index.side(step)
                run = runs.get(i)
                if run is None:
                    run = self._whole_run(name, step)
                if run is not None:
                    reached[j] = self.node(run[draw])
                    continue
                other = self.reader.picked.get((name, side, predicate, draw))
                if other is not None:
                    reached[j] = self.node(other)
                    continue
                lacking.add((name, side, predicate, draw))
                left.append(j)
            if lacking:
                self._fetch(lacking)
            todo = left
        return alive, reached
