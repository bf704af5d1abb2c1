"""A per-KB adjacency index: every link between entities as integer arrays, cached by fingerprint.

Path enumeration, random walks, embeddings and the "is this pair linked?" checks would cost one
query per entity, or a slow SPARQL path query per pair (docs/architecture.md says why). Instead
the links of all non-schema predicates to non-literals are read once into compressed sparse rows
(out-links and in-links), from the KB's quad table (``scan``) when it has one, else by SPARQL, and
saved as ``adjacency-3.npz`` in the KB's cache folder with both views, so that reading it back sorts
nothing and builds no dict.

The index also holds each entity's asserted classes (``classes_of``), from the quad table or from
one query over every rdf:type link: the type checks of a scenario ask for thousands of entities'
types, which as VALUES queries were a large share of a scenario's time on big KBs. Only a partial
index (``sparql.neighbourhood``) asks them of the store as it needs them.
"""
from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
from pyoxigraph import Literal
from tqdm import tqdm

from .cache import StatsCache, write_npz
from .profiles import entity_types as stored_types, predicate_profiles
from .scan import QuadTable, kb_table, unique
from .store import Store
from .terms import RDF_TYPE, iri

FILE = "adjacency-3.npz"  # -3: types also when built by queries; older files are left behind, never misread
_LOADED: dict[str, "Adjacency"] = {}  # the index last used in this process, by cache path


