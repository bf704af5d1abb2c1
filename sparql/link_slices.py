"""How a neighbourhood reader splits the links it fetches into answers of a bounded size.

One VALUES batch of entities a query read every link of each: a batch holding a hub (a country
with hundreds of thousands of in-links at 10M triples) answered more rows than Virtuoso gives (it
cuts at 2^20 without saying so), and made the endpoint sort them all for every page. Knowing each
entity's links (``entity_link_totals``, counted in the store), and per predicate and direction
those of an entity with more than the cap (``entity_link_degrees``), the entities are packed into
batches whose links add up to at most the cap; an entity with more links than that is read a
predicate and a direction at a time (``entity_in_runs``, ``entity_out_runs``), each run in one
unordered query that the store shows whole or pages (ordered slices of the cap made the store sort
the whole run for each slice).
"""
from __future__ import annotations

from typing import Callable, Iterator

Sizes = dict[tuple[str, str], int]  # (direction "in" or "out", predicate IRI) -> distinct links


def plan(entities: list[str], links: Callable[[str], int], sizes: dict[str, Sizes], cap: int,
         batch: int) -> Iterator[list[str] | tuple]:
    """The queries that read every link of ``entities``, in their order: a list of entities for one
    ``entity_links`` batch (at most ``batch`` of them, at most ``cap`` links in all), or
    (entity, direction, predicate, links) for one predicate's links of a hub. ``links``: an
    entity's links in all; ``sizes``: of an entity with more than ``cap``, its links per run."""
    for group in pack(entities, links, cap, batch):
        if isinstance(group, list):
            yield group
        else:
            yield from ((group, side, predicate, n) for (side, predicate), n in sorted(sizes[group].items()))


def pack(items: list, size: Callable[[object], int], cap: int, batch: int) -> Iterator:
    """``items`` in their order, packed into lists of at most ``batch`` items whose sizes add up to
    at most ``cap``; an item larger than ``cap`` on its own (not in a list), for its caller to split."""
    group: list = []
    total = 0
    for item in items:
        n = size(item)
        if n > cap:
            yield item
            continue
        if group and (total + n > cap or len(group) >= batch):
            yield group
            group, total = [], 0
        group.append(item)
        total += n
    if group:
        yield group
