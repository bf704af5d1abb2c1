"""Neighbourhood generation: the part of an endpoint's KB a scenario reads, fetched as it is needed.

An endpoint's KB is not copied to the client (at DBpedia's size it would not fit in memory).
A scenario reads:

* the facts of its predicate (``predicate_facts``, paged like every SELECT);
* the degrees G of their entities, when Eq. 1 popularity ranks the facts: counted in the store
  (``entity_link_totals``, a VALUES batch of entities a query, a row each), and of the middle
  nodes of length-3 paths (hubs are not used there);
* every link of the entities its samplers search, walk and screen, to depth t around the sampled
  facts (``entity_links``, a VALUES batch of entities a query, one round a hop), in answers of at
  most ``ROW_CAP`` rows: the links of each entity are counted first (``entity_link_totals``; per
  predicate and direction, ``entity_link_degrees``, only where there are more than ``ROW_CAP``, or
  ``HUB_LINKS`` for a run's lookups), and a hub's are read a run (predicate and direction) a query,
  unordered, which the store shows whole (its COUNT) or pages where a cap cut it (``_fetch_run``,
  ``sparql.link_slices``);
* statistics aggregated in the store: the distinct subjects of the links of each predicate
  nearness reads (``predicate_link_subjects``, asked per predicate when first read: shared
  holders are compared with chance), and at leakage ``inverse``/``pair`` how many facts of the
  predicate each other predicate links back (``reverse_link_counts``: observed inverses).

``Neighbourhood`` is an ``Adjacency`` over what was fetched so far. Entities are numbered in IRI
order as in the whole index, and predicates are the whole KB's, so every choice that depends on
an order (sorted neighbours, a seeded pick among them) comes out the same. Each lookup that reads
an entity's links first checks that they were fetched whole; when not, the entity is noted as
``missing`` and the lookup answers from what is there. A lookup of one predicate's links of a node
in one direction (a run: a walk step, ``follow``) needs only that run (``missing_runs``); a walk's
seeded draw among a hub's run needs only the run's length, counted in the store, and the node at
the drawn place in IRI order (``missing_picks``, one row by ORDER BY and OFFSET), so a walk through
a long run reads a link of it, not the run; a run whose draws outnumber its
pages of ``ROW_CAP`` is read whole instead (each draw's query sorts the run in the store); walks
do not step along runs longer than the generators' hub size at all (``walk_step``'s ``most``).
Nearness reads of a hub only the runs it compares (``need_linked``: the shorter of two runs,
lengths counted in the store), and where it compares the holders two objects share and one's run
is a hub's, the store counts them (``need_shared_holders``, ``missing_shared``:
``shared_holders``, a VALUES batch of (x, y, predicate) a query); path search reads
only a hub's links to the nodes a path from the subject reaches (``links_among``,
``missing_pairs``: ``entity_pair_links``, a VALUES batch of pairs a query); of a middle node of
a length-3 path (x in s - x - y - o) path search reads no link: the store answers the distinct step
pairs x -b- y -c- o (``middle_steps``, ``missing_middles``: ``middle_step_pairs``, a VALUES batch
of (x, o, s) a query). ``generators.neighbourhood``
generates, fetches what was missing, and generates again until a run misses nothing: that run
read only whole neighbourhoods, so it made what the whole index makes.
"""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from pyoxigraph import Literal, NamedNode

from .adjacency import Adjacency, steppable
from .cache import StatsCache
from .fetched_links import FetchedLinks
from .link_slices import pack, plan
from .profiles import BATCH, batched, content_predicates, stable_key
from .read_costs import ReadCosts
from .store import Store
from .terms import SCHEMA_NAMESPACES, iri, is_schema_predicate
from .walk_ahead import WalkAhead, WalksLack

# Rows one link query may answer: a page of an endpoint store (``remote.PAGE_SIZE``), so that an
# answer is shown whole without a COUNT, and far below the 2^20 rows Virtuoso cuts answers at.
ROW_CAP = 10_000
# An entity with more links is a hub: a lookup of one predicate's links of it in one direction (a
# run) fetches that run, not the hub, and a walk through a run longer than this fetches only the
# link it drew (a query a draw: a shorter run costs fewer queries whole), unless the run's draws
# outnumber its slices (``slices``). Of a smaller entity a run is read whole where only runs
# were read of it (walk steps), and the entity whole where a lookup needs more (``fetch``).
HUB_LINKS = 1_000
# A lookup of a link by both its ends costs the store about as much as scanning this many links: a
# length-3 path's object is scanned once for its middles' step pairs (``fetch_middle_pairs``) unless
# its links outnumber this many times its middles' links (docs/performance.md)
LOOKUP_LINKS = 10


