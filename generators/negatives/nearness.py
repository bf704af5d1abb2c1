"""Is a candidate object next to a known object? Answered for many (candidate, known) rows at once.

``NearnessMemo.next_to_known_object`` refuses a false object o' that is one link away from an
object the KB gives the subject, or its co-object (some x links to both through one predicate q).
Asked one pair at a time with a few numpy calls each, that was most of a random-walk scenario's
time on big KBs: a subject there knows many objects, one of them often a hub linked to much of
the KB, so many candidates are refused per false fact made (docs/performance.md).

Whether two nodes are linked is one binary search per row in ``link_codes`` (every pair linked
through a granular predicate, both ways, sorted). For co-objects, the in-links of whichever node of a row has fewer
are gathered from the CSR arrays for all rows in one go and looked up among the other node's in
``in_codes``: the in-link view is sorted by (node, predicate, source), so one int64 code per link
is a sorted array that answers "does node k have in-link (q, x)?" by binary search, and the
in-links of k through q are one run of it (for ``together``).

On a whole index (not an endpoint's ``Neighbourhood``, which holds only the nodes asked for),
``near_objects`` answers the other way round: every node near one known object, found once from
its links and two hops through its holders, as a sorted array. A subject's known objects are few
and come back for subject after subject (a hub is the known object of thousands), while re-pairing
asks about every object of a long line; a binary search per candidate in a set made once costs
less than gathering the in-links of every (candidate, known) row again (docs/performance.md).
The samplers' sets are made many at a time (``near_objects_many``, the same arrays); ``near_objects``
makes one, and is what the tests hold the batches to. Nearness is symmetric (b is in the set of k
exactly when k is in the set of b), which lets a caller search whichever of the two sets it has.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

TOGETHER = 2.0  # times chance at which two popular objects of a subject count as co-objects
# Holders of both that chance expects under the scenario's predicate before it judges two objects
# itself (``held_apart``): for one place at two granularities, seeing fewer than twice that many is
# unlikely; with one or two expected, none seen says little.
JUDGED = 3.0
PASS_LINKS = 1 << 20  # in-links of the known nodes whose near sets one pass of near_objects_many makes


def gather(ptr: np.ndarray, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For CSR pointers ``ptr``: the positions of every node's run, and the row each came from."""
    return runs(ptr[nodes], ptr[nodes + 1])


