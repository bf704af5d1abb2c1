"""The reference KB R as the checkers see it: the adjacency index minus removed triples, as arrays.

Checkers never query the store per entity: R is the KB's adjacency index (``sparql.adjacency``)
with the scenario's removed triples masked out, plus one combined neighbour list per node (links
in both directions, with signed steps: +(p+1) forward, -(p+1) inverse, as ``Adjacency.steps``).
``without(triples)`` drops more triples, e.g. the facts being scored, so that a true train fact
(which is in R) is not its own evidence.
"""
from __future__ import annotations

from functools import cached_property
from typing import Iterable

import numpy as np

from factforge.sparql.neighbourhood import Neighbourhood
from factforge.sparql.store import Store

from factforge.generators import positives
from factforge.generators.facts import Fact
from factforge.generators.reference_kb import ReferenceKB

from .labelled import LabelledError


class Reference(ReferenceKB):
    """R (``generators.reference_kb``) with the arrays the checkers read it through."""

    @property
    def whole(self) -> bool:
        """Does R hold every link of the KB, or only the neighbourhoods fetched from an endpoint?"""
        return not isinstance(self.index, Neighbourhood)

    # --- arrays -------------------------------------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.index.entities)

    def ids(self, entities: Iterable[str]) -> np.ndarray:
        """Entity ids, -1 for entities R does not know."""
        lookup = self.index.index
        return np.array([lookup.get(e, -1) for e in entities], dtype=np.int64)

    @cached_property
    def degree(self) -> np.ndarray:
        """Links of each node in R, in and out (the README's degree G, after removal). Of a node a
        neighbourhood holds in part, its degree counted in the store less the links R lacks there:
        the index holds every triple taken out of R around it (``NeighbourhoodReader.fetch_for_audit``)."""
        src, _, dst = self.links
        degree = (np.bincount(src, minlength=self.n) + np.bincount(dst, minlength=self.n)).astype(np.int64)
        index = self.index
        if isinstance(index, Neighbourhood):
            counted = ~index.complete & (index.known_degree >= 0)
            gone = ~self.keep
            lost = np.bincount(index.src[gone], minlength=self.n) + np.bincount(index.dst[gone], minlength=self.n)
            degree[counted] = index.known_degree[counted] - lost[counted]
        return degree

    @cached_property
    def steps(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(pointers, neighbour, signed step): node i's links in both directions are
        ``neighbour[ptr[i]:ptr[i+1]]``, sorted by (node, step, neighbour)."""
        src, pred, dst = self.links
        node = np.concatenate([src, dst]).astype(np.int64)
        other = np.concatenate([dst, src]).astype(np.int64)
        step = np.concatenate([pred.astype(np.int64) + 1, -(pred.astype(np.int64) + 1)])
        order = np.lexsort((other, step, node))
        counts = np.bincount(node, minlength=self.n)
        ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        return ptr, other[order], step[order]

    def expand(self, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every link of each node in ``nodes``: (position in ``nodes``, neighbour, signed step)."""
        ptr, other, step = self.steps
        nodes = np.asarray(nodes, dtype=np.int64)
        origin, offsets = spans(ptr[nodes], ptr[nodes + 1] - ptr[nodes])
        return origin, other[offsets], step[offsets]

    def step_name(self, step: int) -> str:
        return self.index.step_name(int(step))


def spans(lo: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Runs [lo[i], lo[i] + counts[i]) laid end to end: (i of each position, the position)."""
    total = int(counts.sum())
    origin = np.repeat(np.arange(lo.size), counts)
    offsets = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts) + np.repeat(lo, counts)
    return origin, offsets.astype(np.int64)


def scenario_reference(files, store: Store, index: Neighbourhood | None = None) -> Reference:
    """R of a written scenario (``labelled.ScenarioFiles``): the removed triples are not written, so
    they are derived again, exactly as the generator did, from the test facts and the leakage
    level in the manifest. The store must hold the KB the scenario was made from. ``index``: the
    neighbourhoods fetched from an endpoint instead of the KB's whole index."""
    made_from = files.manifest.get("kb_fingerprint")
    if made_from and made_from != store.fingerprint():
        raise LabelledError(f"--store: this KB ({store.fingerprint()}) is not the one {files.folder} was made from "
                         f"({made_from})")
    spec = files.manifest.get("spec", {})
    predicate = scenario_predicate(files)
    test_facts = [Fact(r["subject"], r["predicate"], r["object"], r.get("start"), r.get("end")) for r in files.test]
    kb_pairs = positives.kb_pairs(store, predicate, index=index) if index is not None else None
    return Reference.around(store, test_facts, spec.get("leakage", "triple"), predicate, index=index,
                            kb_pairs=kb_pairs)


def scenario_predicate(files) -> str | None:
    return files.manifest.get("spec", {}).get("predicate") or (files.test[0]["predicate"] if files.test else None)
