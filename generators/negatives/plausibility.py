"""How plausible an object is for a subject, read from the KB alone: where short walks from the
subject end through the predicate.

A false object drawn by popularity among the predicate's objects has nothing to do with its
subject: a graph checker or an embedding sees that the subject's neighbourhood leads elsewhere.
Hand-checked negatives (CoDEx's) were picked among the objects a link predictor ranked high for
the subject, so they lead where the true ones do. ``walk_reach`` gives, for one subject, the
probability that a walk of one or two links (any predicate, either direction) and then one link
of the predicate ends at each object: "what entities near s have as p" (the people s was
influenced by, and who influenced them; the people who share s's country, and their religion;
the co-holders of s's other occupations, and theirs). Fallbacks draw their objects in proportion
to it, so that a false object is one the subject's neighbourhood points to, as a true one is.
"""
from __future__ import annotations

import weakref

import numpy as np

from factforge.sparql.adjacency import Adjacency

from .nearness import runs, sorted_member

# Nodes with more links are not walked through: from a hub a walk ends almost anywhere, and
# gathering a hub's links per subject would cost more than the rest of the fallback.
HUB_LINKS = 5000


def neighbours(index, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every neighbour of ``nodes`` (ids) in both directions, and the row each came from (behind an
    endpoint, the nodes whose links were not fetched yet are noted, ``Adjacency.need``)."""
    index.need(nodes)
    out_at, out_row = runs(index.out_ptr[nodes], index.out_ptr[nodes + 1])
    in_at, in_row = runs(index.in_ptr[nodes], index.in_ptr[nodes + 1])
    return np.concatenate([index.dst[out_at], index.in_src[in_at]]).astype(np.int64), np.concatenate([out_row, in_row])


def walk_reach(index, subject: int, predicate: int | None, avoid: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """The objects (sorted ids) that a walk from ``subject`` can end at, with the probability that
    it does: one or two links (a uniform choice of link at each node, then of whether to stop
    after the first), then one ``predicate`` link forward.

    ``avoid``: a node the walk may not take as its first step (the true object the false fact
    replaces: the reference KB a checker reads holds no link between it and the subject). A walk
    does not come back to ``subject`` either, where its own objects would count."""
    nothing = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    if subject < 0 or predicate is None:
        return nothing
    degree = index.degrees
    first, _ = neighbours(index, np.array([subject], dtype=np.int64))
    if not first.size:
        return nothing
    weight = np.full(first.size, 0.5 / first.size)
    keep = (first != avoid) & (degree[first] <= HUB_LINKS)
    first, weight = first[keep], weight[keep]
    second, row = neighbours(index, first)
    second_weight = (weight / degree[first])[row]
    keep = second != subject
    middle = np.concatenate([first, second[keep]])
    weight = np.concatenate([weight, second_weight[keep]])
    lo, hi = index.follow_many(middle, np.full(middle.size, predicate + 1, dtype=np.int64))
    has = hi > lo
    at, row = runs(lo[has], hi[has])
    ends, share = index.dst[at].astype(np.int64), (weight[has] / (hi - lo)[has])[row]
    objects, where = np.unique(ends, return_inverse=True)
    return objects, np.bincount(where, weights=share, minlength=objects.size)


def reach_of(reach: tuple[np.ndarray, np.ndarray], nodes: np.ndarray) -> np.ndarray:
    """``walk_reach``'s probability for each of ``nodes`` (0 where no walk ends)."""
    objects, probability = reach
    found = sorted_member(nodes, objects)
    values = np.zeros(nodes.size, dtype=np.float64)
    values[found] = probability[np.searchsorted(objects, nodes[found])]
    return values


def predicate_reach(index, subject: int, predicate: int | None, avoid: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """As ``walk_reach``, with the walk's second link taken through ``predicate`` only (either
    direction): a link of the subject (not to ``avoid``), then with probability one half a link of
    ``predicate``, then one ``predicate`` link forward. On an
    occupation: the subject's other occupations, their other holders, and those holders'
    occupations.

    It reads the subject's links and the predicate's, which a scenario reads on every backend
    (path search reads the subject whole, and the predicate's facts are all read first).
    ``walk_reach`` reads every link of each of the subject's neighbours: through an endpoint that
    fetched neighbours path search never reads (it asks the store for a length-3 middle's step
    pairs, not its links), and a neighbour's link count to skip hubs by is what was fetched of it
    there, not the KB's.

    Every end of every walk: random walk weighs a few of them per subject, and takes them from
    ``predicate_middles`` and ``reach_at``, which agree with this (tests/test_predicate_reach.py)."""
    nothing = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    if subject < 0 or predicate is None:
        return nothing
    middle, weight = _middles(index, subject, predicate, avoid)
    lo, hi = index.follow_many(middle, np.full(middle.size, predicate + 1, dtype=np.int64))
    has = hi > lo
    at, row = runs(lo[has], hi[has])
    ends, share = index.dst[at].astype(np.int64), (weight[has] / (hi - lo)[has])[row]
    # summed per node id without sorting: the ends of a dense predicate's second link run to the
    # hundreds of thousands per subject, and np.unique's sort was most of the matching's time; the
    # sums are the same (bincount adds in the same order either way)
    total = np.bincount(ends, weights=share)
    objects = np.flatnonzero(total > 0)
    return objects.astype(np.int64), total[objects]


def predicate_out_degrees(index, predicate: int) -> np.ndarray:
    """By node id: how many ``predicate`` links each node has forward (the predicate's links are
    read whole on every backend). Kept per whole index and predicate: the index does not change
    once built (an endpoint's partial index grows, and is read again each time)."""
    if type(index) is not Adjacency:
        return np.bincount(index.src[index.pred == predicate], minlength=len(index.entities))
    key = (id(index), predicate)
    kept = _OUT_DEGREES.get(key)
    if kept is None or kept[0]() is not index:
        for stale in [k for k, (ref, _) in _OUT_DEGREES.items() if ref() is None]:
            del _OUT_DEGREES[stale]
        kept = _OUT_DEGREES[key] = (weakref.ref(index),
                                    np.bincount(index.src[index.pred == predicate], minlength=len(index.entities)))
    return kept[1]


_OUT_DEGREES: dict[tuple[int, int], tuple[weakref.ref, np.ndarray]] = {}


def predicate_middles(index, subject: int, predicate: int | None, avoid: int = -1,
                      out_degrees: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Where a walk of ``predicate_reach`` stands before its last link: the distinct nodes (sorted
    ids) with a ``predicate`` link forward, and for each the probability of each such link (the
    walk's share at the node over its ``predicate`` links forward). ``reach_at`` finishes the walk
    at given objects only. ``out_degrees``: ``predicate_out_degrees``, for many subjects.

    The last link is what makes ``predicate_reach`` dear on a dense predicate: every node a walk
    stands at spreads its share over all its objects (thousands of distinct ends per subject),
    while the matching weighs a few dozen of them."""
    nothing = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    if subject < 0 or predicate is None:
        return nothing
    middle, weight = _middles(index, subject, predicate, avoid)
    if out_degrees is not None:  # a node with no link forward ends no walk: not sorted with the rest
        keep = out_degrees[middle] > 0
        middle, weight = middle[keep], weight[keep]
    if not middle.size:
        return nothing
    nodes, where = np.unique(middle, return_inverse=True)
    weight = np.bincount(where, weights=weight, minlength=nodes.size)
    if out_degrees is None:
        lo, hi = index.follow_many(nodes, np.full(nodes.size, predicate + 1, dtype=np.int64))
        forward = hi - lo
    else:
        forward = out_degrees[nodes]
    has = forward > 0
    return nodes[has], weight[has] / forward[has]


def reach_at(index, middles: tuple[np.ndarray, np.ndarray], predicate: int | None, objects: np.ndarray) -> np.ndarray:
    """``predicate_reach``'s probability for each of ``objects`` (ids; 0 where no walk ends, or
    -1), from the subject's ``predicate_middles``: the share of each middle node that holds the
    object by ``predicate``.

    An object's holders are looked up among the middle nodes where it has not many more of them
    than there are middle nodes, else the middle nodes among its holders (a hub object's holders
    are most of a dense predicate's subjects)."""
    nodes, share = middles
    objects = np.asarray(objects, dtype=np.int64)
    values = np.zeros(objects.size, dtype=np.float64)
    known = np.flatnonzero(objects >= 0)
    if not nodes.size or predicate is None or not known.size:
        return values
    lo, hi = index.follow_many(objects[known], np.full(known.size, -(predicate + 1), dtype=np.int64))
    few = hi - lo <= 2 * nodes.size
    rows = known[few]
    at, row = runs(lo[few], hi[few])
    holders = index.in_src[at].astype(np.int64)
    place = np.minimum(np.searchsorted(nodes, holders), nodes.size - 1)
    hit = nodes[place] == holders
    values[rows] = np.bincount(row[hit], weights=share[place[hit]], minlength=rows.size)
    if not few.all():
        middle = nodes.astype(index.in_src.dtype)  # the runs' own type: no conversion of a run per search
        for k, start, end in zip(known[~few].tolist(), lo[~few].tolist(), hi[~few].tolist()):
            run = index.in_src[start:end]  # the object's holders, sorted by id
            count = np.searchsorted(run, middle, "right") - np.searchsorted(run, middle, "left")
            values[k] = float(share @ count)
    return values


def _middles(index, subject: int, predicate: int, avoid: int) -> tuple[np.ndarray, np.ndarray]:
    """The nodes a walk of ``predicate_reach`` stands at before its last link, one row per way of
    getting there, with its probability."""
    first, _ = neighbours(index, np.array([subject], dtype=np.int64))
    if not first.size:
        return first, np.zeros(0, dtype=np.float64)
    weight = np.full(first.size, 0.5 / first.size)
    keep = (first != avoid) & (first != subject)
    first, weight = first[keep], weight[keep]
    forward = np.full(first.size, predicate + 1, dtype=np.int64)
    out_lo, out_hi = index.follow_many(first, forward)
    in_lo, in_hi = index.follow_many(first, -forward)
    links = (out_hi - out_lo) + (in_hi - in_lo)
    # the predicate's links of a hub (a country's citizens) lead almost anywhere, and reading each
    # of them per subject would cost more than the rest of the matching
    step = (links > 0) & (links <= HUB_LINKS)
    out_at, out_row = runs(out_lo[step], out_hi[step])
    in_at, in_row = runs(in_lo[step], in_hi[step])
    second = np.concatenate([index.dst[out_at], index.in_src[in_at]]).astype(np.int64)
    second_weight = (weight[step] / links[step])[np.concatenate([out_row, in_row])]
    keep = second != subject
    return np.concatenate([first, second[keep]]), np.concatenate([weight, second_weight[keep]])


# A path's ends are not gathered past this many links at any of its steps: a walk that spreads this
# wide (through a country's citizens, say) ends almost anywhere, tells little about its subject, and
# gathering it per source would cost more than the rest of the matching.
PATH_FRONTIER = 150


def path_end_rows(index, subject: int, paths, avoid: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """Every node a walk from ``subject`` along each of ``paths`` (signed step sequences) can end at,
    as (place in ``paths``, node) rows sorted by place then node. A walk does not pass through
    ``subject`` or ``avoid`` (the true object: the reference KB holds no link between it and the
    subject), nor along a hub's run of more than ``HUB_LINKS`` links; a path whose walks spread
    past ``PATH_FRONTIER`` links at a step has no rows (``path_end_rows_many`` for one subject).
    Where the index counts runs without reading them (``Adjacency.run_link_counts``), such runs are
    counted, not read."""
    return path_end_rows_many(index, [subject], [paths], [avoid])[0]


def path_end_rows_many(index, subjects, path_lists, avoids) -> list[tuple[np.ndarray, np.ndarray]]:
    """``path_end_rows`` of each subject (``subjects[k]`` along ``path_lists[k]``, not through
    ``avoids[k]``), all subjects and all their paths a step at a time (each distinct prefix of a
    subject once): per subject, or a path at a time, the calls cost more than the rest of the
    random walk on a large KB."""
    empty = np.zeros(0, dtype=np.int64)
    out = [(empty, empty) for _ in subjects]
    active = [k for k, (subject, paths) in enumerate(zip(subjects, path_lists)) if subject >= 0 and len(paths)]
    if not active:
        return out
    n = np.int64(max(len(index.entities), 1))
    subject_of = np.array([subjects[k] for k in active], dtype=np.int64)  # by place in active
    avoid_of = np.array([avoids[k] for k in active], dtype=np.int64)
    # The prefix tree of every subject's paths, level by level in arrays: a prefix's id at a level
    # is its place among the distinct (parent prefix id, step) codes; level 0's prefixes are the
    # subjects (their places in active). A path ends at its last prefix.
    flat = [(a, place, tuple(path)) for a, k in enumerate(active) for place, path in enumerate(path_lists[k])]
    width = max((len(path) for _, _, path in flat), default=0)
    whose_path = np.array([a for a, _, _ in flat], dtype=np.int64)
    place_of = np.array([place for _, place, _ in flat], dtype=np.int64)
    length = np.array([len(path) for _, _, path in flat], dtype=np.int64)
    matrix = np.array([path + (0,) * (width - len(path)) for _, _, path in flat], dtype=np.int64).reshape(len(flat), width)
    span = np.int64(2 * max(len(index.predicates), 1) + 3)
    parents, steps, whose_prefix, ending = [], [], [], []
    current, whose_level = whose_path.copy(), np.arange(len(active), dtype=np.int64)
    for level in range(width):
        has = length > level
        codes, inverse = np.unique(current[has] * span + (matrix[has, level] + span // 2), return_inverse=True)
        parents.append(codes // span)
        steps.append(codes % span - span // 2)
        whose_level = whose_level[parents[-1]]
        whose_prefix.append(whose_level)
        current = np.full(len(flat), -1, dtype=np.int64)
        current[has] = inverse.ravel()
        ends = np.flatnonzero(length == level + 1)
        ending.append((current[ends], whose_path[ends], place_of[ends]))
    # a prefix's frontier rows: (prefix id, node)
    owner_source = np.arange(len(active), dtype=np.int64)  # by prefix id: its place in active
    owner, nodes = np.arange(len(active), dtype=np.int64), subject_of.copy()
    found_source, found_place, found_node = [], [], []
    for level in range(width):
        parent, step = parents[level], steps[level]
        if level > 0:  # an inner node is neither the subject nor the true object
            whose = owner_source[owner]
            inner = (nodes != subject_of[whose]) & (nodes != avoid_of[whose])
            owner, nodes = owner[inner], nodes[inner]
        # rows: every node of each prefix's parent frontier, with the prefix's last step (owner sorted)
        lo_p, hi_p = np.searchsorted(owner, parent, "left"), np.searchsorted(owner, parent, "right")
        at, row = runs(lo_p, hi_p)
        if not at.size:
            break
        lengths = index.run_link_counts(nodes[at], step[row])
        counted = lengths is not None  # runs not read yet: only those kept are followed (read)
        if not counted:
            lo, hi = _follow_sorted(index, nodes[at], step[row])
            lengths = hi - lo
        keep = lengths <= HUB_LINKS
        spread = np.bincount(row[keep], weights=lengths[keep], minlength=parent.size)
        keep &= spread[row] <= PATH_FRONTIER
        if counted:
            lo, hi = np.zeros(at.size, dtype=np.int64), np.zeros(at.size, dtype=np.int64)
            if keep.any():
                lo[keep], hi[keep] = _follow_sorted(index, nodes[at][keep], step[row][keep])
        at_links, which = runs(lo[keep], hi[keep])
        prefix_of = row[keep][which]
        forward = step[prefix_of] > 0
        reached = index.at_runs(at_links, forward).astype(np.int64)
        codes = np.unique(prefix_of * n + reached)
        owner_source = whose_prefix[level]
        owner, nodes = codes // n, codes % n
        gid, whose, place = ending[level]
        if gid.size:
            lo, hi = np.searchsorted(owner, gid, "left"), np.searchsorted(owner, gid, "right")
            at, row = runs(lo, hi)
            found_source.append(whose[row])
            found_place.append(place[row])
            found_node.append(nodes[at])
    if not found_source:
        return out
    whose, place, node = np.concatenate(found_source), np.concatenate(found_place), np.concatenate(found_node)
    order = np.lexsort((node, place, whose))
    whose, place, node = whose[order], place[order], node[order]
    bounds = np.searchsorted(whose, np.arange(len(active) + 1))
    for a, k in enumerate(active):
        out[k] = place[bounds[a]:bounds[a + 1]], node[bounds[a]:bounds[a + 1]]
    return out


def _follow_sorted(index, nodes: np.ndarray, steps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``Adjacency.follow_many`` of each distinct (node, step) row once, in sorted order (a binary
    search of sorted keys starts where the last one ended): subjects of one predicate share many
    frontier nodes."""
    span = np.int64(2 * max(len(index.predicates), 1) + 1)
    rows, where = np.unique(nodes.astype(np.int64) * span + (steps + (span // 2)), return_inverse=True)
    lo, hi = index.follow_many(rows // span, rows % span - span // 2)
    return lo[where], hi[where]


def path_hits(ends: tuple[np.ndarray, np.ndarray], count: int, objects: np.ndarray, among: np.ndarray) -> np.ndarray:
    """For each of ``objects`` (ids; -1: none), how much of a true fact's ``count`` paths
    (``ends``: ``path_end_rows`` from its subject) a walk can end at it along: each path weighs by how
    few of ``among`` (sorted ids: the predicate's objects) it reaches, log((|among| + 1) /
    (reached + 1)), and the weights of the paths that reach an object are summed, over those of
    every path that reaches any node (0 to 1).

    A path checker (path features, Knowledge Linker) scores a fact by the paths that link its
    subject to its object; a true object is reached by many of its own fact's paths at once (a
    birthplace: through the subject's country, its compatriots' birthplaces, its employers' seats),
    one walk end by the one path it was walked along. Hand-checked negatives are reached the ways a
    true object is (a birthplace in the subject's own country). A path that reaches most objects
    (the birthplaces of everyone who speaks the subject's language) tells little, one that reaches
    a few (the places of the subject's country) is what a checker learns: hence the weights."""
    objects = np.asarray(objects, dtype=np.int64)
    hits = np.zeros(objects.size, dtype=np.float64)
    place, node = ends
    if not place.size or not objects.size:
        return hits
    reached = np.bincount(place[sorted_member(node, among)], minlength=count)
    weight = np.log((among.size + 1) / (reached + 1.0))
    weight[np.bincount(place, minlength=count) == 0] = 0.0
    total = weight.sum()
    if total <= 0:
        return hits
    asked = np.unique(objects[objects >= 0])
    hit = sorted_member(node, asked)
    if hit.any():
        nodes, where = np.unique(node[hit], return_inverse=True)
        value = np.bincount(where, weights=weight[place[hit]], minlength=nodes.size)
        found = sorted_member(objects, nodes) & (objects >= 0)
        hits[found] = value[np.searchsorted(nodes, objects[found])]
    return hits / total


def path_reached(ends: tuple[np.ndarray, np.ndarray], objects: np.ndarray) -> np.ndarray:
    """Per object of ``objects`` (sorted distinct ids; -1: none), the place of the first path (in
    ``path_end_rows``'s rows) along which a walk can end at it, -1 where none can."""
    objects = np.asarray(objects, dtype=np.int64)
    first = np.full(objects.size, np.iinfo(np.int64).max, dtype=np.int64)
    place, node = ends
    if place.size and objects.size:
        hit = sorted_member(node, objects)
        np.minimum.at(first, np.searchsorted(objects, node[hit]), place[hit])
    first[first == np.iinfo(np.int64).max] = -1
    return first