def runs(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The positions of every run lo[i]:hi[i], one after the other, and the row each came from."""
    counts = hi - lo
    starts = np.cumsum(counts) - counts
    return np.arange(int(counts.sum())) - np.repeat(starts - lo, counts), np.repeat(np.arange(lo.size), counts)


def _any_per_row(rows: np.ndarray, hit: np.ndarray, n_rows: int) -> np.ndarray:
    return np.bincount(rows[hit], minlength=n_rows) > 0


def link_codes(index, granular: np.ndarray) -> np.ndarray:
    """``Adjacency.link_codes`` for the links through predicates with ``granular[q]`` only."""
    n = np.int64(len(index.entities))
    keep = granular[index.pred]
    src, dst = index.src[keep].astype(np.int64), index.dst[keep].astype(np.int64)
    return np.unique(np.concatenate([src * n + dst, dst * n + src]))


def adjacent(index, a: np.ndarray, b: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Per row: is there a link between a[i] and b[i], either way, among ``codes`` (``link_codes``)?"""
    return sorted_member(a * len(index.entities) + b, codes)


def sorted_member(values: np.ndarray, sorted_values: np.ndarray) -> np.ndarray:
    """Which ``values`` occur in ``sorted_values`` (binary search: cheap when the list is a hub's)."""
    if sorted_values.size == 0:
        return np.zeros(values.shape, dtype=bool)
    at = np.searchsorted(sorted_values, values.astype(sorted_values.dtype, copy=False))
    at[at >= sorted_values.size] = 0
    return sorted_values[at] == values


def co_objects(index, a: np.ndarray, b: np.ndarray, granular: np.ndarray, subjects: np.ndarray,
               predicate: int | None = None) -> np.ndarray:
    """Per row: do some x link to both a[i] and b[i] through one predicate q with granular[q], more
    often than chance (``together``)? ``subjects[q]``: how many distinct subjects q has. Not
    where the scenario's ``predicate`` itself holds them apart (``held_apart``)."""
    index.need_shared_holders(a, b, granular)
    found = _co_objects(index, a, b, granular, subjects)
    rows = np.flatnonzero(found)
    if predicate is not None and rows.size:
        found[rows[held_apart(index, a[rows], b[rows], predicate, subjects)]] = False
    return found


def _co_objects(index, a: np.ndarray, b: np.ndarray, granular: np.ndarray, subjects: np.ndarray) -> np.ndarray:
    rows, preds, shared = index.counted_shared_holders(a, b, *_shared_holders(index, a, b, granular))
    if not rows.size:
        return np.zeros(a.size, dtype=bool)
    # counted in the store where an endpoint's index lacks the rest of a hub's run
    near = together(shared, index.in_run_sizes(a[rows], preds), index.in_run_sizes(b[rows], preds), subjects[preds])
    return _any_per_row(rows, near, a.size)


def _shared_holders(index, a: np.ndarray, b: np.ndarray, granular: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, predicate id, holders) sorted by row then predicate, for each q with ``granular[q]``
    through which some x links to both a[i] and b[i]: how many such x."""
    codes = index.in_codes
    if codes is None:  # too many entities for one int64 code per link: row by row
        found = sorted((i, q, k) for i, (x, y) in enumerate(zip(a.tolist(), b.tolist()))
                       for q, k in _shared_in_links(index, x, y, granular).items())
        out = np.array(found, dtype=np.int64).reshape(-1, 3)
        return out[:, 0], out[:, 1], out[:, 2]
    in_degree = index.in_degrees
    swap = in_degree[a] > in_degree[b]
    small, other = np.where(swap, b, a), np.where(swap, a, b)
    at, row = gather(index.in_ptr, small)
    keep = granular[index.in_pred[at]]
    at, row = at[keep], row[keep]
    pred = index.in_pred[at].astype(np.int64)
    hit = sorted_member(index.in_code(other[row], pred, index.in_src[at]), codes)
    keys, shared = np.unique(row[hit] * len(index.predicates) + pred[hit], return_counts=True)
    return keys // len(index.predicates), keys % len(index.predicates), shared


def together(shared, degree_a, degree_b, subjects):
    """Are two objects held by ``shared`` common subjects of q more often than chance says?

    Chance is degree_a * degree_b / subjects (independent objects). Where it expects at most one
    holder, one is enough: a city and its country, each held by a few. Otherwise at least
    ``TOGETHER`` times chance: two popular objects (English and French spoken, US and British
    citizenship) share many holders by chance alone and are not one thing at two granularities,
    and counting them refused every popular object, so false objects were rare ones."""
    expected = np.asarray(degree_a, dtype=np.float64) * degree_b
    return (expected <= subjects) | (np.asarray(shared) * subjects >= TOGETHER * expected)


def held_apart(index, a: np.ndarray, b: np.ndarray, predicate: int, subjects: np.ndarray) -> np.ndarray:
    """Per row: does ``predicate`` itself say that a[i] and b[i] are two things, not one at two
    granularities? It does where chance expects at least ``JUDGED`` subjects of it to hold both
    (it has seen enough of each) and they are not held together more often than ``together`` asks.

    Co-objects through other predicates are a hint for objects the predicate has seen too little
    of. For popular ones it is one holder among thousands: a single person resident in both the US
    and France made the two co-objects (CoDEx), and every French citizen was refused the US as a
    false citizenship, though the KB's citizens hold both far less often than chance. False
    objects were then the rare ones, and object popularity told them from true ones."""
    steps = np.full(a.size, -(predicate + 1), dtype=np.int64)
    (lo_a, hi_a), (lo_b, hi_b) = index.follow_many(a, steps), index.follow_many(b, steps)
    degree_a, degree_b = hi_a - lo_a, hi_b - lo_b
    judged = degree_a * degree_b >= JUDGED * subjects[predicate]
    shared = np.zeros(a.size, dtype=np.int64)
    for row in np.flatnonzero(judged).tolist():  # only rows that were co-objects: few
        shared[row] = _common(index.in_src[lo_a[row]:hi_a[row]], index.in_src[lo_b[row]:hi_b[row]])
    return judged & ~together(shared, degree_a, degree_b, subjects[predicate])


def _common(a: np.ndarray, b: np.ndarray) -> int:
    """How many distinct values two sorted arrays share: the smaller one looked up in the larger.
    ``np.intersect1d`` sorted both again, and at 1M most of re-pairing's time near popular objects
    went there (docs/performance.md)."""
    if a.size > b.size:
        a, b = b, a
    hit = a[sorted_member(a, b)]
    return int(hit.size and 1 + np.count_nonzero(hit[1:] != hit[:-1]))


def near_known(index, candidate: np.ndarray, known: np.ndarray, group: np.ndarray, n_groups: int,
               granular: np.ndarray, links: np.ndarray, subjects: np.ndarray, predicate: int | None = None) -> np.ndarray:
    """Per group of rows (one candidate fact and each known object of its subject): is the
    candidate linked to one of the known nodes (``links``), or a co-object of one (``predicate``:
    the scenario's, see ``co_objects``)?"""
    index.need_linked(candidate, known, granular)
    near = np.zeros(n_groups, dtype=bool)
    near[group[adjacent(index, candidate, known, links)]] = True
    rest = np.flatnonzero(~near[group])  # co-objects only for candidates not refused already
    if rest.size:
        near[group[rest[co_objects(index, candidate[rest], known[rest], granular, subjects, predicate)]]] = True
    return near


def near_objects(index, known: int, granular: np.ndarray, subjects: np.ndarray,
                 predicate: int | None = None) -> np.ndarray:
    """Every node b, sorted, for which ``near_known`` says that b is near the node ``known``:
    linked to it through a granular predicate either way, or its co-object (``co_objects``: held
    with it by more holders x of one granular q than chance, and not ``held_apart`` by the
    scenario's ``predicate``). The holders' other objects are two hops away (^q then q), and one
    count per (b, q) is the holders both share; only a whole index has every holder's links."""
    at = np.arange(index.out_ptr[known], index.out_ptr[known + 1])
    inward = np.arange(index.in_ptr[known], index.in_ptr[known + 1])
    linked = np.concatenate([index.dst[at[granular[index.pred[at]]]], index.in_src[inward[granular[index.in_pred[inward]]]]])
    co, shared, pred = _held_with(index, known, inward[granular[index.in_pred[inward]]])
    degree_known = np.bincount(index.in_pred[inward], minlength=len(index.predicates))
    near = together(shared, degree_known[pred], _in_degree(index, co, pred), subjects[pred])
    co = np.unique(co[near])
    if predicate is not None and co.size:
        co = co[~_held_apart_of(index, known, inward, co, predicate, subjects)]
    return np.union1d(linked.astype(np.int64), co)


def _held_with(index, known: int, holds: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For the in-links ``holds`` (positions in the in-link view) of ``known``: the other objects b
    their holders give through the same predicate q, as distinct (b, q) with how many holders."""
    holders, preds = index.in_src[holds].astype(np.int64), index.in_pred[holds].astype(np.int64)
    lo, hi = index.follow_many(holders, preds + 1)
    at, row = runs(lo, hi)
    p = len(index.predicates)
    keys, shared = np.unique(index.dst[at].astype(np.int64) * p + preds[row], return_counts=True)
    return keys // p, shared, keys % p


def _in_degree(index, nodes: np.ndarray, preds: np.ndarray) -> np.ndarray:
    lo, hi = index.follow_many(nodes, -(preds + 1))
    return hi - lo


def _held_apart_of(index, known: int, inward: np.ndarray, co: np.ndarray, predicate: int,
                   subjects: np.ndarray) -> np.ndarray:
    """``held_apart`` of (known, b) for every b of ``co``, the holders both share through
    ``predicate`` counted two hops away as in ``near_objects``."""
    through = inward[index.in_pred[inward] == predicate]
    steps = np.full(co.size, predicate, dtype=np.int64)
    degree_known, degree_co = through.size, _in_degree(index, co, steps)
    judged = degree_known * degree_co >= JUDGED * subjects[predicate]
    others, shared, _ = _held_with(index, known, through)
    common = np.zeros(co.size, dtype=np.int64)
    if others.size:
        at = np.minimum(np.searchsorted(others, co), others.size - 1)
        hit = others[at] == co
        common[hit] = shared[at[hit]]
    return judged & ~together(common, degree_known, degree_co, subjects[predicate])


def _shared_in_links(index, a: int, b: int, granular: np.ndarray) -> Counter:
    """Per predicate id q with ``granular[q]``: how many subjects link to both a and b through q."""
    holders = []
    for node in (a, b):
        nodes, preds = index.inbound(node)
        keep = granular[preds]
        holders.append(set(zip(preds[keep].tolist(), nodes[keep].tolist())))
    return Counter(q for q, _ in holders[0] & holders[1])


def near_objects_many(index, known: np.ndarray, granular: np.ndarray, subjects: np.ndarray,
                      predicate: int | None = None) -> list[np.ndarray]:
    """``near_objects`` of each node of ``known``, made together: the same arrays, in a fixed number
    of array operations for all of them. One at a time, a subject's dozen known objects each paid
    some thirty numpy calls, which cost more than the few links most of them have."""
    known = np.asarray(known, dtype=np.int64)
    n, p = len(index.entities), max(len(index.predicates), 1)
    step = max(1, (2 ** 62) // (n * p))  # rows per pass such that (row, node, predicate) packs into an int64
    # a pass's arrays grow with its nodes' in-links (their holders' links are read): the known objects
    # of thousands of subjects go in several passes
    reach = np.cumsum(index.in_ptr[known + 1] - index.in_ptr[known]) // PASS_LINKS
    cuts = sorted(set(range(step, known.size, step)) | set((np.flatnonzero(np.diff(reach)) + 1).tolist()))
    return [near for part in np.split(known, cuts) if part.size
            for near in _near_objects_pass(index, part, granular, subjects, predicate)]


def _near_objects_pass(index, known: np.ndarray, granular: np.ndarray, subjects: np.ndarray,
                       predicate: int | None) -> list[np.ndarray]:
    n = len(index.entities)
    at, row = gather(index.out_ptr, known)
    keep = granular[index.pred[at]]
    inward, in_row = gather(index.in_ptr, known)
    holds = granular[index.in_pred[inward]]
    codes = [row[keep] * n + index.dst[at[keep]], in_row[holds] * n + index.in_src[inward[holds]]]
    co_row, co, shared, pred = _held_with_many(index, in_row[holds], inward[holds])
    if co.size:
        near = together(shared, _runs_of(index, known[co_row], -(pred + 1)), _runs_of(index, co, -(pred + 1)),
                        subjects[pred])
        pairs = _sorted_unique(co_row[near] * n + co[near])
        if predicate is not None and pairs.size:
            through = index.in_pred[inward] == predicate
            pairs = pairs[~_held_apart_many(index, known, in_row[through], inward[through], pairs, predicate, subjects)]
        codes.append(pairs)
    every = _sorted_unique(np.concatenate(codes).astype(np.int64))
    bounds = np.searchsorted(every, np.arange(known.size + 1, dtype=np.int64) * n)
    nodes = every - every // n * n
    return [nodes[bounds[i]:bounds[i + 1]] for i in range(known.size)]


def _held_with_many(index, rows: np.ndarray, holds: np.ndarray):
    """``_held_with`` for the in-links ``holds`` of many known nodes (``rows``: whose each is), as
    distinct (row, b, q) with how many holders."""
    holders, preds = index.in_src[holds].astype(np.int64), index.in_pred[holds].astype(np.int64)
    at, link = runs(*follow_sorted(index, holders, preds + 1))
    n, p = len(index.entities), max(len(index.predicates), 1)
    keys, shared = _sorted_unique((rows[link] * n + index.dst[at]) * p + preds[link], counts=True)
    pairs = keys // p
    return pairs // n, pairs % n, shared, keys % p


def _held_apart_many(index, known: np.ndarray, rows: np.ndarray, through: np.ndarray, pairs: np.ndarray,
                     predicate: int, subjects: np.ndarray) -> np.ndarray:
    """``_held_apart_of`` of each (row, b) of ``pairs`` (row * |entities| + b, sorted), the
    ``predicate``'s in-links ``through`` of the known nodes given with their ``rows``."""
    n = len(index.entities)
    row, co = pairs // n, pairs % n
    degree_known = np.bincount(rows, minlength=known.size)[row]
    degree_co = _runs_of(index, co, np.full(co.size, -(predicate + 1), dtype=np.int64))
    judged = degree_known * degree_co >= JUDGED * subjects[predicate]
    others_row, others, shared, _ = _held_with_many(index, rows, through)
    common = np.zeros(co.size, dtype=np.int64)
    if others.size:
        keys = others_row * n + others
        at = np.minimum(np.searchsorted(keys, pairs), keys.size - 1)
        hit = keys[at] == pairs
        common[hit] = shared[at[hit]]
    return judged & ~together(common, degree_known, degree_co, subjects[predicate])


def _runs_of(index, nodes: np.ndarray, steps: np.ndarray) -> np.ndarray:
    lo, hi = follow_sorted(index, nodes, steps)
    return hi - lo


def follow_sorted(index, nodes: np.ndarray, steps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``index.follow_many``, each distinct (node, step) searched once and in order: a known object's
    holders are spread over the whole code array, and binary searches in sorted order find the
    cache where the last one left it."""
    if nodes.size < 2:
        return index.follow_many(nodes, steps)
    width = 2 * max(len(index.predicates), 1) + 1
    key = nodes.astype(np.int64) * width + steps
    order = np.argsort(key)
    key = key[order]
    first = np.r_[True, key[1:] != key[:-1]]
    lo, hi = index.follow_many(nodes[order[first]], steps[order[first]])
    which = np.cumsum(first) - 1
    out_lo, out_hi = np.empty(nodes.size, dtype=np.int64), np.empty(nodes.size, dtype=np.int64)
    out_lo[order], out_hi[order] = lo[which], hi[which]
    return out_lo, out_hi


def _sorted_unique(values: np.ndarray, counts: bool = False):
    """``np.unique`` by sorting and comparing neighbours (its hashing is slow on large arrays)."""
    values = np.sort(values)
    first = np.r_[True, values[1:] != values[:-1]] if values.size else np.zeros(0, dtype=bool)
    if not counts:
        return values[first]
    starts = np.flatnonzero(first)
    return values[starts], np.diff(np.r_[starts, values.size])
