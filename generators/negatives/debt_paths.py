"""More owed objects paid by letting sources already paid trade their object for another.

A round that lets each source in turn take the owed object it likes best leaves some sources
without one although the debts could take them all: on CoDEx's religions the subjects who can take
only one rare object find it taken by subjects who had other choices. Each source left over then
looks for a chain of trades (an augmenting path of a bipartite matching with object capacities):
it takes an object held by a source that can move to another owed object, and so on until a chain
ends at an object with debt to spare. Sources keep what the round gave them where no chain needs
it, so the round's preferences (reach, most owed) stay as they were.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence

MAX_VISITS = 2000  # sources searched per source left over (those known to end nowhere not counted): bounds a search on a big KB


def augment(left_over: Sequence[int], lines: Sequence[Sequence[int]], held: dict[int, int],
            spare: dict[int, int], fits: Callable[[int, int], bool], wanted: int) -> dict[int, int]:
    """``held`` (source -> object) with up to ``wanted`` more sources of ``left_over`` given an
    object of their ``lines`` by chains of trades; ``spare``: how many more sources each object
    may take (changed in place); ``fits(source, object)``: may the source take the object."""
    holders: dict[int, list[int]] = {}
    for source, o in held.items():
        holders.setdefault(o, []).append(source)
    # Sources a search went through to its end without finding an object with room: until a trade
    # changes who holds what, a chain through them cannot end either, so later searches skip them
    # (else every source left over repeats the same vain search, which is most of the time on a big KB).
    dead: set[int] = set()
    for start in left_over:
        if wanted <= 0:
            break
        if start in dead:
            continue
        via: dict[int, tuple[int, int]] = {start: (-1, -1)}  # source -> (the source that wants its object, that object)
        queue, end = deque([start]), None
        while queue and end is None and len(via) <= MAX_VISITS:
            source = queue.popleft()
            for o in lines[source]:
                if o == held.get(source) or not fits(source, o):
                    continue
                if spare.get(o, 0) > 0:
                    end = source, o
                    break
                for other in holders.get(o, ()):
                    if other not in via and other not in dead:
                        via[other] = source, o
                        queue.append(other)
        if end is None:
            if not queue:  # searched to the end, not cut by MAX_VISITS
                dead.update(via)
            continue
        dead.clear()
        source, o = end
        spare[o] -= 1
        while source != -1:  # each source on the chain moves to the object it found
            before = held.get(source)
            if before is not None:
                holders[before].remove(source)
            held[source] = o
            holders.setdefault(o, []).append(source)
            source, o = via[source]
        wanted -= 1
    return held
