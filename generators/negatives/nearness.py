"""Is a candidate object next to a known object? Answered for many (candidate, known) rows at once.

``NegativeContext.next_to_known_object`` refuses a false object o' that is one link away from an
object the KB gives the subject, or its co-object (some x links to both through one predicate q).
Asked one pair at a time with a few numpy calls each, that was most of a random-walk scenario's
time on the synthetic 10M-triple KB: a subject there knows about 18 objects, one of them often a
hub linked to half the KB, so about a hundred candidates were refused per false fact made.

Whether two nodes are linked is one binary search per row in ``Adjacency.link_codes`` (every
linked pair both ways, sorted). For co-objects, the in-links of whichever node of a row has fewer
are gathered from the CSR arrays for all rows in one go and looked up among the other node's in
``in_codes``: the in-link view is sorted by (node, predicate, source), so one int64 code per link
is a sorted array that answers "does node k have in-link (q, x)?" by binary search.
"""
from __future__ import annotations

import numpy as np


def gather(ptr: np.ndarray, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For CSR pointers ``ptr``: the positions of every node's run, and the row each came from."""
    lo = ptr[nodes]
    counts = ptr[nodes + 1] - lo
    starts = np.cumsum(counts) - counts
    return np.arange(int(counts.sum())) - np.repeat(starts - lo, counts), np.repeat(np.arange(nodes.size), counts)


def _any_per_row(rows: np.ndarray, hit: np.ndarray, n_rows: int) -> np.ndarray:
    return np.bincount(rows[hit], minlength=n_rows) > 0


def adjacent(index, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per row: is there a link between a[i] and b[i], either way?"""
    return _member(a * len(index.entities) + b, index.link_codes)


def _member(values: np.ndarray, sorted_values: np.ndarray) -> np.ndarray:
    if sorted_values.size == 0:
        return np.zeros(values.shape, dtype=bool)
    at = np.searchsorted(sorted_values, values)
    at[at >= sorted_values.size] = 0
    return sorted_values[at] == values


def co_objects(index, a: np.ndarray, b: np.ndarray, granular: np.ndarray) -> np.ndarray:
    """Per row: does some x link to both a[i] and b[i] through one predicate q with granular[q]?"""
    codes = index.in_codes
    if codes is None:  # too many entities for one int64 code per link: row by row
        return np.array([_shares_in_link(index, x, y, granular) for x, y in zip(a.tolist(), b.tolist())], dtype=bool)
    in_degree = index.in_degrees
    swap = in_degree[a] > in_degree[b]
    small, other = np.where(swap, b, a), np.where(swap, a, b)
    at, row = gather(index.in_ptr, small)
    keep = granular[index.in_pred[at]]
    at, row = at[keep], row[keep]
    wanted = index.in_code(other[row], index.in_pred[at], index.in_src[at])
    return _any_per_row(row, _member(wanted, codes), a.size)


def near_known(index, candidate: np.ndarray, known: np.ndarray, group: np.ndarray, n_groups: int,
               granular: np.ndarray) -> np.ndarray:
    """Per group of rows (one candidate fact and each known object of its subject): is the
    candidate linked to one of the known nodes, or a co-object of one?"""
    near = np.zeros(n_groups, dtype=bool)
    near[group[adjacent(index, candidate, known)]] = True
    rest = np.flatnonzero(~near[group])  # co-objects only for candidates not refused already
    if rest.size:
        near[group[rest[co_objects(index, candidate[rest], known[rest], granular)]]] = True
    return near


def _shares_in_link(index, a: int, b: int, granular: np.ndarray) -> bool:
    keys = []
    for node in (a, b):
        nodes, preds = index.inbound(node)
        keep = granular[preds]
        keys.append(preds[keep].astype(np.int64) * len(index.entities) + nodes[keep])
    return bool(np.isin(keys[0], keys[1]).any())
