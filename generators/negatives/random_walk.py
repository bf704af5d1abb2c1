"""``random_walk``: the paper's Algorithm 1.

For a true p(s, o), enumerate the predicate paths of length <= t that connect s to o (in either
direction along each edge; schema edges are not in the adjacency index), then walk each path
once from s with seeded random choices. The end node o' becomes p(s, o') when it passes the type
check, is not linked to s by p and is not used yet: a false fact that looks like the true one
(reached "the same way"). A fact with no path of its own walks the paths most common among the
other facts (marked ``borrowed`` in the answers). When walks find too few, objects of other true
facts of p are used, with the same checks (marked ``fallback``): the set's own first, so that a
false object is as frequent in the set as a true one, then those of facts outside the scenario.
Walk ends to objects the set's true facts name come first, then the fallback's objects that true
facts name more than once while they are owed, then walk ends new to the split (``sample``). At
each step the owed objects go to the sources as a whole (``plausible_matching``): as many sources
served as the debts allow, each object where the subject's neighbourhood leads to it most
(``plausibility.predicate_reach``), as hand-checked negatives go with the subject's other facts.

Paths are found meet-in-the-middle over the cached adjacency arrays: the neighbours of s, of
o, and for length 3 the neighbours of s's neighbours intersected with o's, all numpy set
operations; no query per pair.
"""
from __future__ import annotations

from collections import Counter
from itertools import islice

import numpy as np

from factforge.sparql.scan import unique
from factforge.sparql.terms import is_blank_name

from ..facts import Fact, Negative
from . import plausibility
from .base import NegativeContext, NegativeSampler, ObjectBalance, fallback_section, first_acceptable, round_robin
from .nearness import sorted_member
from .plausibility import path_end_rows, path_end_rows_many, path_hits, path_reached, predicate_middles, predicate_out_degrees, reach_at
from .plausible_matching import plausible_matching, weighed

MAX_PATHS = 64  # per fact: enough variety, bounded work near hubs
SCARCE = 2  # an owed object held by at most this many times its debt of the walk round's lines
SCARCE_FIRST = 4.0  # times a scarce object's debt over its takers, added to its reach (path hits and predicate reach are at most 1 each)
WALK_TRIES = 5
HUB_DEGREE = 5000
MEMO_DEGREE = 256
BORROWED_PATHS = 16  # common paths walked by a fact without its own: one good end is enough
FALLBACK_CHUNK = 64  # fallback candidates per source offered to one round-robin pass
MAX_MIDDLE = 400  # middle nodes tried per fact: bounds the work, rarely reached on sparse KBs


def meta_paths(index, s: int, o: int, max_length: int, skip: int,
               memo: dict | None = None) -> list[tuple[int, ...]]:
    """Distinct signed predicate sequences of length <= max_length from s to o.

    ``skip`` is the signed step of the fact itself (s -p-> o), which is not a path to learn from.
    The neighbours of o are sorted once and looked up by binary search, so a hub at either end
    costs a log factor, not a scan per middle node; hubs (degree > ``HUB_DEGREE``) are not used as
    middle nodes of length-3 paths, where a walk through them ends almost anywhere. For a middle
    node x the index may answer the step pairs x -b- y -c- o itself (``middle_steps``: through an
    endpoint, the store), else they are found in x's links and o's.
    """
    found: set[tuple[int, ...]] = set()
    s_nodes, s_steps = _neighbourhood(index, s, memo)
    # o's links are looked up only at s's neighbours (length 3 asks the index for step pairs): of a
    # hub read through an endpoint, only those (its every link is most of what path search read)
    in_part = index.read_in_part(o)
    o_nodes, o_steps = index.links_among(o, unique(s_nodes)) if in_part else _neighbourhood(index, o, memo)
    for step in _steps_at(s_nodes, s_steps, o):
        if step != skip:
            found.add((step,))
    if max_length >= 2:
        # s -a-> x and o -c-> x, so x -(-c)-> o
        common = unique(s_nodes[sorted_member(s_nodes, o_nodes)])
        for x in common[(common != s) & (common != o)][:MAX_MIDDLE].tolist():
            for a in _steps_at(s_nodes, s_steps, x):
                for c in _steps_at(o_nodes, o_steps, x):
                    found.add((a, -c))
    if max_length >= 3:
        span = len(index.predicates) + 1  # signed steps lie in [-span, span]
        middles = unique(s_nodes)
        middles = middles[(middles != s) & (middles != o)]
        # a blank node cannot be named in a query: through an endpoint its step pairs cannot be asked,
        # so no backend takes one as a middle (the same paths everywhere)
        middles = middles[[not is_blank_name(index.entities[x]) for x in middles.tolist()]] if middles.size else middles
        explored = 0
        for x in middles.tolist():
            if index.degree(x) > HUB_DEGREE:
                continue
            explored += 1
            if explored > MAX_MIDDLE or len(found) > MAX_PATHS * 4:
                break
            # through an endpoint the store answers the pairs: a middle node's every link is most of
            # what path search would read, and only the steps that meet o's count
            pairs = index.middle_steps(x, o, s)
            if pairs is None:
                pairs = _middle_steps(index, x, s, o, o_nodes, o_steps, span)
            if pairs:
                first = _steps_at(s_nodes, s_steps, x)
                for b, c in pairs:
                    for a in first:
                        found.add((a, b, -c))
    return sorted(found, key=lambda path: (len(path), path))