@dataclass
class Adjacency:
    entities: list[str]  # sorted, so an id is found by bisection without a dict of millions of keys
    predicates: list[str]
    src: np.ndarray  # int32, links sorted by (src, pred, dst)
    pred: np.ndarray
    dst: np.ndarray
    # The in-link view, saved with the index: sorting it again was most of reading the index back.
    in_src: np.ndarray | None = None  # links sorted by (dst, pred, src)
    in_pred: np.ndarray | None = None
    in_ptr: np.ndarray | None = None
    out_ptr: np.ndarray | None = None
    # Asserted classes (rdf:type with an IRI object, any graph): entity i's are
    # classes[type_cls[type_ptr[i]:type_ptr[i + 1]]], in class IRI order. None: not known here.
    classes: list[str] | None = None
    type_ptr: np.ndarray | None = None
    type_cls: np.ndarray | None = None

    def __post_init__(self):
        self.pindex = {p: i for i, p in enumerate(self.predicates)}
        n = len(self.entities)
        if self.out_ptr is None:
            self.out_ptr = _pointers(self.src, n)
        if self.in_src is None or self.in_pred is None or self.in_ptr is None:
            self.in_src, self.in_pred, in_dst = _by_target(self.src, self.pred, self.dst, n, len(self.predicates))
            self.in_ptr = _pointers(in_dst, n)

    @cached_property
    def index(self) -> dict[str, int]:
        return {e: i for i, e in enumerate(self.entities)}

    # --- lookups ------------------------------------------------------------------------------
    def need(self, nodes) -> None:
        """Say that the links of ``nodes`` (ids) are about to be read from the arrays directly: the
        whole index has them all; a partial one (``sparql.neighbourhood``) notes those it lacks."""

    def need_linked(self, a: np.ndarray, b: np.ndarray, granular: np.ndarray) -> None:
        """Say that the links between a[i] and b[i] through predicates with ``granular[q]`` are about
        to be read (``nearness.adjacent``): a partial index notes the runs it lacks."""

    def need_shared_holders(self, a: np.ndarray, b: np.ndarray, granular: np.ndarray) -> None:
        """Say that the holders a[i] and b[i] share through each predicate with ``granular[q]`` are
        about to be counted (``nearness.co_objects``): a partial index notes the runs it lacks."""

    def counted_shared_holders(self, a: np.ndarray, b: np.ndarray, rows: np.ndarray, preds: np.ndarray,
                               shared: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The (row, predicate id, holders) rows of a[i]'s and b[i]'s shared holders found in the
        links here (``nearness.co_objects``), with what the store counted in their place where the
        index lacks a hub's run: as given on a whole index."""
        return rows, preds, shared

    def in_run_sizes(self, nodes: np.ndarray, preds: np.ndarray) -> np.ndarray:
        """Per row: how many in-links nodes[i] has through predicate id preds[i]."""
        lo, hi = self.follow_many(nodes, -(np.asarray(preds, dtype=np.int64) + 1))
        return hi - lo

    def read_in_part(self, node: int) -> bool:
        """Are ``node``'s links read only where they meet given nodes (``links_among``)? Never on a
        whole index; through an endpoint, a hub's."""
        return False

    def links_among(self, node: int, others: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``node``'s neighbours with their signed steps, sorted by (neighbour, step): at least
        those among ``others`` (sorted ids). The whole index gives them all."""
        nodes, steps = self.steps(node)
        order = np.lexsort((steps, nodes))
        return nodes[order], steps[order]

    def middle_steps(self, x: int, o: int, s: int) -> list[tuple[int, int]] | None:
        """The distinct signed step pairs (b, c), sorted, with x -b- y and o -c- y for some y other
        than s, o and x, when the index answers them without x's and o's links; None: path search
        finds them in those links (a whole index holds them all)."""
        return None

    def id(self, entity: str) -> int | None:
        at = bisect_left(self.entities, entity)
        return at if at < len(self.entities) and self.entities[at] == entity else None

    @property
    def has_types(self) -> bool:
        return self.type_ptr is not None

    def entity_types(self, store: Store, entities) -> dict[str, list[str]]:
        """Asserted classes of entities the index holds no types for, sorted, asked of ``store``
        (``profiles.entity_types``); an index that is rebuilt as it grows keeps them (``Neighbourhood``)."""
        return stored_types(store, entities)

    def classes_of(self, node: int) -> tuple[str, ...]:
        """The entity's asserted classes, sorted (as ``profiles.entity_types`` gives them)."""
        classes = self.classes
        return tuple(classes[c] for c in self.type_cls[self.type_ptr[node]:self.type_ptr[node + 1]].tolist())

    def out(self, node: int) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = self.out_ptr[node], self.out_ptr[node + 1]
        return self.dst[lo:hi], self.pred[lo:hi]

    def inbound(self, node: int) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = self.in_ptr[node], self.in_ptr[node + 1]
        return self.in_src[lo:hi], self.in_pred[lo:hi]

    def steps(self, node: int) -> tuple[np.ndarray, np.ndarray]:
        """Neighbours in both directions with signed predicates: +(p+1) forward, -(p+1) inverse."""
        out_n, out_p = self.out(node)
        in_n, in_p = self.inbound(node)
        return np.concatenate([out_n, in_n]), np.concatenate([out_p + 1, -(in_p + 1)])

    def follow(self, node: int, step: int) -> np.ndarray:
        """The nodes reached from ``node`` by one signed step.

        Links are sorted by (node, predicate, other node) in both directions, so one predicate's
        links of a node are a contiguous run found by binary search: a hub costs a log factor."""
        if step > 0:
            lo, hi, preds, others, pred = self.out_ptr[node], self.out_ptr[node + 1], self.pred, self.dst, step - 1
        else:
            lo, hi, preds, others, pred = self.in_ptr[node], self.in_ptr[node + 1], self.in_pred, self.in_src, -step - 1
        run = preds[lo:hi]
        key = run.dtype.type(pred)  # a Python int would make numpy convert the whole run first
        return others[lo + np.searchsorted(run, key, "left"): lo + np.searchsorted(run, key, "right")]

    def has_link(self, s: str, p: str, o: str) -> bool:
        si, oi, pi = self.id(s), self.id(o), self.pindex.get(p)
        if si is None or oi is None or pi is None:
            return False
        targets = self.follow(si, pi + 1)  # sorted by node id
        at = int(np.searchsorted(targets, targets.dtype.type(oi)))
        return at < targets.size and int(targets[at]) == oi

    def link(self, s: str, p: str, o: str) -> int | None:
        """The link s -p-> o's place in the out-link arrays (``src``, ``pred``, ``dst``), or None: no such
        link. Of the whole index only (a partial one does not fetch what it lacks here)."""
        return self._link(self.id(s), self.pindex.get(p), self.id(o))

    def _link(self, si: int | None, pi: int | None, oi: int | None) -> int | None:
        if si is None or oi is None or pi is None:
            return None
        lo, hi = Adjacency.out_run(self, si, pi)  # the run itself: a partial index checks its ends in link
        targets = self.dst[lo:hi]  # sorted by node id
        at = int(np.searchsorted(targets, targets.dtype.type(oi)))
        return lo + at if at < targets.size and int(targets[at]) == oi else None

    def out_run(self, node: int, pred: int) -> tuple[int, int]:
        """Where the node's out-links by predicate id ``pred`` are in the out-link arrays: ``[lo, hi)``."""
        start = int(self.out_ptr[node])
        run = self.pred[start:self.out_ptr[node + 1]]
        key = run.dtype.type(pred)
        return start + int(np.searchsorted(run, key, "left")), start + int(np.searchsorted(run, key, "right"))

    def links_between(self, a: str, b: str) -> list[tuple[str, str, str]]:
        """Every direct link between a and b, either way, as (subject, predicate, object)."""
        ai, bi = self.id(a), self.id(b)
        if ai is None or bi is None:
            return []
        found = []
        for x, y, xi, yi in ((a, b, ai, bi), (b, a, bi, ai)):
            nodes, preds = self.out(xi)
            found += [(x, self.predicates[p], y) for p in preds[nodes == yi].tolist()]
        return found

    @cached_property
    def degrees(self) -> np.ndarray:
        """Links per node, both directions."""
        return np.diff(self.out_ptr) + self.in_degrees

    @cached_property
    def in_degrees(self) -> np.ndarray:
        return np.diff(self.in_ptr)

    @cached_property
    def link_codes(self) -> np.ndarray:
        """Every linked pair both ways as a * |entities| + b, sorted and unique: whether two nodes
        are linked at all is then one binary search, however many links a hub has."""
        n = np.int64(len(self.entities))
        src, dst = self.src.astype(np.int64), self.dst.astype(np.int64)
        return unique(np.concatenate([src * n + dst, dst * n + src]))

    @cached_property
    def in_codes(self) -> np.ndarray | None:
        """One int64 per in-link, ``in_code(node, pred, src)``: sorted, since the in-link view is
        sorted by (node, pred, src), so membership of many in-links is one ``searchsorted``.
        None when the codes would not fit in 63 bits (about 10^8 entities with 10^3 predicates)."""
        n, p = len(self.entities), max(len(self.predicates), 1)
        if n * n * p >= 2 ** 63:
            return None
        nodes = np.repeat(np.arange(n, dtype=np.int64), np.diff(self.in_ptr))
        return self.in_code(nodes, self.in_pred, self.in_src)

    @cached_property
    def out_codes(self) -> np.ndarray | None:
        """``in_codes`` for the out-link view: (src, pred, dst) in one sorted int64 per link."""
        n, p = len(self.entities), max(len(self.predicates), 1)
        if n * n * p >= 2 ** 63:  # as ``in_codes`` asks, without making those
            return None
        return self.in_code(self.src, self.pred, self.dst)

    def follow_many(self, nodes: np.ndarray, steps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``follow`` for many (node, signed step) rows at once, as (lo, hi) per row: the targets
        are ``dst[lo:hi]`` for a forward step, ``in_src[lo:hi]`` for an inverse one."""
        n, p = len(self.entities), max(len(self.predicates), 1)
        forward = steps > 0
        pred = np.abs(steps) - 1
        lo, hi = np.empty(nodes.size, dtype=np.int64), np.empty(nodes.size, dtype=np.int64)
        if self.in_codes is None:  # no codes on a KB this large: a binary search per row
            for i, (node, step) in enumerate(zip(nodes.tolist(), steps.tolist())):
                ptr, preds = (self.out_ptr, self.pred) if step > 0 else (self.in_ptr, self.in_pred)
                start, run = ptr[node], preds[ptr[node]:ptr[node + 1]]
                key = run.dtype.type(abs(step) - 1)
                lo[i] = start + np.searchsorted(run, key, "left")
                hi[i] = start + np.searchsorted(run, key, "right")
            return lo, hi
        first = (nodes.astype(np.int64) * p + pred) * n
        for view, codes in ((forward, self.out_codes), (~forward, self.in_codes)):
            lo[view] = np.searchsorted(codes, first[view], "left")
            hi[view] = np.searchsorted(codes, first[view] + n, "left")
        return lo, hi

    def run_link_counts(self, nodes: np.ndarray, steps: np.ndarray) -> np.ndarray | None:
        """How many links each (node, signed step) run has, where that can be known without reading
        the runs (a reader of a store's links: ``Neighbourhood``); None here, where ``follow_many``
        reads nothing."""
        return None

    def walk_step(self, nodes: np.ndarray, steps: np.ndarray, rng, most: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """One step of seeded random walks from ``nodes`` by signed ``steps``: which rows can go (they
        have such a link, in a run of at most ``most`` links where given), and for those the node
        each drew, uniformly among its run in id order."""
        lo, hi = self.follow_many(nodes, steps)
        alive = steppable(hi - lo, most)
        at = lo[alive] + rng.integers(0, (hi - lo)[alive])
        return alive, self.at_runs(at, steps[alive] > 0)

    def walker(self):
        """What ``random_walk.walk_ends`` steps through: this index (a partial one may answer with
        a walker that fetches what it lacks, ``sparql.walk_ahead``)."""
        return self

    def at_runs(self, at: np.ndarray, forward: np.ndarray) -> np.ndarray:
        """The nodes at places ``at`` of runs ``follow_many`` found: in ``dst`` for a forward step,
        in ``in_src`` for an inverse one."""
        return np.where(forward, self.dst[np.where(forward, at, 0)], self.in_src[np.where(forward, 0, at)])

    @cached_property
    def link_subjects(self) -> np.ndarray:
        """By predicate id: how many distinct subjects its links have."""
        n = max(len(self.entities), 1)
        pairs = unique(self.pred.astype(np.int64) * n + self.src)
        return np.bincount(pairs // n, minlength=len(self.predicates))

    def reverse_link_counts(self, predicate: str, pairs) -> dict[int, int]:
        """By predicate id q: how many of the (s, o) ``pairs`` (the facts of ``predicate``) have a
        link o -q-> s."""
        counts: dict[int, int] = {}
        for s, o in pairs:
            oi, si = self.id(o), self.id(s)
            if oi is None or si is None:
                continue
            nodes, preds = self.out(oi)
            for q in set(preds[nodes == si].tolist()):
                counts[q] = counts.get(q, 0) + 1
        return counts

    def in_code(self, node, pred, src):
        n, p = len(self.entities), max(len(self.predicates), 1)
        return (np.asarray(node, dtype=np.int64) * p + pred) * n + src

    def degree(self, node: int) -> int:
        return int(self.out_ptr[node + 1] - self.out_ptr[node] + self.in_ptr[node + 1] - self.in_ptr[node])

    def step_name(self, step: int) -> str:
        """A signed step as text: ``dbo:team`` forward, ``^dbo:team`` inverse (SPARQL path syntax)."""
        from .terms import compact

        name = compact(self.predicates[abs(step) - 1])
        return name if step > 0 else f"^{name}"

    @property
    def size(self) -> int:
        return int(self.src.size)


def _by_target(src, pred, dst, n: int, n_predicates: int):
    """The links sorted by (dst, pred, src): packed into one int64 and sorted by value when they
    fit (a plain sort, much faster than a stable argsort on millions of links)."""
    width, pwidth = max(n, 1).bit_length(), max(n_predicates, 1).bit_length()
    if 2 * width + pwidth > 63:
        order = np.lexsort((src, pred, dst))
        return src[order], pred[order], dst[order]
    key = (dst.astype(np.int64) << np.int64(width + pwidth)) | (pred.astype(np.int64) << np.int64(width)) | src
    key.sort()
    mask = (1 << width) - 1
    return ((key & mask).astype(src.dtype), ((key >> np.int64(width)) & ((1 << pwidth) - 1)).astype(pred.dtype),
            (key >> np.int64(width + pwidth)).astype(dst.dtype))


def _pointers(sorted_ids: np.ndarray, n: int) -> np.ndarray:
    counts = np.bincount(sorted_ids, minlength=n) if sorted_ids.size else np.zeros(n, dtype=np.int64)
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)


def build(store: Store, *, progress: bool = False, use_table: bool = True) -> Adjacency:
    """From the KB's quad table when it has one (fast), else by one query per predicate (far
    slower on big KBs; docs/performance.md); ``use_table=False`` forces the queries."""
    predicates = sorted(p["predicate"] for p in predicate_profiles(store) if not p["schema"])
    table = kb_table(store) if use_table else None
    if table is not None:
        return _from_table(table, predicates)
    triples: list[tuple[str, int, str]] = []
    for pid, predicate in enumerate(tqdm(predicates, desc="adjacency", disable=not progress, leave=False)):
        for row in store.select("predicate_facts", predicate=iri(predicate)):
            if not isinstance(row["o"], Literal):
                triples.append((row["s"].value, pid, row["o"].value))
    entities = sorted({t[0] for t in triples} | {t[2] for t in triples})
    index = {e: i for i, e in enumerate(entities)}
    src = np.fromiter((index[t[0]] for t in triples), dtype=np.int32, count=len(triples))
    pred = np.fromiter((t[1] for t in triples), dtype=np.int32, count=len(triples))
    dst = np.fromiter((index[t[2]] for t in triples), dtype=np.int32, count=len(triples))
    order = np.lexsort((dst, pred, src))
    classes, type_ptr, type_cls = _types_by_query(store, index)
    return Adjacency(entities, predicates, src[order], pred[order], dst[order],
                     classes=classes, type_ptr=type_ptr, type_cls=type_cls)


def _types_by_query(store: Store, index: dict[str, int]):
    """The indexed entities' classes from one query over every rdf:type link: without them each
    scenario would ask its candidates' types entity by entity, every time it runs."""
    rows = [(row["e"].value, row["type"].value) for row in store.select("typed_entities")]
    names = sorted({name for _, name in rows})  # every class, as the quad table's index lists them
    pairs = {(index[entity], name) for entity, name in rows if entity in index}
    class_id = {name: i for i, name in enumerate(names)}
    width = max(len(names), 1)
    key = np.array(sorted(entity * width + class_id[name] for entity, name in pairs), dtype=np.int64)
    return names, _pointers(key // width, len(index)), (key % width).astype(np.int32)


def _from_table(table: QuadTable, predicates: list[str]) -> Adjacency:
    """The same index from the KB's quad table: the distinct (s, p, o) of content predicates with a
    non-literal object, entities numbered in IRI order."""
    n = len(table.terms)
    pid = np.full(n, -1, dtype=np.int64)
    ids = table.predicate_ids()
    for i, predicate in enumerate(predicates):
        term = ids.get(predicate)
        if term is not None:
            pid[term] = i
    pred = pid[table.p]
    keep = (pred >= 0) & ~table.is_literal()[table.o]
    s, pred, o = table.s[keep].astype(np.int64), pred[keep], table.o[keep].astype(np.int64)
    terms = unique(np.concatenate([s, o]))
    values = [table.terms[t][1:-1] for t in terms.tolist()]
    order = sorted(range(len(values)), key=values.__getitem__)  # UTF-8 byte order is code point order
    rank = np.zeros(n, dtype=np.int64)
    rank[terms[order]] = np.arange(len(order))
    src, dst = rank[s], rank[o]
    width, pwidth = max(len(order), 1).bit_length(), max(len(predicates), 1).bit_length()
    if 2 * width + pwidth <= 63:  # one int64 key: a single sort, distinct over graphs
        key = unique((src << np.int64(width + pwidth)) | (pred << np.int64(width)) | dst)
        src = key >> np.int64(width + pwidth)
        pred, dst = (key >> np.int64(width)) & ((1 << pwidth) - 1), key & ((1 << width) - 1)
    else:
        order3 = np.lexsort((dst, pred, src))
        src, pred, dst = src[order3], pred[order3], dst[order3]
        keep = np.ones(src.size, dtype=bool)
        keep[1:] = (np.diff(src) != 0) | (np.diff(pred) != 0) | (np.diff(dst) != 0)
        src, pred, dst = src[keep], pred[keep], dst[keep]
    entities = [values[i].decode() for i in order]
    member = np.zeros(n, dtype=bool)
    member[terms] = True
    classes, type_ptr, type_cls = _types_from_table(table, member, rank, len(entities))
    return Adjacency(entities, predicates, src.astype(np.int32), pred.astype(np.int32), dst.astype(np.int32),
                     classes=classes, type_ptr=type_ptr, type_cls=type_cls)


def _types_from_table(table: QuadTable, member: np.ndarray, rank: np.ndarray, n_entities: int):
    """Per indexed entity (``member`` terms, numbered by ``rank``), its distinct IRI classes: what
    the ``entity_types`` query returns for it, over every graph."""
    type_id = table.predicate_ids().get(RDF_TYPE.value)
    if type_id is None:
        return [], np.zeros(n_entities + 1, dtype=np.int64), np.zeros(0, dtype=np.int32)
    typed = table.p == type_id
    s, o = table.s[typed].astype(np.int64), table.o[typed].astype(np.int64)
    objects = unique(o)
    iris = [t for t in objects.tolist() if table.terms[t][:1] == b"<"]  # isIRI(?type)
    names = sorted(table.terms[t][1:-1] for t in iris)  # UTF-8 byte order is code point order
    by_name = {table.terms[t][1:-1]: t for t in iris}
    class_rank = np.full(len(table.terms), -1, dtype=np.int64)
    class_rank[[by_name[name] for name in names]] = np.arange(len(names))
    keep = member[s] & (class_rank[o] >= 0)
    width = max(len(names), 1)
    key = unique(rank[s[keep]] * width + class_rank[o[keep]])  # distinct over graphs, by entity then class
    return [name.decode() for name in names], _pointers(key // width, n_entities), (key % width).astype(np.int32)


def adjacency(store: Store, *, progress: bool = False) -> Adjacency:
    """The KB's adjacency index, from the cache when this fingerprint has one."""
    cache = StatsCache(store)
    path = cache.root / FILE
    if str(path) in _LOADED:
        return _LOADED[str(path)]
    index = None
    if path.exists():
        try:
            index = _read(path)
        except (OSError, ValueError, KeyError):
            index = None  # a damaged cache file is rebuilt, never trusted
    if index is None:
        index = build(store, progress=progress)
        try:
            _write(index, path)
        except OSError:
            pass
    _LOADED.clear()  # one KB's index at a time: it can take gigabytes
    _LOADED[str(path)] = index
    return index


def _write(index: Adjacency, path: Path) -> None:
    types = {}
    if index.has_types:
        types = dict(classes=_text_array(index.classes), type_ptr=index.type_ptr, type_cls=index.type_cls)
    write_npz(path, entities=_text_array(index.entities), predicates=_text_array(index.predicates),
              src=index.src, pred=index.pred, dst=index.dst, in_src=index.in_src, in_pred=index.in_pred,
              in_ptr=index.in_ptr, out_ptr=index.out_ptr, **types)


def _text_array(items: list[str]) -> np.ndarray:
    return np.frombuffer("\n".join(items).encode(), dtype=np.uint8)


def _read(path: Path) -> Adjacency:
    with np.load(path) as data:
        text = lambda key: data[key].tobytes().decode().split("\n") if data[key].size else []  # noqa: E731
        views = {key: data[key] for key in ("in_src", "in_pred", "in_ptr", "out_ptr", "type_ptr", "type_cls")
                 if key in data}
        if "classes" in data:
            views["classes"] = text("classes")
        return Adjacency(text("entities"), text("predicates"), data["src"], data["pred"], data["dst"], **views)


def steppable(counts: np.ndarray, most: int | None) -> np.ndarray:
    """Which runs of these link counts a walk step can take: a link, and at most ``most`` links where
    given. Every backend's ``walk_step`` decides by it before its one draw, on the run's length
    counted whole, so the seeded draws stay the same whichever backend."""
    return (counts > 0) if most is None else (counts > 0) & (counts <= most)
