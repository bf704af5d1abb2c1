"""A scenario from an endpoint without copying its KB: generate, fetch what generation lacked, again.

What a scenario reads depends on what it drew: the true facts decide whose neighbourhoods path
search and LCWA read, the paths decide where walks go, the walks' ends decide whose links
nearness screens. So the neighbourhoods are not known before generating. Each round generates
over everything fetched so far (``sparql.neighbourhood.Neighbourhood``); every lookup of links
or a degree that was not fetched is noted, and answered from what is there (a round that read
anything incomplete may choose differently, or fail: its result is dropped). Then what it lacked
is fetched, a VALUES batch of entities a query, and the next round starts. A round that lacked
nothing read only whole neighbourhoods and exact degrees: it is the scenario the whole index
gives, byte for byte. Every round fetches something new, so the rounds end; their number is
about the longest chain of lookups (path length, walk, nearness of the walk's end).

Only clustering (``homogeneity`` > 0) needs the whole KB: its embeddings are trained on walks from
every entity. Through an endpoint it needs the old full copy (``--endpoint-copy``).
"""
from __future__ import annotations

import time

from factforge.sparql.neighbourhood import NeighbourhoodReader

from .restatements import restatements
from .spec import ScenarioSpec, SpecError


def generate_around(store, spec: ScenarioSpec, generate):
    """The scenario of ``spec``; ``generate(index)`` makes it over a given adjacency index."""
    if spec.homogeneity > 0:
        raise SpecError("homogeneity", "homogeneity clusters facts by embeddings trained on walks over the whole KB: "
                                       "through an endpoint it needs a copy of every link (--endpoint-copy), or "
                                       "use homogeneity 0")
    started = time.perf_counter()
    reader = NeighbourhoodReader(store, spec.predicate, degrees=spec.popularity != "random")
    rounds = 0
    while True:
        rounds += 1
        index = reader.index()
        index.walk_reader = reader
        try:
            scenario = generate(index)
        except Exception:
            if not (index.lacks_links or index.missing_degrees or index.walked_ahead):
                raise  # it read only what it had: a real error
            scenario = None
        # walks that fetched during the round read links its index lacks: the next round has them
        if scenario is not None and not (index.lacks_links or index.missing_degrees or index.walked_ahead):
            break
        if not reader.fetch(index) and not index.walked_ahead:
            raise RuntimeError("neighbourhood generation lacked links it had already fetched")  # a bug
    # The final checks read only the predicate's facts, fetched whole. The shortcut audit reads of R
    # each fact's ends' degrees and their direct links (its type baseline asks the store): those,
    # and R's removed triples and the facts' statement nodes, which the audit takes out of R.
    triples = [item.fact.triple for item in scenario.facts]
    reader.fetch_for_audit(triples, set(scenario.removed) | restatements(store, triples))
    scenario.index = reader.index()
    scenario.fetched = {"rounds": rounds, "rows": reader.rows, "entities": len(reader.complete),
                        "links": len(reader.links), "seconds": round(time.perf_counter() - started, 3)}
    return scenario