@dataclass
class Neighbourhood(Adjacency):
    """The links of the ``complete`` entities (all of them) and of the predicate (all its facts)."""

    complete: np.ndarray | None = None  # by entity id: were all its links fetched?
    absent: frozenset = frozenset()  # entities fetched whole that have no link at all
    known_degree: np.ndarray | None = None  # by entity id: its degree G counted in the store, or -1
    own_predicate: int = -1  # the scenario's predicate, every link of which is here
    reverse_counter: object = None  # predicate -> {predicate IRI: count}, asked of the store
    runs_whole: frozenset = frozenset()  # (node, signed step): every link of that run was fetched
    run_sizes: dict | None = None  # entity -> {(side, predicate IRI): links}, counted in the store
    run_lengths: dict = field(default_factory=dict)  # (entity, side, predicate IRI) -> links: one run counted
    link_totals: dict | None = None  # entity -> (links, links of content predicates), counted in the store
    picks: dict = field(default_factory=dict)  # (node, signed step, k) -> the run's k-th node
    missing: set = field(default_factory=set)  # entities whose links a lookup lacked
    missing_degrees: set = field(default_factory=set)  # entities whose degree a lookup lacked
    missing_runs: set = field(default_factory=set)  # (entity, side, predicate IRI) a lookup lacked
    missing_picks: set = field(default_factory=set)  # (entity, side, predicate IRI, k) a walk lacked
    # entities a lookup needs whole unless they are hubs: counted first, a hub is then read by run
    maybe_hubs: set = field(default_factory=set)
    # (node, other) * |entities| as int64, sorted: every link between the two was fetched (pair links)
    pairs_whole: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    missing_pairs: set = field(default_factory=set)  # (hub, other entity) whose links a lookup lacked
    # (middle, object, subject) names -> the signed step pairs the store answered (``middle_steps``)
    middle_pairs: dict = field(default_factory=dict)
    missing_middles: set = field(default_factory=set)  # (middle, object, subject) path search lacked
    # (x, y, predicate IRI) names, x < y -> the subjects holding both through the predicate, counted
    # in the store (``need_shared_holders``)
    shared_counts: dict = field(default_factory=dict)
    # such (x, y, predicate IRI) nearness lacked, x's run the shorter, and the two runs' lengths
    missing_shared: set = field(default_factory=set)
    _run_counts: dict = field(default_factory=dict)  # (node, side) -> {predicate id: links}
    # entity -> its asserted classes, sorted: the reader's, so that each round asks only new entities
    known_types: dict = field(default_factory=dict)
    # the reader, while this is the index of a round: walks may fetch what they lack through it
    walk_reader: object = None
    walked_ahead: int = 0  # fetches the round's walks made (``walker``): the index lacks those links
    _walk_ahead: object = None

    @property
    def lacks_links(self) -> bool:
        """Did a lookup read links that were not fetched (the answer may differ from the whole index's)?"""
        return bool(self.missing or self.missing_runs or self.missing_picks or self.maybe_hubs or self.missing_pairs
                    or self.missing_middles or self.missing_shared)

    # --- what was read but not fetched -----------------------------------------------------------
    def need(self, nodes) -> None:
        nodes = np.asarray(nodes, dtype=np.int64).ravel()
        nodes = nodes[nodes >= 0]
        lacking = nodes[~self.complete[nodes]]
        if lacking.size:
            self.missing.update(self.entities[i] for i in np.unique(lacking).tolist())

    def _run_whole(self, nodes: np.ndarray, steps: np.ndarray) -> np.ndarray:
        """Per (node, signed step) row: were all the links of that run fetched?"""
        whole = self.complete[nodes] | (np.abs(steps) - 1 == self.own_predicate)
        for i in np.flatnonzero(~whole).tolist():
            whole[i] = (int(nodes[i]), int(steps[i])) in self.runs_whole
        return whole

    def _need_runs(self, nodes, steps) -> None:
        """A lookup reads these runs (one predicate's links of a node in one direction): only they
        must be whole, not every link of a hub."""
        nodes, steps = np.asarray(nodes, dtype=np.int64).ravel(), np.asarray(steps, dtype=np.int64).ravel()
        for i in np.flatnonzero(~self._run_whole(nodes, steps)).tolist():
            self.missing_runs.add((self.entities[nodes[i]], *self.side(int(steps[i]))))

    def side(self, step: int) -> tuple[str, str]:
        """A signed step as the reader names a run: (direction, predicate IRI)."""
        return "out" if step > 0 else "in", self.predicates[abs(step) - 1]

    def _run_size(self, node: int, step: int) -> int | None:
        """How many links the run has in the KB, counted in the store; None: not counted yet."""
        sizes = (self.run_sizes or {}).get(self.entities[node])
        if sizes is None:
            return self.run_lengths.get((self.entities[node], *self.side(step)))
        return sizes.get(self.side(step), 0)

    def _counted_runs(self, node: int, side: str) -> dict[int, int] | None:
        """The node's links in one direction per predicate id: from its links when it is whole, else
        as counted in the store; None when not counted yet (noted in ``maybe_hubs``)."""
        key = (node, side)
        if key not in self._run_counts:
            if self.complete[node]:
                ptr, preds = (self.out_ptr, self.pred) if side == "out" else (self.in_ptr, self.in_pred)
                found, counts = np.unique(preds[ptr[node]:ptr[node + 1]], return_counts=True)
                self._run_counts[key] = dict(zip(found.tolist(), counts.tolist()))
            else:
                sizes = (self.run_sizes or {}).get(self.entities[node])
                if sizes is None:
                    self.maybe_hubs.add(self.entities[node])
                    return None
                self._run_counts[key] = {self.pindex[q]: n for (way, q), n in sizes.items()
                                         if way == side and q in self.pindex}
        return self._run_counts[key]

    def _open_pairs(self, a: np.ndarray, b: np.ndarray, *, either: bool) -> list[tuple[int, int]]:
        """The distinct (a[i], b[i]) rows with an end not fetched whole (``either``: with neither)."""
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        whole_a, whole_b = self.complete[a], self.complete[b]
        open_rows = ~(whole_a | whole_b) if either else ~(whole_a & whole_b)
        return sorted(set(zip(a[open_rows].tolist(), b[open_rows].tolist())))

    def need_linked(self, a, b, granular) -> None:
        """A link x -q-> y is in x's out-run of q and in y's in-run of q: for each granular q both
        ends have such a run of (counted in the store), the shorter run is enough. An end fetched
        whole has them all; an end not counted yet is fetched whole unless it is a hub."""
        nodes, steps = [], []
        for x, y in self._open_pairs(a, b, either=True):
            for one, other in ((x, y), (y, x)):
                outs, ins = self._counted_runs(one, "out"), self._counted_runs(other, "in")
                if outs is None or ins is None:
                    continue
                for q, n in outs.items():
                    m = ins.get(q, 0)
                    if m and granular[q]:
                        nodes.append(one if n <= m else other)
                        steps.append(q + 1 if n <= m else -(q + 1))
        self._need_runs(nodes, steps)

    def need_shared_holders(self, a, b, granular) -> None:
        """Holders of both a and b through q are in the shorter of their in-runs of q (counted in
        the store): where both runs are short, both are read. Where one is a hub's, the store counts
        the shared holders (``shared_counts``), one row instead of the shorter run and each of its
        holders' links. The runs' lengths come from the counts, never from reading a hub's run."""
        nodes, steps = [], []
        for x, y in self._open_pairs(a, b, either=False):
            ins_x, ins_y = self._counted_runs(x, "in"), self._counted_runs(y, "in")
            if ins_x is None or ins_y is None:
                continue
            for q, n in ins_x.items():
                m = ins_y.get(q, 0)
                if not (m and granular[q]):
                    continue
                if max(n, m) > HUB_LINKS:
                    if shared_key(self.entities[x], self.entities[y], self.predicates[q]) not in self.shared_counts:
                        (short, k), (long, length) = sorted(((x, n), (y, m)), key=lambda end: end[1])
                        self.missing_shared.add((self.entities[short], self.entities[long], self.predicates[q], k, length))
                    continue
                for node in (x, y):
                    nodes.append(node)
                    steps.append(-(q + 1))
        self._need_runs(nodes, steps)

    def counted_shared_holders(self, a, b, rows, preds, shared):
        """As over the whole index (``Adjacency.counted_shared_holders``): for a pair and predicate
        the store counted (a hub's run), its count, not what the links here say."""
        if not self.shared_counts:
            return rows, preds, shared
        pindex = {q: i for i, q in enumerate(self.predicates)}
        by_pair: dict[tuple[str, str], list[tuple[int, int]]] = {}
        for (x, y, q), n in self.shared_counts.items():
            by_pair.setdefault((x, y), []).append((pindex[q], n))
        counted: dict[tuple[int, int], int] = {}
        for i, (x, y) in enumerate(zip(np.asarray(a).tolist(), np.asarray(b).tolist())):
            for q, n in by_pair.get(tuple(sorted((self.entities[x], self.entities[y]))), ()):
                counted[(i, q)] = n
        if not counted:
            return rows, preds, shared
        kept = [(r, q, k) for r, q, k in zip(rows.tolist(), preds.tolist(), shared.tolist()) if (r, q) not in counted]
        merged = sorted(kept + [(r, q, n) for (r, q), n in counted.items() if n > 0])
        out = np.array(merged, dtype=np.int64).reshape(-1, 3)
        return out[:, 0], out[:, 1], out[:, 2]

    def in_run_sizes(self, nodes, preds) -> np.ndarray:
        """As over the whole index: counted in the store for a node not fetched whole."""
        nodes, preds = np.asarray(nodes, dtype=np.int64), np.asarray(preds, dtype=np.int64)
        lo, hi = Adjacency.follow_many(self, nodes, -(preds + 1))
        sizes = hi - lo
        for i in np.flatnonzero(~self.complete[nodes]).tolist():
            counted = self._counted_runs(int(nodes[i]), "in")
            if counted is not None:
                sizes[i] = counted.get(int(preds[i]), 0)
        return sizes

    def read_in_part(self, node: int) -> bool:
        """A hub (more than ``HUB_LINKS`` links, counted in the store) not fetched whole; an entity
        not counted yet is counted first, and fetched whole unless it is a hub."""
        if self.complete[node]:
            return False
        sizes = (self.run_sizes or {}).get(self.entities[node])
        if sizes is not None:
            return sum(sizes.values()) > HUB_LINKS
        total = (self.link_totals or {}).get(self.entities[node])
        if total is None:
            self.maybe_hubs.add(self.entities[node])
            return True
        return total[0] > HUB_LINKS

    def middle_steps(self, x: int, o: int, s: int) -> list[tuple[int, int]] | None:
        """From x's and o's links when both were fetched whole, else as the store answered them
        (``middle_step_pairs``): a middle node of a length-3 path is not read for them."""
        if self.complete[x] and self.complete[o]:
            return None
        if not self.complete[x] and self.known_degree[x] < 0:
            # x's degree is being counted (``degree`` noted it): a hub is no middle, and its pairs
            # cost the store a walk over the other end's links, so they wait for the count
            return []
        key = (self.entities[x], self.entities[o], self.entities[s])
        pairs = self.middle_pairs.get(key)
        if pairs is None:
            # none until asked: fewer paths than the store's, so the round's path search goes at
            # least as far along the middles as the whole index's, and notes every one it reads
            self.missing_middles.add(key)
            return []
        return pairs

    def links_among(self, node: int, others: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """As over the whole index among ``others``: a link between node and another is among the
        other's links when that one was fetched whole, else among the pairs' links fetched."""
        others = np.asarray(others, dtype=np.int64)
        codes = node * np.int64(len(self.entities)) + others
        lacking = others[~self.complete[others] & ~np.isin(codes, self.pairs_whole)]
        if lacking.size and not self.complete[node]:
            self.missing_pairs.update((self.entities[node], self.entities[other]) for other in lacking.tolist())
        (out_nodes, out_preds), (in_nodes, in_preds) = Adjacency.out(self, node), Adjacency.inbound(self, node)
        nodes, steps = np.concatenate([out_nodes, in_nodes]), np.concatenate([out_preds + 1, -(in_preds + 1)])
        keep = np.isin(nodes, others)
        nodes, steps = nodes[keep], steps[keep]
        order = np.lexsort((steps, nodes))
        return nodes[order], steps[order]

    def _need_either(self, a: int | None, b: int | None) -> None:
        """A link between a and b is among the links of either one: one of them must be whole."""
        if a is not None and b is not None and not (self.complete[a] or self.complete[b]):
            self.need([a])

    # --- lookups that read links -----------------------------------------------------------------
    def id(self, entity: str) -> int | None:
        found = super().id(entity)
        if found is None and entity not in self.absent:
            self.missing.add(entity)
        return found

    def out(self, node: int):
        self.need([node])
        return super().out(node)

    def inbound(self, node: int):
        self.need([node])
        return super().inbound(node)

    def follow(self, node: int, step: int) -> np.ndarray:
        self._need_runs([node], [step])
        return super().follow(node, step)

    def follow_many(self, nodes: np.ndarray, steps: np.ndarray):
        self._need_runs(nodes, steps)
        return super().follow_many(nodes, steps)

    def run_link_counts(self, nodes: np.ndarray, steps: np.ndarray) -> np.ndarray | None:
        """How many links each (node, signed step) run has, without reading a run not here whole:
        counted in the store (noted as a walk's count, ``missing_picks`` with no place, until
        counted), so that a lookup may leave a long run unread."""
        nodes, steps = np.asarray(nodes, dtype=np.int64), np.asarray(steps, dtype=np.int64)
        lo, hi = Adjacency.follow_many(self, nodes, steps)
        lengths = hi - lo
        for i in np.flatnonzero(~self._run_whole(nodes, steps)).tolist():
            size = self._run_size(int(nodes[i]), int(steps[i]))
            if size is None:
                self.missing_picks.add((self.entities[nodes[i]], *self.side(int(steps[i])), None))
            else:
                lengths[i] = size
        return lengths

    def walk_step(self, nodes: np.ndarray, steps: np.ndarray, rng, most: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """As over the whole index, without a hub's run: its length counted in the store, and the
        one node drawn fetched alone (``picks``), so a walk through a hub reads a link, not the hub."""
        whole = self._run_whole(nodes, steps)
        counts = np.zeros(nodes.size, dtype=np.int64)
        lo = np.zeros(nodes.size, dtype=np.int64)
        if whole.any():
            lo[whole], hi = Adjacency.follow_many(self, nodes[whole], steps[whole])
            counts[whole] = hi - lo[whole]
        counted = whole.copy()
        for i in np.flatnonzero(~whole).tolist():
            size = self._run_size(int(nodes[i]), int(steps[i]))
            if size is None:  # answered from what is here until counted (k None: count it)
                self.missing_picks.add((self.entities[nodes[i]], *self.side(int(steps[i])), None))
                counts[i] = Adjacency.follow(self, int(nodes[i]), int(steps[i])).size
            else:
                counts[i], counted[i] = size, True
        alive = steppable(counts, most)
        k = rng.integers(0, counts[alive])
        reached = nodes[alive].copy()  # a node not fetched yet stays where it is: this round is dropped
        whole, counted, lo, picked = whole[alive], counted[alive], lo[alive], steps[alive]
        reached[whole] = self.at_runs(lo[whole] + k[whole], picked[whole] > 0)
        for i in np.flatnonzero(~whole & counted).tolist():
            key = (int(reached[i]), int(picked[i]), int(k[i]))
            if key in self.picks:
                reached[i] = self.picks[key]
            else:
                self.missing_picks.add((self.entities[key[0]], *self.side(key[1]), key[2]))
        return alive, reached

    def walker(self):
        """In a round (``walk_reader`` set) where nothing read so far lacked anything, the walks
        read what the whole index's walks read: they fetch what they lack on the spot
        (``WalkAhead``), so that one round makes every walk as the whole index does, instead of a
        round a step of a few sources' walks. Where a lookup before them lacked links, the round
        ends there (``WalksLack``): its walks would draw off the whole index's, and what they and
        the lookups after them noted was mostly never read again (the hub runs such draws read:
        docs/performance.md, issue 17's session-19 figures). Outside a round, this index: its
        walks note what they lack and go on from what is here."""
        if self.walk_reader is None:
            return self
        if self.lacks_links or self.missing_degrees:
            raise WalksLack("a lookup before the walks lacked links: the round ends before them")
        if self._walk_ahead is None:
            self._walk_ahead = WalkAhead(self, self.walk_reader)
        return self._walk_ahead

    def entity_types(self, store: Store, entities) -> dict[str, list[str]]:
        """As over the whole index; asked of the store once per entity over every round: each round
        checks the types of every walk end again (docs/performance.md, issue 17's session-17 figures)."""
        entities = list(entities)  # read twice: an iterator would be spent by the first
        todo = sorted(set(entities) - self.known_types.keys())
        if todo:
            found = super().entity_types(store, todo)
            self.known_types.update((e, found.get(e, [])) for e in todo)
        return {e: self.known_types[e] for e in entities if self.known_types[e]}

    def has_link(self, s: str, p: str, o: str) -> bool:
        if self.pindex.get(p) != self.own_predicate:
            self._need_either(self.id(s), self.id(o))
        return super().has_link(s, p, o)

    def link(self, s: str, p: str, o: str) -> int | None:
        """As over the whole index when either end was fetched whole: an end that is not here at all
        then has no link to the other (a claim's object outside its subject's links is no lookup)."""
        si, oi, pi = Adjacency.id(self, s), Adjacency.id(self, o), self.pindex.get(p)
        if pi != self.own_predicate and not (self._whole(s, si) or self._whole(o, oi)):
            self.missing.add(s)
        return self._link(si, pi, oi)

    def _whole(self, entity: str, node: int | None) -> bool:
        return bool(self.complete[node]) if node is not None else entity in self.absent

    def out_run(self, node: int, pred: int) -> tuple[int, int]:
        self._need_runs([node], [pred + 1])
        return super().out_run(node, pred)

    def links_between(self, a: str, b: str) -> list[tuple[str, str, str]]:
        self._need_either(self.id(a), self.id(b))
        return super().links_between(a, b)

    def degree(self, node: int) -> int:
        if self.complete[node]:
            return super().degree(node)
        if self.known_degree[node] < 0:
            self.missing_degrees.add(self.entities[node])
        return int(self.known_degree[node]) if self.known_degree[node] >= 0 else super().degree(node)

    @cached_property
    def degrees(self) -> np.ndarray:
        """Degrees counted in the store where known, else over the fetched links (exact for
        complete entities only: a random ranking computes popularity without using it)."""
        return np.where(self.known_degree >= 0, self.known_degree, np.diff(self.out_ptr) + self.in_degrees)

    def reverse_link_counts(self, predicate: str, pairs) -> dict[int, int]:
        counts = self.reverse_counter(predicate)
        return {self.pindex[q]: n for q, n in counts.items() if q in self.pindex}


class NeighbourhoodReader:
    """Fetches the parts of an endpoint's KB a scenario of ``predicate`` reads, and counts the rows."""

    def __init__(self, store: Store, predicate: str, *, degrees: bool = True, fetched: Neighbourhood | None = None):
        """``degrees``: count the degrees of the predicate's entities in the store first (Eq. 1
        popularity ranks the facts by them; a random ranking reads none). ``fetched``: an index an
        earlier reader of the same store and predicate made (the one a scenario was generated
        over): what it holds is taken, not fetched again."""
        self.store = store
        self.predicates = content_predicates(store)
        self.pindex = {p: i for i, p in enumerate(self.predicates)}
        self.predicate = predicate
        self.rows = 0  # rows of the neighbourhood queries (facts, links, degrees)
        self.links = FetchedLinks(len(self.predicates))
        self.complete: set[str] = set()
        self.runs: set[tuple[str, str, str]] = set()  # (entity, side, predicate IRI) fetched whole
        self.picked: dict[tuple[str, str, str, int], str] = {}  # (entity, side, predicate, k) -> k-th node
        self.pairs: set[tuple[str, str]] = set()  # (hub, other): every link between the two fetched
        self.middle_pairs: dict[tuple[str, str, str], list[tuple[int, int]]] = {}  # see Neighbourhood.middle_steps
        self.shared_counts: dict[tuple[str, str, str], int] = {}  # see Neighbourhood.shared_counts
        self.degrees: dict[str, int] = {}
        self.types: dict[str, list[str]] = {}  # entity -> asserted classes (Neighbourhood.entity_types)
        self.sizes: dict[str, dict[tuple[str, str], int]] = {}  # entity -> (direction, predicate) -> links
        self.totals: dict[str, tuple[int, int]] = {}  # entity -> (links, links of content predicates)
        # (entity, side, predicate IRI) -> links: a run a walk stepped along, counted alone (``fetch_walk_runs``)
        self.run_lengths: dict[tuple[str, str, str], int] = {}
        self._reverse: dict[str, dict[str, int]] = {}
        self.subjects = np.full(len(self.predicates), -1, dtype=np.int64)  # see link_subjects
        # shared by the readers of one store object: a slow sort is learnt once per process
        self.costs = getattr(store, "read_costs", None) or ReadCosts()
        pid = self.pindex.get(predicate)
        if fetched is not None:
            self._take(fetched)
        elif pid is not None:
            self.fetch_predicate(predicate)
        if degrees:
            self.fetch_degrees(self.links.names)

    def _take(self, index: Neighbourhood) -> None:
        names, pids = index.entities, [self.pindex.get(p) for p in index.predicates]
        for s, p, o in zip(index.src.tolist(), index.pred.tolist(), index.dst.tolist()):
            if pids[p] is not None:
                self.links.add(names[s], pids[p], names[o])
        self.complete.update(names[i] for i in np.flatnonzero(index.complete).tolist())
        self.complete.update(index.absent)
        self.runs.update((names[node], *index.side(step)) for node, step in index.runs_whole)
        self.picked.update(((names[node], *index.side(step), k), names[other])
                           for (node, step, k), other in index.picks.items())
        self.sizes.update(index.run_sizes or {})
        self.run_lengths.update(index.run_lengths)
        self.types.update(index.known_types)
        self.totals.update(index.link_totals or {})
        n = len(names)
        self.pairs.update((names[code // n], names[code % n]) for code in index.pairs_whole.tolist())
        self.middle_pairs.update(index.middle_pairs)
        self.shared_counts.update(index.shared_counts)
        self.degrees.update((names[i], int(n)) for i, n in enumerate(index.known_degree.tolist()) if n >= 0)

    # --- fetching --------------------------------------------------------------------------------
    def fetch_links(self, entities) -> int:
        """Every link of these entities (those not fetched yet); how many entities were new."""
        todo = sorted(set(entities) - self.complete)
        self._count(todo, ROW_CAP)
        for query in plan(todo, self._links, self.sizes, ROW_CAP, BATCH):
            if isinstance(query, list):
                read = 0
                for row in self.store.select("entity_links", entities=[NamedNode(e) for e in query]):
                    read += 1
                    pid = self.pindex.get(row["p"].value)
                    if pid is not None:
                        self.links.add(row["s"].value, pid, row["o"].value)
                self.rows += read
            else:
                self._fetch_run(*query[:3])
        self.complete.update(todo)
        return len(todo)

    def _fetch_run(self, entity: str, side: str, predicate: str) -> None:
        """One predicate's links of a hub in one direction, in one query (``entity_{side}_runs``),
        sorted here: an ordered slice made the store sort the whole run for each one, far slower
        than the run unordered (docs/performance.md, issue 17's session-18 figures). The store shows
        the answer whole (its COUNT) or pages it where a cap cut it."""
        pid = self.pindex.get(predicate)
        if pid is None:
            return  # a schema predicate: dropped from the links anyway
        started, read = time.perf_counter(), 0
        for row in self.store.select(f"entity_{side}_runs", runs=[(NamedNode(entity), NamedNode(predicate))]):
            read += 1
            other = row["x"].value
            self.links.add(*((entity, pid, other) if side == "out" else (other, pid, entity)))
        self.rows += read
        self.costs.read(read, time.perf_counter() - started)

    def fetch_predicate(self, predicate: str) -> None:
        """Every link of the predicate (``predicate_facts``, paged)."""
        pid = self.pindex.get(predicate)
        if pid is None:
            return
        for row in self.store.select("predicate_facts", predicate=iri(predicate)):
            self.rows += 1
            if not isinstance(row["o"], Literal):
                self.links.add(row["s"].value, pid, row["o"].value)

    def fetch_degrees(self, entities) -> int:
        todo = sorted(set(entities) - set(self.degrees))
        self._count_totals([e for e in todo if e not in self.sizes and e not in self.totals])
        for e in todo:
            self.degrees[e] = (sum(n for (_, q), n in self.sizes[e].items() if not is_schema_predicate(q))
                               if e in self.sizes else self.totals[e][1])
        return len(todo)

    def _run_length(self, run: tuple[str, str, str]) -> int:
        """The run's links, counted in the store: with its entity's runs, or alone (``run_lengths``)."""
        sizes = self.sizes.get(run[0])
        return sizes.get(run[1:], 0) if sizes is not None else self.run_lengths[run]

    def fetch_walk_runs(self, runs) -> int:
        """For each run (entity, side, predicate IRI) a walk steps along, not whole nor counted yet, its
        length and, when it has at most ``HUB_LINKS`` links, every link (``entity_walk_runs``): a walk
        step in one round trip, where counting the entity's links first and then reading its runs
        took three. A longer run is only counted (into ``run_lengths``): its draws are fetched after
        the draw, as a hub's (``fetch``). A VALUES batch of runs a query: a step's runs (few, short ones:
        docs/performance.md, issue 17's session-19 figures) in one; an answer past a page is shown whole by the
        store's COUNT or paged, as any answer."""
        todo = sorted(run for run in set(runs) if run[0] not in self.complete and run not in self.runs
                      and run[0] not in self.sizes and run not in self.run_lengths and run[2] in self.pindex)
        for batch in batched(todo, BATCH):
            found = dict.fromkeys(batch, 0)  # a run without links has no row
            by_side = {side: [(NamedNode(e), NamedNode(q)) for e, s, q in batch if s == side] for side in ("out", "in")}
            read = 0
            for row in self.store.select("entity_walk_runs", out_runs=by_side["out"], in_runs=by_side["in"],
                                         most_links=HUB_LINKS):
                read += 1
                e, side, q = row["e"].value, row["side"].value, row["q"].value
                if row.get("n") is not None:
                    found[(e, side, q)] = int(row["n"].value)
                    continue
                other, pid = row["x"].value, self.pindex[q]
                self.links.add(*((e, pid, other) if side == "out" else (other, pid, e)))
            self.rows += read
            self.run_lengths.update(found)
            self.runs.update(run for run, n in found.items() if n <= HUB_LINKS)
        return len(todo)

    def _links(self, entity: str) -> int:
        """The entity's links in all, counted in the store (``_count``)."""
        return sum(self.sizes[entity].values()) if entity in self.sizes else self.totals[entity][0]

    def _count(self, entities, over: int) -> int:
        """Each entity's links counted in the store, in all, and per direction and predicate where
        there are more than ``over`` (a hub is read by run; a smaller entity whole, for which the
        total is enough: a row an entity, not one per predicate); how many were newly counted."""
        totals = sorted(e for e in set(entities) if e not in self.sizes and e not in self.totals)
        self._count_totals(totals)
        runs = sorted(e for e in set(entities) if e not in self.sizes and self.totals[e][0] > over)
        self._count_links(runs)
        return len(set(totals) | set(runs))

    def _count_totals(self, entities: list[str]) -> None:
        """Each entity's links in all and of content predicates, counted in the store, into ``totals``."""
        schema = [Literal(namespace) for namespace in SCHEMA_NAMESPACES]
        for batch in batched(entities, BATCH):
            found = dict.fromkeys(batch, (0, 0))  # an entity without links has no row
            for row in self.store.select("entity_link_totals", entities=[NamedNode(e) for e in batch], schema=schema):
                self.rows += 1
                found[row["e"].value] = (int(row["links"].value), int(row["content"].value))
            self.totals.update(found)

    def _count_links(self, entities: list[str]) -> None:
        """Each entity's links per direction and predicate, counted in the store, into ``sizes``."""
        for batch in batched(entities, BATCH):
            found: dict[str, dict[tuple[str, str], int]] = {e: {} for e in batch}
            for row in self.store.select("entity_link_degrees", entities=[NamedNode(e) for e in batch]):
                self.rows += 1
                found[row["e"].value][(row["side"].value, row["q"].value)] = int(row["n"].value)
            self.sizes.update(found)

    def fetch(self, index: Neighbourhood) -> int:
        """What ``index`` found missing; how many entities, runs and picks were fetched or counted.

        A run a lookup read of a hub (an entity with more than ``HUB_LINKS`` links) is fetched
        alone, in VALUES batches of runs (``fetch_runs``); a walk's draw from a hub's run of at most
        ``HUB_LINKS`` fetches that run too, from a longer one only the link it drew (``pick``), or
        the whole run when its draws, made and pending, outnumber its pages."""
        picks: dict[tuple[str, str, str], set] = {}
        for entity, side, predicate, k in index.missing_picks:
            picks.setdefault((entity, side, predicate), set()).add(k)
        # a run a walk counted alone (``fetch_walk_runs``) has its length: its entity is not counted for it
        counted = {part for part in picks if part in self.run_lengths}
        # a run read alone of an entity nothing else asks of, not counted yet: its length comes with
        # it, and its links when it is short (``fetch_walk_runs``), not after a count of the entity's
        # links (nearness's holders' runs are many such: their counts were a large part of a scenario)
        others = {e for e, _, _ in set(picks) - counted} | set(index.maybe_hubs) | set(index.missing)
        alone = {run for run in index.missing_runs if run[0] not in others and run[0] not in self.totals
                 and run[0] not in self.sizes}
        done_alone = self.fetch_walk_runs(alone)
        parts = (set(index.missing_runs) - alone) | (set(picks) - counted)
        asked = {e for e, _, _ in parts} | set(index.maybe_hubs)
        done = done_alone + self._count(asked - self.complete, HUB_LINKS)
        small = {e for e in asked if e not in self.complete and self._links(e) <= HUB_LINKS}
        # a smaller entity whose run counts were asked for (nearness compares them) is fetched whole:
        # its total is known, its runs' lengths are not. One that only runs were read of (walk steps
        # mostly) gets those runs: whole, a walk's middle node cost all its links for the one or two
        # a step follows, and walks were most of what a scenario read (docs/performance.md)
        done += self.fetch_links(set(index.missing) | (small & set(index.maybe_hubs)))
        done += self.fetch_degrees(index.missing_degrees)
        runs, drawn = set(index.missing_runs), []
        made = Counter(key[:3] for key in self.picked)
        expected: dict[tuple[str, str, str], int] = {}  # a drawn run's draws, made and pending
        for part, ks in picks.items():
            if part[0] in self.complete or part in self.runs:
                continue
            if part[0] in small and part not in counted:
                runs.add(part)
                continue
            links = self._run_length(part)
            new = [part + (k,) for k in sorted(k for k in ks if k is not None) if part + (k,) not in self.picked]
            # a draw is a query that sorts the whole run in the store for one row; the run read
            # whole is one query, unordered (cheaper in the store than one draw), but all its
            # rows: once the run's draws (made and pending) outnumber its pages, it is read, and
            # the walks' next draws there cost nothing. No query answers several places of a run
            # (OFFSET gives one), so the choice is per run. It is read too where its draws together
            # would cost far more time than the read: a store seen to sort slowly (Oxigraph), a long
            # run (``read_costs``)
            expected[part] = made[part] + len(new)
            if (links <= HUB_LINKS or expected[part] > slices(links)
                    or self.costs.reads_whole(links, expected[part])):
                runs.add(part)
            else:
                drawn += new
        done += self.fetch_runs(runs)
        done += self.fetch_pairs(index.missing_pairs)
        done += self.fetch_middle_pairs(index.missing_middles)
        done += self.fetch_shared_counts(index.missing_shared)
        # each draw is timed, and each further draw would sort its run again: once the draws timed
        # show that a run's draws cost more than its read, that run is read whole instead. A draw
        # is weighed only beside an unordered read of a run; before the store has answered one,
        # the first timed draw's run is read whole at once: its draws left then cost nothing, and
        # that read is the one the next draws are weighed against
        later = set()
        for pick in sorted(drawn):
            run = pick[:3]
            if run in self.runs:
                continue
            if run in later or self.costs.reads_whole(self._run_length(run), expected[run]):
                later.add(run)
                continue
            unweighed = self.costs.unweighed(self._run_length(run))
            done += self.pick(*pick)
            if unweighed:
                done += self.fetch_runs({run})
        return done + self.fetch_runs(later)

    def fetch_runs(self, runs) -> int:
        """Every link of these runs, (entity, side, predicate IRI), not fetched yet: a VALUES batch
        of runs a query, their links adding up to at most ``ROW_CAP``, a longer run in slices."""
        todo = sorted(run for run in set(runs) if run[0] not in self.complete and run not in self.runs)
        entities = sorted({run[0] for run in todo if run not in self.run_lengths} - set(self.sizes))
        self._count_totals([e for e in entities if e not in self.totals])
        # a run is packed by its length where that was counted, else by its entity's links in all, which
        # bound it: counting every run of a small entity would answer a row per predicate it has
        self._count_links([e for e in entities if self.totals[e][0] > ROW_CAP])

        def length(side: str, run: tuple[str, str]) -> int:
            sizes = self.sizes.get(run[0])
            if sizes is None and (run[0], side, run[1]) in self.run_lengths:
                return self.run_lengths[(run[0], side, run[1])]
            return sizes.get((side, run[1]), 0) if sizes is not None else self.totals[run[0]][0]

        for side in ("in", "out"):
            mine = [(e, q) for e, s, q in todo if s == side and q in self.pindex]
            for query in pack(mine, lambda run: length(side, run), ROW_CAP, BATCH):
                if not isinstance(query, list):
                    self._fetch_run(query[0], side, query[1])
                    continue
                listed = [(NamedNode(e), NamedNode(q)) for e, q in query]
                started, read = time.perf_counter(), 0
                for row in self.store.select(f"entity_{side}_runs", runs=listed):
                    read += 1
                    e, pid, other = row["e"].value, self.pindex[row["q"].value], row["x"].value
                    self.links.add(*((e, pid, other) if side == "out" else (other, pid, e)))
                self.rows += read
                self.costs.read(read, time.perf_counter() - started)
        self.runs.update(todo)
        return len(todo)

    def fetch_pairs(self, pairs) -> int:
        """Every link between the two entities of each (hub, other) pair, neither fetched whole yet
        (``entity_pair_links``, a VALUES batch of pairs a query): a hub's links where path search
        looks them up, not the hub's every link."""
        todo = sorted(pair for pair in set(pairs)
                      if pair not in self.pairs and not (self.complete & set(pair)))
        for batch in batched(todo, BATCH):
            for row in self.store.select("entity_pair_links", pairs=[(NamedNode(e), NamedNode(x)) for e, x in batch]):
                self.rows += 1
                pid = self.pindex.get(row["p"].value)
                if pid is not None:
                    self.links.add(row["s"].value, pid, row["o"].value)
        self.pairs.update(todo)
        return len(todo)

    def fetch_middle_pairs(self, middles) -> int:
        """For each (middle, object, subject) of path search not asked yet, the distinct signed step
        pairs (b, c) with middle -b- y and object -c- y, y none of the three (``middle_step_pairs``,
        a VALUES batch of them a query): the rows are step pairs, not the middle's links."""
        # by object, so that a batch scans each of its objects once for all the middles it has
        todo = sorted(set(middles) - set(self.middle_pairs), key=lambda key: (key[1], key[0], key[2]))
        # an object is scanned or looked up by the links of both ends: counted first (where the store
        # joins scans by nested loop, every object is looked up: nothing to count)
        hashes = self.store.hash_joins_subqueries
        if hashes:
            self._count_totals(sorted({e for x, o, _ in todo for e in (x, o)} - set(self.totals) - set(self.sizes)))
        for batch in batched(todo, BATCH):
            found: dict[tuple[str, str, str], set] = {key: set() for key in batch}
            middles_of: dict[str, list[tuple[str, str, str]]] = {}
            for key in batch:
                middles_of.setdefault(key[1], []).append(key)
            # an object's links scanned once cost the store less than looking up, for each link of its
            # middles, the object's link to that node, unless the object is a hub among few middles,
            # or the store joins the two scans by nested loop (Virtuoso), where lookups are cheap
            scanned = {o for o, keys in middles_of.items()
                       if hashes and self._links(o) <= LOOKUP_LINKS * sum(self._links(x) for x, _, _ in keys)}
            rows = {key: tuple(NamedNode(e) for e in key) for key in batch}
            for row in self.store.select("middle_step_pairs",
                                         middles=[rows[key] for key in batch if key[1] not in scanned],
                                         scanned_middles=[rows[key] for key in batch if key[1] in scanned],
                                         objects=[NamedNode(o) for o in sorted(scanned)]):
                self.rows += 1
                b, c = self.pindex.get(row["b"].value), self.pindex.get(row["c"].value)
                if b is not None and c is not None:  # a schema step is not in the index's paths
                    found[(row["x"].value, row["o"].value, row["s"].value)].add(
                        ((b + 1) * _SIGN[row["bway"].value], (c + 1) * _SIGN[row["cway"].value]))
            self.middle_pairs.update((key, sorted(pairs)) for key, pairs in found.items())
        return len(todo)

    def fetch_shared_counts(self, keys) -> int:
        """For each (x, y, predicate IRI, x's run length, y's) not counted yet, how many subjects
        hold both x and y through the predicate (``shared_holders``, a VALUES batch a query): a row
        per triple, not the runs' links. As in ``fetch_middle_pairs``, where the store joins
        subqueries by hash, y's run is scanned once for the batch unless it is long beside the x
        runs it meets, where each holder's link to y is looked up."""
        found_keys: dict[tuple[str, str, str], tuple[str, str, str, int, int]] = {}
        for key in sorted(keys):
            if shared_key(*key[:3]) not in self.shared_counts:
                found_keys.setdefault(shared_key(*key[:3]), key)
        todo = sorted(found_keys.values())
        hashes = self.store.hash_joins_subqueries
        for batch in batched(todo, BATCH):
            found = {shared_key(*key[:3]): 0 for key in batch}  # no shared holder: no row
            meets: dict[tuple[str, str], int] = {}
            for _, y, q, n, _ in batch:
                meets[(y, q)] = meets.get((y, q), 0) + n
            scanned = {(y, q) for _, y, q, _, m in batch if hashes and m <= LOOKUP_LINKS * meets[(y, q)]}
            rows = {key: tuple(NamedNode(e) for e in key[:3]) for key in batch}
            for row in self.store.select(
                    "shared_holders", holder_runs=[rows[key] for key in batch if key[1:3] not in scanned],
                    scanned_holder_runs=[rows[key] for key in batch if key[1:3] in scanned],
                    scanned_runs=[(NamedNode(y), NamedNode(q)) for y, q in sorted(scanned)]):
                self.rows += 1
                found[shared_key(row["x"].value, row["y"].value, row["q"].value)] = int(row["n"].value)
            self.shared_counts.update(found)
        return len(todo)

    def fetch_for_audit(self, facts, masked) -> int:
        """What the shortcut audit reads of R around ``facts`` ((s, p, o) strings), and no more: the
        degree of each end, counted in the store, and the links between each fact's two ends
        (``fetch_pairs``): a hub of the scenario is counted, not read whole. R's degree of an end
        not fetched whole is its count less the links R lacks there (``Reference.degree``), so
        ``masked``, the KB triples the audit takes out of R (removed ones, statement nodes of the
        facts), are added as links. Each end is named in the index even with no link fetched, so
        that its count is found. How many entities were counted and pairs fetched."""
        ends = sorted({e for s, _, o in facts for e in (s, o)})
        done = self.fetch_degrees(ends)
        done += self.fetch_pairs({(s, o) for s, _, o in facts if s != o})
        for e in ends:
            self.links.number(e)
        self.add_links(masked)
        return done

    def add_links(self, triples) -> None:
        """KB triples another query read (entity links among them: content predicates, no literal object)."""
        for s, p, o in triples:
            pid = self.pindex.get(p)
            if pid is not None and not o.startswith('"'):
                self.links.add(s, pid, o)

    def pick(self, entity: str, side: str, predicate: str, k: int) -> int:
        """The k-th node (in IRI order) of one predicate's links of a hub in one direction, alone:
        what a walk drew there. 1 when found; when the run ended before k (the KB changed since
        it was counted), the run is read whole instead."""
        pid = self.pindex[predicate]
        started = time.perf_counter()
        for row in self.store.select(f"entity_{side}_links", entity=NamedNode(entity),
                                     predicate=NamedNode(predicate), limit=1, offset=k):
            self.costs.drew(self._run_length((entity, side, predicate)), time.perf_counter() - started)
            self.rows += 1
            other = row["x"].value
            self.links.add(*((entity, pid, other) if side == "out" else (other, pid, entity)))
            self.picked[(entity, side, predicate, k)] = other
            return 1
        self._fetch_run(entity, side, predicate)
        self.runs.add((entity, side, predicate))
        return 1

    def reverse_counts(self, predicate: str) -> dict[str, int]:
        if predicate not in self._reverse:
            self._reverse[predicate] = {
                row["q"].value: int(row["n"].value)
                for row in self.store.select("reverse_link_counts", predicate=iri(predicate))}
        return self._reverse[predicate]

    def link_subjects(self, predicates: np.ndarray) -> None:
        """Distinct subjects of the links of these predicate ids, into ``self.subjects`` (-1: not
        asked yet). Per predicate, when nearness first reads it, cached by fingerprint: the
        whole-KB aggregate took minutes of server CPU at 10M triples, and a scenario reads a few
        predicates' figures."""
        cache = StatsCache(self.store)
        todo = []
        for q in np.unique(predicates).tolist():
            if self.subjects[q] < 0:
                found = cache.get(_subjects_key(self.predicates[q]))
                if found is None:
                    todo.append(q)
                else:
                    self.subjects[q] = found
        for batch in batched(todo, BATCH):
            counts = dict.fromkeys(batch, 0)
            for row in self.store.select("predicate_link_subjects",
                                         predicates=[NamedNode(self.predicates[q]) for q in batch]):
                counts[self.pindex[row["q"].value]] = int(row["n"].value)
            for q, n in counts.items():
                cache.put(_subjects_key(self.predicates[q]), n)
                self.subjects[q] = n

    # --- the index -------------------------------------------------------------------------------
    def index(self) -> Neighbourhood:
        """A fresh index over everything fetched so far."""
        entities, src, pred, dst, place = self.links.arrays()
        ids = self.links.ids
        complete = np.zeros(len(entities), dtype=bool)
        complete[place[[ids[e] for e in self.complete if e in ids]]] = True
        known = np.full(len(entities), -1, dtype=np.int64)
        for e, n in self.degrees.items():
            if e in ids:
                known[place[ids[e]]] = n
        node = lambda e: int(place[ids[e]])  # noqa: E731
        step = lambda side, q: (1 if side == "out" else -1) * (self.pindex[q] + 1)  # noqa: E731
        index = Neighbourhood(entities, self.predicates, src, pred, dst, complete=complete,
                              absent=frozenset(e for e in self.complete if e not in ids), known_degree=known,
                              own_predicate=self.pindex.get(self.predicate, -1),
                              reverse_counter=self.reverse_counts,
                              runs_whole=frozenset((node(e), step(side, q)) for e, side, q in self.runs if e in ids),
                              run_sizes=self.sizes, run_lengths=self.run_lengths, link_totals=self.totals, pairs_whole=self._pair_codes(ids, place),
                              picks={(node(e), step(side, q), k): node(other)
                                     for (e, side, q, k), other in self.picked.items()},
                              middle_pairs=self.middle_pairs, shared_counts=self.shared_counts,
                              known_types=self.types)
        index.__dict__["link_subjects"] = LinkSubjects(self)
        return index

    def _pair_codes(self, ids, place) -> np.ndarray:
        """``Neighbourhood.pairs_whole`` of the pairs fetched whose two ends have links here."""
        n = np.int64(len(place))
        codes = [int(place[ids[e]]) * n + int(place[ids[x]]) for e, x in self.pairs if e in ids and x in ids]
        return np.unique(np.array(codes, dtype=np.int64))


_SIGN = {"out": 1, "in": -1}  # a step's direction as the queries name it


def shared_key(x: str, y: str, predicate: str) -> tuple[str, str, str]:
    """The key of x's and y's shared holders through ``predicate`` (``Neighbourhood.shared_counts``):
    the two ends in name order, as the count is the same both ways."""
    return (x, y, predicate) if x <= y else (y, x, predicate)


def slices(links: int) -> int:
    """Pages of ``ROW_CAP`` rows a run of ``links`` takes, and the page that ends it short: how many
    draws of a run are worth its rows (a draw answers one row; pages are what a capped endpoint
    answers the run in)."""
    return links // ROW_CAP + 1


def _subjects_key(predicate: str) -> str:
    return f"predicate-link-subjects-{stable_key(predicate)}"


class LinkSubjects:
    """``Adjacency.link_subjects`` of the whole KB, each predicate's asked of the store when first
    read (``NeighbourhoodReader.link_subjects``): indexed by a predicate id or an array of them."""

    def __init__(self, reader: NeighbourhoodReader):
        self.reader = reader

    def __getitem__(self, key):
        wanted = np.asarray(key, dtype=np.int64)
        self.reader.link_subjects(wanted.ravel())
        return self.reader.subjects[key]

    def __len__(self) -> int:
        return len(self.reader.predicates)

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self[np.arange(len(self))], dtype=dtype)