def _middle_steps(index, x: int, s: int, o: int, o_nodes: np.ndarray, o_steps: np.ndarray,
                  span: int) -> list[tuple[int, int]]:
    """The distinct signed step pairs (b, c), sorted, with x -b- y and o -c- y for some y other
    than s, o and x, from x's links and o's (``o_nodes``, ``o_steps``: sorted by node)."""
    x_nodes, x_steps = index.steps(x)
    hit = sorted_member(x_nodes, o_nodes) & (x_nodes != s) & (x_nodes != o) & (x_nodes != x)
    if not hit.any():
        return []
    # Every (b, c) with x -b-> y and o -c-> y, gathered with array arithmetic: around a hub there
    # are thousands of such y.
    ys, bs = x_nodes[hit], x_steps[hit]
    lo, hi = np.searchsorted(o_nodes, ys, "left"), np.searchsorted(o_nodes, ys, "right")
    counts = hi - lo
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    cs = o_steps[np.repeat(lo, counts) + offsets].astype(np.int64)
    # distinct (b, c) pairs as one int64 each: np.unique(axis=0) on the pairs was a large share of
    # the path search's time on big KBs
    pairs = unique((np.repeat(bs, counts).astype(np.int64) + span) * (2 * span + 1) + (cs + span))
    return list(zip((pairs // (2 * span + 1) - span).tolist(), (pairs % (2 * span + 1) - span).tolist()))


def _neighbourhood(index, node: int, memo: dict | None) -> tuple[np.ndarray, np.ndarray]:
    """Neighbours of ``node`` sorted by node id, with their signed steps; popular nodes (the
    objects of many facts) are sorted once per call of ``sample`` and reused."""
    if memo is not None and node in memo:
        return memo[node]
    nodes, steps = index.steps(node)
    order = np.lexsort((steps, nodes))
    result = nodes[order], steps[order]
    if memo is not None and nodes.size > MEMO_DEGREE:
        memo[node] = result
    return result


def _steps_at(nodes: np.ndarray, steps: np.ndarray, node: int) -> list[int]:
    """The distinct steps leading to ``node`` in a (nodes, steps) list sorted by node."""
    key = nodes.dtype.type(node)  # same dtype, or numpy converts the whole array per lookup
    lo, hi = np.searchsorted(nodes, key, "left"), np.searchsorted(nodes, key, "right")
    return unique(steps[lo:hi]).tolist()


def walk_ends(index, start: int, paths: list[tuple[int, ...]], avoid: tuple[int, ...],
              rng: np.random.Generator) -> list[int | None]:
    """One seeded random walk from ``start`` along each path, all paths a step at a time; a walk
    that dead-ends or ends on a node of ``avoid`` (s, or o, where its path came from) is walked
    again, up to ``WALK_TRIES`` times. None where no try found an end.

    A run of more than ``plausibility.HUB_LINKS`` links is a dead end, as it is for the ends a walk
    can reach (``plausibility.path_end_rows``): a step through a hub (a country's citizens) ends almost
    anywhere, so its end is no more "reached the same way" than a random object, and drawing it
    from an endpoint cost a sort or a read of the whole run (docs/performance.md)."""
    ends: list[int | None] = [None] * len(paths)
    if not paths:
        return ends
    width = max(len(path) for path in paths)
    steps = np.array([list(path) + [0] * (width - len(path)) for path in paths], dtype=np.int64)
    pending = np.arange(len(paths))
    for _ in range(WALK_TRIES):
        nodes = np.full(pending.size, start, dtype=np.int64)
        alive = np.ones(pending.size, dtype=bool)
        for k in range(width):
            moving = np.flatnonzero(alive & (steps[pending, k] != 0))
            if moving.size == 0:
                continue
            went, reached = index.walk_step(nodes[moving], steps[pending[moving], k], rng, most=plausibility.HUB_LINKS)
            alive[moving[~went]] = False
            # a walk that draws a blank node dead-ends there: through an endpoint no query can name
            # it to take the next step (its label holds for one answer), and no false fact can
            # name it; the draw itself is the same on every backend (blank nodes first in a run)
            named = np.array([not is_blank_name(index.entities[n]) for n in reached.tolist()], dtype=bool)
            alive[moving[went][~named]] = False
            nodes[moving[went]] = reached
        done = alive & ~np.isin(nodes, avoid)
        for i, node in zip(pending[done].tolist(), nodes[done].tolist()):
            ends[i] = node
        pending = pending[~done]
        if pending.size == 0:
            break
    return ends


def path_ends(index, start: int, path: tuple[int, ...]) -> set[int]:
    """Every node a walk from ``start`` along ``path`` can end at (``walk_ends`` draws one)."""
    nodes = {start}
    for step in path:
        nodes = {int(n) for node in nodes for n in index.follow(node, step).tolist()}
    return nodes


class RandomWalk(NegativeSampler):
    name = kind = section = "random_walk"
    query = "negatives_random_walk"
    ambiguous = True
    matched_objects = True
    advice = "raise transparency, lower size, raise max_path_length or lower type_overlap"

    @staticmethod
    def drift(negative: Negative) -> str | None:
        return negative.detail.get("path") or None

    @classmethod
    def summarize(cls, negatives, spec, kinds, left_out) -> dict | None:
        """How many random-walk false facts a walk reached: where walks find too few, the rest are
        objects of other true facts (``fallback``), which a transparency of 0 does not make ambiguous."""
        return fallback_section(negatives, cls.kind, "walk",
                                "fallback false facts re-pair the subject with the object of another true fact; "
                                "no walk reached them, so they are not ambiguous the way walk-made ones are")

    def paths(self, context: NegativeContext, source: Fact, rng) -> list[tuple[int, ...]]:
        index = context.kb.adjacency
        s, o = index.id(source.s), index.id(source.o)
        p = index.pindex.get(context.predicate)
        if s is None or o is None:
            return []
        paths = meta_paths(index, s, o, context.spec.max_path_length, (p + 1) if p is not None else 0,
                           getattr(self, "_memo", None))
        if len(paths) > MAX_PATHS:
            paths = [paths[i] for i in sorted(rng.choice(len(paths), MAX_PATHS, replace=False).tolist())]
        return paths

    def candidates(self, context: NegativeContext, sources: list[Fact]) -> list[Negative]:
        """The ends of every path of each source (``paths`` draws at most ``MAX_PATHS`` of them, and
        a walk one end of each) that pass the type check and ``acceptable``: what walks draw from.
        Borrowed paths and the fallback come on top, where walks find too few. Where a path passes
        a run of more than ``plausibility.HUB_LINKS`` links, walks reach fewer of these (they stop
        there, ``walk_ends``); the query this is checked against has no such bound, so neither has
        this."""
        index = context.kb.adjacency
        p = index.pindex.get(context.predicate)
        found = []
        for source in sources:
            s, o = index.id(source.s), index.id(source.o)
            if s is None or o is None:
                continue
            ends = set()
            for path in meta_paths(index, s, o, context.spec.max_path_length, (p + 1) if p is not None else 0):
                ends |= path_ends(index, s, path)
            found += [Negative(Fact(source.s, context.predicate, index.entities[end]), self.kind, source)
                      for end in sorted(ends - {s, o})]
        context.near.screen(neg.fact for neg in found)
        return [neg for neg in found if self.post_filter(context, neg) and context.acceptable(neg.fact)]

    def post_filter(self, context: NegativeContext, negative: Negative) -> bool:
        return context.types.type_consistent(negative.source.o, negative.fact.o) and context.post_filter(negative.fact)

    def walks(self, context: NegativeContext, source: Fact, paths, rng, *, borrowed: bool) -> list[Negative]:
        index = context.kb.adjacency
        s, o = index.id(source.s), index.id(source.o)
        if s is None:
            return []
        found = []
        names = getattr(self, "_names", {})
        walker = index.walker()
        # A walk may end back at o (the path came from there); a few retries find another end.
        for path, end in zip(paths, walk_ends(walker, s, list(paths), (s, o) if o is not None else (s,), rng)):
            if end is None:
                continue
            if path not in names:
                names[path] = "/".join(index.step_name(step) for step in path)
            detail = {"path": names[path]}
            if borrowed:
                detail["borrowed"] = True
            found.append(Negative(Fact(source.s, context.predicate, walker.entities[end]), self.name, source, detail))
        return found

    def sample(self, context: NegativeContext, sources: list[Fact], n: int, rng) -> list[Negative]:
        self._memo: dict = {}
        self._reach: dict = {}  # predicate_middles by source, for _reach_of
        self._out_degrees = None  # predicate_out_degrees, made by the first _reach_of
        self._objects = None  # the predicate's objects (sorted ids), made by the first _reach_of
        self._names: dict = {}  # a path's name, built once per call: many facts walk the same paths
        own = [self.paths(context, source, rng) for source in sources]
        self._paths: dict = {}  # the paths each source walked (its own, or borrowed), for _reach_of
        self._ends: dict = {}  # by source: its paths' ends (plausibility.path_hits), read once
        self._memo = {}
        # Facts with no path of their own (sparse KBs have many) walk the paths that link the
        # other facts of p: the same kind of route from the same kind of subject.
        counts = Counter(path for paths in own for path in paths)
        common = [path for path, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0]))][:MAX_PATHS]
        per_source = []
        for source, paths in zip(sources, own):
            found = self.walks(context, source, paths, rng, borrowed=False)
            self._paths[source.pair] = paths
            if not found and common:
                found = self.walks(context, source, common[:BORROWED_PATHS], rng, borrowed=True)
                self._paths[source.pair] = common[:BORROWED_PATHS]
            per_source.append(found)
        per_source = self._reachable(context, sources, per_source)
        context.types.load_types({neg.fact.o for c in per_source for neg in c} | {f.o for f in sources})
        typed = [[neg for neg in c if context.types.type_consistent(neg.source.o, neg.fact.o)] for c in per_source]
        # Among a fact's walk ends, those owed to the set first (ObjectBalance): an end outside the
        # set's objects occurs once, and "seen once" would mean false. Walks take an object only
        # while it is owed: walks reach hubs far more often than the true facts name them, and a
        # hub taken past its debt (a big city as place of death) left the popular true objects
        # without false facts, so the object column and the type baseline told the labels.
        balance = ObjectBalance(context.ledger, sources, n)
        owed = Counter(balance.owed)
        # One walk-made false fact per source with an acceptable walk end; the fallback then serves
        # the others: a second walk end for one subject left another with none, and how often a
        # subject occurs in the set told the label (the audit's frequency baseline).
        context.near.screen(neg.fact for c in typed for neg in c)
        rank = lambda neg: owed[neg.fact.o] <= 0  # noqa: E731
        # Ends that the set's true facts name first; then, by the fallback, the owed objects that
        # true facts name more than once; only then ends new to the split. Walks from most subjects
        # may never reach a popular true object, and ends new to the split, each once, would take
        # its debt: the type baseline then tells the labels (CoDEx P17 in docs/performance.md). An
        # object named once and left unpaid occurs once, as a new end does, so there a walk end
        # serves as well, and walks keep their share of the false facts.
        named = Counter(f.o for f in sources)
        chosen = self._walk_round(context, [[neg for neg in c if neg.fact.o in named] for c in typed], n, rng, balance,
                                  sources=sources)
        served = {neg.source for neg in chosen}
        if len(chosen) < n:
            rest = [k for k, source in enumerate(sources) if source not in served]
            often = {o for o, count in named.items() if count > 1}
            chosen += self._inside(context, sources, n - len(chosen), rng, balance=balance, serve=(rest, often))
            served = {neg.source for neg in chosen}
        if len(chosen) < n:
            chosen += self._walk_round(context, [c if c and c[0].source not in served else [] for c in typed],
                                       n - len(chosen), rng, balance)
        if len(chosen) < n:
            chosen += self.fallback(context, sources, n - len(chosen), rng, balance=balance)
        if len(chosen) < n:  # the fallback found too few: more walk ends of the same subjects
            chosen += round_robin(typed, n - len(chosen), context, rng, rank=rank)
        return chosen

    def _reachable(self, context: NegativeContext, sources: list[Fact], per_source: list[list[Negative]]) -> list[list[Negative]]:
        """Each source's walk ends, and after them every object of the set's true facts that a walk
        along one of the source's paths could end at (its detail names the first such path).

        A walk draws one end per path, and the ends owed to the set were a handful per source: the
        matching then had little to choose from, and the false objects were reached by the one path
        they were walked along where true ones are reached by most of theirs (``path_hits``; CoDEx
        P19: a birthplace outside the subject's country). Any end a walk can reach is as much
        "reached the same way"."""
        index = context.kb.adjacency
        named = sorted({f.o for f in sources})
        ids = self._ids(context, named)
        by_id = np.argsort(ids, kind="stable")
        named, ids = [named[i] for i in by_id.tolist()], ids[by_id]  # path_reached asks them sorted by id
        names = self.__dict__.setdefault("_names", {})
        kept = self.__dict__.setdefault("_ends", {})
        wanted = list({source.pair: source for source in sources if source.pair not in kept}.values())
        for source, ends in zip(wanted, path_end_rows_many(
                index, [context.kb.node(source.s) for source in wanted],
                [self._paths.get(source.pair, ()) for source in wanted], [context.kb.node(source.o) for source in wanted])):
            kept.setdefault(source.pair, ends)
        out = []
        for source, found in zip(sources, per_source):
            paths = self._paths.get(source.pair, [])
            if not paths or context.kb.node(source.s) < 0:
                out.append(found)
                continue
            have = {neg.fact.o for neg in found} | {source.o, source.s}
            extra = []
            first = path_reached(self._ends_of(context, source), ids)
            for j in np.flatnonzero(first >= 0).tolist():
                obj, k = named[j], int(first[j])
                if obj in have:
                    continue
                path = paths[k]
                if path not in names:
                    names[path] = "/".join(index.step_name(step) for step in path)
                detail = {"path": names[path]}
                if found and found[0].detail.get("borrowed"):
                    detail["borrowed"] = True
                extra.append(Negative(Fact(source.s, context.predicate, obj), self.name, source, detail))
            out.append(found + sorted(extra, key=lambda negative: negative.fact.o))  # by name: ids differ by backend
        return out

    def _walk_round(self, context: NegativeContext, typed: list[list[Negative]], n: int, rng,
                    balance: ObjectBalance, sources: list[Fact] | None = None) -> list[Negative]:
        """Up to ``n`` walk ends, at most one per source, each while its object is owed (an end new
        to the split is owed one, ``ObjectBalance.paid``): as many sources served as the debts
        allow, and among those ways, the ends the sources' neighbourhoods lead to most
        (``plausible_matching``). A round, a source at a time, left a source whose only ends (CoDEx
        P20: Los Angeles) were paid by sources with ends to spare with none, and a second round
        gave those a second false fact; it also took a source's ends in a seeded order, whatever
        the subject.

        ``sources`` (``typed``'s, in its order): the set's objects that few lines hold for their
        debt (``_add_scarce``) join every type-consistent source's line as a fallback object and
        weigh by how scarce they are, so that the one matching keeps the few sources that can
        take them for them (CoDEx P140: Catholicism and Christianity went to almost no subject,
        other objects having taken the sources that could, and the object column told the labels)."""
        objects = sorted({neg.fact.o for c in typed for neg in c})
        at = {o: i for i, o in enumerate(objects)}
        ids = self._ids(context, objects)
        # per source: each owed object's first walk end (they make the same fact, so the first
        # acceptable one is the first one if any is), screened by id; by name, only the pairs held
        ends: list[dict[int, Negative]] = [{} for _ in typed]
        for k, c in enumerate(typed):
            for neg in c:
                i = at[neg.fact.o]
                if i not in ends[k] and not balance.paid(neg.fact.o):
                    ends[k][i] = neg
        subject = [sources[k].s if sources is not None else c[0].fact.s if c else None for k, c in enumerate(typed)]
        lines = [self._screened(context, subject[k], ids, sorted(e)) if e else [] for k, e in enumerate(ends)]
        scarce: dict[int, float] = {}
        if sources is not None:  # objects, ids, ends and lines grow by the scarce objects
            scarce, ids = self._add_scarce(context, sources, balance, objects, ids, ends, lines)
        spare = {i: (int(np.ceil(balance.owed[o])) if o in balance.owed else 1) for i, o in enumerate(objects)}
        spare = {i: left for i, left in spare.items() if left > 0}
        reach = self._reaches(context, [sources[k] if sources is not None else c[0].source if c else None
                                        for k, c in enumerate(typed)], lines, ids, spare)
        if scarce:  # a scarce object first: its few takers are kept for it
            reach = [[r + SCARCE_FIRST * scarce.get(i, 0.0) for i, r in zip(line, values)]
                     for line, values in zip(lines, reach)]
        held = plausible_matching(lines, reach, spare, rng, subject,
                                  fits=lambda k, i: context.acceptable(ends[k][i].fact))
        return self._take([ends[k][i] for k, i in sorted(held.items())], n, context, balance)

    def _add_scarce(self, context: NegativeContext, sources: list[Fact], balance: ObjectBalance, objects: list[str],
                    ids: np.ndarray, ends: list[dict[int, Negative]], lines: list[list[int]]) -> tuple[dict[int, float], np.ndarray]:
        """Into ``ends`` and ``lines`` (screened), for every type-consistent source, the set's
        objects owed two or more that at most ``SCARCE`` times as many sources' lines hold as they
        are owed, as fallback objects (``_fallback_negative``); those no line held join ``objects``
        (at its end). The scarce objects' places, each with its debt over the lines that now hold
        it, and the ids of ``objects``. An object owed once and left unpaid occurs once, as a walk
        end new to the split does."""
        held = Counter(i for line in lines for i in line)
        at = {o: i for i, o in enumerate(objects)}
        named = sorted({f.o for f in sources})
        new = [o for o in named if o not in at and balance.owed[o] >= 2]
        if new:
            objects += new
            ids = np.concatenate([ids, self._ids(context, new)])
            at.update((o, len(objects) - len(new) + j) for j, o in enumerate(new))
        scarce = [at[o] for o in named if balance.owed[o] >= 2 and held[at[o]] <= SCARCE * balance.owed[o]]
        if not scarce:
            return {}, ids
        context.types.load_types(named)
        donors: dict[str, Fact] = {}
        for fact in sources:
            donors.setdefault(fact.o, fact)
        for k, source in enumerate(sources):
            added = [i for i in scarce if i not in ends[k] and objects[i] != source.o
                     and context.types.type_consistent(source.o, objects[i])]
            added = self._screened(context, source.s, ids, added) if added else []
            for i in added:
                ends[k][i] = self._fallback_negative(context, source, donors[objects[i]].s, objects[i], True)
            if added:
                lines[k] = sorted(lines[k] + added)
        holders = Counter(i for line in lines for i in line)
        return {i: balance.owed[objects[i]] / max(holders[i], 1) for i in scarce}, ids

    @staticmethod
    def _ids(context: NegativeContext, objects: list[str]) -> np.ndarray:
        """The index ids of ``objects`` (-1 outside the index)."""
        return np.fromiter((context.kb.node(o) for o in objects), dtype=np.int64, count=len(objects))

    @staticmethod
    def _screened(context: NegativeContext, subject: str, ids: np.ndarray, keys) -> list[int]:
        """``keys`` (places in ``ids``, the objects' index ids) that the id screens (``refuses``)
        let through for ``subject``: near a hub most are refused by the window, none of them made
        a fact. An object outside the index is left to ``acceptable``."""
        s = context.kb.node(subject)
        keys = np.asarray(keys, dtype=np.int64)
        objects = ids[keys]
        refused = np.zeros(keys.size, dtype=bool)
        inside = np.flatnonzero(objects >= 0) if s >= 0 else objects[:0]
        if inside.size:
            refused[inside] = context.refuses(np.full(inside.size, s, dtype=np.int64), objects[inside])
        return keys[~refused].tolist()

    @staticmethod
    def _take(negatives: list[Negative], n: int, context: NegativeContext, balance: ObjectBalance) -> list[Negative]:
        """Up to ``n`` of ``negatives`` (each passed ``acceptable`` before), in their order; a triple
        once (``plausible_matching`` gives two sources of one subject different objects)."""
        chosen, taken = [], set()
        for negative in negatives:
            if len(chosen) >= n:
                break
            if negative.fact.triple not in taken:
                taken.add(negative.fact.triple)
                context.ledger.take(negative)
                balance.took(negative)
                chosen.append(negative)
        return chosen

    def fallback(self, context: NegativeContext, sources: list[Fact], n: int, rng,
                 balance: ObjectBalance | None = None) -> list[Negative]:
        """Objects of other true facts of p, type-checked like walk ends: first those of the set's
        own true facts, then those of true facts outside the scenario.

        Drawn from the set's true facts, a false object is as popular in the set as a true one;
        drawn from outside only, it occurred once where true objects (popular places) recur, and
        that count alone gave the labels away (the audit's frequency baseline flagged DBpedia50
        birthPlace scenarios). Within the set, the most owed objects come first
        (``ObjectBalance``; ``balance``: the one walks have paid from)."""
        if not sources:
            return []
        chosen = self._inside(context, sources, n, rng, balance=balance)
        if len(chosen) < n:
            chosen += self._outside(context, sources, n - len(chosen), rng)
        return chosen

    def _inside(self, context: NegativeContext, sources: list[Fact], n: int, rng, *,
                balance: ObjectBalance | None = None, serve: tuple[list[int], set[str]] | None = None) -> list[Negative]:
        """Objects of the set's own true facts: every round, the subjects least used so far take
        the objects still owed, matched as a whole (``plausible_matching``: as many as the debts
        allow, each where the subject's neighbourhood leads most), then those left the least
        overpaid object that passes the type check and ``acceptable``. ``serve``: only these
        sources and, while owed, these objects, one round (a false fact each at most)."""
        donors: dict[str, Fact] = {}
        for fact in sources:
            donors.setdefault(fact.o, fact)
        context.types.load_types(donors)
        objects = list(donors)
        ids = self._ids(context, objects)
        place = {o: i for i, o in enumerate(objects)}
        tie = dict(zip(donors, rng.permutation(len(donors)).tolist()))
        balance = balance if balance is not None else ObjectBalance(context.ledger, sources, n)
        rank = rng.permutation(len(sources))
        fitting: dict[frozenset, np.ndarray] = {}  # by a true object's types: the objects (places) that pass
        fitting_names: dict[frozenset, set[str]] = {}
        served_objects = None if serve is None else np.array([o in serve[1] for o in objects], dtype=bool)
        spent: set[int] = set()  # sources with no acceptable object left (acceptance only narrows)
        chosen: list[Negative] = []
        while len(chosen) < n:
            before = len(chosen)
            turn = sorted((k for k in (range(len(sources)) if serve is None else serve[0]) if k not in spent),
                          key=lambda k: (context.ledger.subject_uses[sources[k].s], rank[k]))
            if not turn:
                break
            least = context.ledger.subject_uses[sources[turn[0]].s]
            turn = [k for k in turn if context.ledger.subject_uses[sources[k].s] == least]
            owing = np.array([not balance.paid(o) for o in objects], dtype=bool)
            if served_objects is not None:
                owing &= served_objects
            lines = []
            for k in turn:
                source = sources[k]
                key = context.types.types(source.o)
                if key not in fitting:
                    fitting[key] = np.array([i for i, o in enumerate(objects) if context.types.type_consistent(source.o, o)],
                                            dtype=np.int64)
                fits = fitting[key]
                line = fits[owing[fits] & (fits != place[source.o])]
                lines.append(self._screened(context, source.s, ids, line))
            spare = {i: int(np.ceil(balance.owed[o])) for i, o in enumerate(objects) if not balance.paid(o)}
            reach = self._reaches(context, [sources[k] for k in turn], lines, ids, spare)
            held = plausible_matching(lines, reach, spare, rng, [sources[k].s for k in turn],
                                      fits=lambda j, i: context.acceptable(Fact(sources[turn[j]].s, context.predicate,
                                                                                objects[i])))
            made = [self._fallback_negative(context, sources[turn[j]], donors[objects[i]].s, objects[i], True)
                    for j, i in sorted(held.items())]
            taken = self._take(made, n - len(chosen), context, balance)
            chosen += taken
            served = {id(negative.source) for negative in taken}
            line = sorted(donors, key=balance.key(tie))
            for k in turn if serve is None else []:
                if len(chosen) >= n:
                    break
                source = sources[k]
                if id(source) in served:
                    continue
                key = context.types.types(source.o)
                if key not in fitting_names:
                    fitting_names[key] = {objects[i] for i in fitting[key].tolist()}
                fits = fitting_names[key]
                fact = first_acceptable(context, source.s, (o for o in line if o in fits and o != source.o))
                if fact is None:
                    spent.add(k)
                    continue
                negative = self._fallback_negative(context, source, donors[fact.o].s, fact.o, True)
                context.ledger.take(negative)
                balance.took(negative, line, tie)
                chosen.append(negative)
            if serve is not None:
                break
            if len(chosen) == before:  # first_acceptable found nothing for any of them: each is spent
                spent |= set(turn)
        return chosen

    def _outside(self, context: NegativeContext, sources: list[Fact], n: int, rng) -> list[Negative]:
        """Objects of true facts outside the scenario, each source trying its own seeded order of
        them a chunk at a time: near a hub most are refused, and making all of them for every
        source cost more than the checks."""
        objects = list(islice(context.kb.other_pairs({f.pair for f in sources}, rng), max(4 * n, 200)))
        context.types.load_types({o for _, o in objects} | {f.o for f in sources})
        # Whether a candidate passes depends only on the true object's types, which sources share.
        consistent: dict[frozenset, list[tuple[str, str]]] = {}
        pools = []
        for source in sources:
            key = context.types.types(source.o)
            if key not in consistent:
                consistent[key] = [(s2, o) for s2, o in objects if context.types.type_consistent(source.o, o)]
            pool = consistent[key]
            pools.append((pool, rng.permutation(len(pool)).tolist()))
        chosen: list[Negative] = []
        longest = max((len(pool) for pool, _ in pools), default=0)
        for start in range(0, longest, FALLBACK_CHUNK):
            per_source = [[self._fallback_negative(context, source, *pool[j], False) for j in order[start:start + FALLBACK_CHUNK]
                           if pool[j][1] != source.o] for source, (pool, order) in zip(sources, pools)]
            chosen += round_robin(per_source, n - len(chosen), context, rng)
            if len(chosen) >= n:
                break
        return chosen

    def _reaches(self, context: NegativeContext, sources: list[Fact | None], lines: list[list[int]], ids: np.ndarray,
                 spare: dict[int, int]) -> list[list[float]]:
        """Each line's reach (``_reach_of``), where it can change the matching (``weighed``); 0 elsewhere."""
        need = weighed(lines, spare)
        return [self._reach_of(context, source, ids[line]).tolist() if line and wanted else [0.0] * len(line)
                for source, line, wanted in zip(sources, lines, need)]

    def _reach_of(self, context: NegativeContext, source: Fact, objects: np.ndarray) -> np.ndarray:
        """How plausible each of ``objects`` (index ids) is for the source's subject: the share of the
        source's own paths (those it walked) that reach it from the subject (``path_hits``), plus how
        often walks from the subject through the predicate end at it (``predicate_reach``, not
        through the source's own object). A walk end is reached by the one path it was walked
        along; a true object by most of its fact's paths, and path checkers tell the two apart
        (CoDEx P19: the true birthplace lies in the subject's country, a walk end most often not).

        For the reach, where the walks stand before their last link is worked out once per source
        and call of ``sample``, the last link only to ``objects``."""
        index = context.kb.adjacency
        p = index.pindex.get(context.predicate)
        reached = self.__dict__.setdefault("_reach", {})
        s, o = context.kb.node(source.s), context.kb.node(source.o)
        if source.pair not in reached:
            if self.__dict__.get("_out_degrees") is None and p is not None:
                self._out_degrees = predicate_out_degrees(index, p)
            reached[source.pair] = predicate_middles(index, s, p, o, self._out_degrees)
        paths = self.__dict__.get("_paths", {}).get(source.pair, ())
        if self.__dict__.get("_objects") is None:
            self._objects = unique(index.dst[index.pred == p]) if p is not None else np.zeros(0, dtype=np.int64)
        return reach_at(index, reached[source.pair], p, objects) + path_hits(self._ends_of(context, source), len(paths),
                                                                           objects, self._objects)

    def _ends_of(self, context: NegativeContext, source: Fact) -> tuple[np.ndarray, np.ndarray]:
        """``path_end_rows`` of the paths the source walked, from its subject: once per source and call of ``sample``."""
        kept = self.__dict__.setdefault("_ends", {})
        if source.pair not in kept:
            kept[source.pair] = path_end_rows(context.kb.adjacency, context.kb.node(source.s),
                                          self.__dict__.get("_paths", {}).get(source.pair, ()), context.kb.node(source.o))
        return kept[source.pair]

    def _fallback_negative(self, context: NegativeContext, source: Fact, s2: str, o: str, inside: bool) -> Negative:
        return Negative(Fact(source.s, context.predicate, o), self.name, source,
                        {"path": None, "fallback": "object of another true fact" + (" of the set" if inside else ""),
                         "object_from": {"subject": s2, "predicate": context.predicate, "object": o}})
