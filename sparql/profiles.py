"""What the KB looks like, per predicate and per entity: the statistics the generators steer by.

Definitions (written here once, used everywhere):

* **Degree** G(e): the number of links of e to non-literals, in and out, through non-schema
  predicates (``rdf:``, ``rdfs:``, ``owl:`` and ``skos:`` predicates are left out, so types,
  labels and ontology edges do not make an entity popular).
* **Functionality** of p, after Wang et al. (TransH, 2014): tph = facts / distinct subjects
  (objects per subject), hpt = facts / distinct objects (subjects per object); a side is
  "N" when its average is >= 1.5: 1-1 (tph < 1.5, hpt < 1.5), 1-N (tph >= 1.5, hpt < 1.5),
  N-1 (tph < 1.5, hpt >= 1.5), N-N (both >= 1.5).
* **Popularity** of a fact (Huynh & Papotti, Eq. 1):
  ``min(G(s), G(o)) * (1 + max(G(s), G(o)) / mean_G(p))`` where mean_G(p) is the mean degree
  of the distinct entities (subjects and objects) of p.
* **Type path** of an entity: for each asserted class that is not an ancestor of another
  asserted class, the chain of ``rdfs:subClassOf`` from the root down to it
  (``Thing/Place/PopulatedPlace/City``).

Predicate profiles of a store factforge loaded come from a table of its quads (``scan``,
``quadstats``: numpy, fast); other stores, and endpoints, answer aggregate queries (far slower
on big KBs). Both give the same numbers, and every statistic is cached under the KB's
fingerprint.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
from pyoxigraph import Literal
from tqdm import tqdm

from .cache import StatsCache
from .messages import shown
from .store import Store, StoreError
from .terms import TermError, compact, iri, is_schema_predicate

FUNCTIONALITY_THRESHOLD = 1.5
BATCH = 400  # VALUES rows a query: large enough to amortize a round trip, small enough for any endpoint
TOP_TYPES = 5


class UnknownPredicate(StoreError):
    """The KB has no fact of the asked predicate."""


def functionality(facts: int, subjects: int, objects: int) -> str:
    tph = facts / subjects if subjects else 0.0
    hpt = facts / objects if objects else 0.0
    subject_side = "N" if hpt >= FUNCTIONALITY_THRESHOLD else "1"
    object_side = "N" if tph >= FUNCTIONALITY_THRESHOLD else "1"
    return f"{subject_side}-{object_side}"


def popularities(degree_s, degree_o, mean_degree: float) -> np.ndarray:
    """Eq. 1 of Huynh & Papotti (CIKM'19), the one definition: the popularity of each fact from the
    degrees G(s), G(o) of its subject and object (arrays) and the predicate's mean degree."""
    degree_s, degree_o = np.asarray(degree_s, dtype=np.float64), np.asarray(degree_o, dtype=np.float64)
    return np.minimum(degree_s, degree_o) * (1.0 + np.maximum(degree_s, degree_o) / mean_degree)


def popularity(degree_s: float, degree_o: float, mean_degree: float) -> float:
    """Eq. 1 for one fact."""
    if mean_degree <= 0:
        raise ValueError("mean degree must be positive")
    return float(popularities(degree_s, degree_o, mean_degree))


def batched(items: Sequence, size: int = BATCH) -> Iterable[Sequence]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


# --- predicates ---------------------------------------------------------------------------------
def predicate_profiles(store: Store, *, progress: bool = False) -> list[dict]:
    """One profile per predicate of the KB, most frequent first. Cached by fingerprint."""
    return StatsCache(store).get_or_compute("predicate-profiles", lambda: _compute_profiles(store, progress))


def _compute_profiles(store: Store, progress: bool, *, use_table: bool = True) -> list[dict]:
    """``use_table=False`` forces the aggregate queries (tests compare both ways)."""
    from .quadstats import profile_rows
    from .scan import kb_table

    table = kb_table(store) if use_table else None
    rows = profile_rows(table) if table is not None else None
    if rows is None:
        rows = _aggregate_rows(store, progress)
    profiles = [_profile(p, row) for p, row in rows.items()]
    return sorted(profiles, key=lambda prof: (-prof["facts"], prof["predicate"]))


def _profile(p: str, row: dict) -> dict:
    """A predicate's profile from its raw statistics (counts, types by side, degree sum and count)."""
    n, ns, no = row["facts"], row["subjects"], row["objects"]
    profile = {
        "predicate": p, "name": compact(p), "facts": n, "subjects": ns, "objects": no,
        "objects_per_subject": round(n / ns, 4), "subjects_per_object": round(n / no, 4),
        "functionality": functionality(n, ns, no), "schema": is_schema_predicate(p),
        "subject_types": [], "object_types": [], "mean_degree": None,
    }
    if not profile["schema"]:
        for side in ("subject_types", "object_types"):
            types = sorted(row.get(side, []), key=lambda t: (-t[1], t[0]))
            profile[side] = [{"type": t, "name": compact(t), "facts": k} for t, k in types[:TOP_TYPES]]
        total, entities = row.get("degree", (0, 0))
        if entities:
            profile["mean_degree"] = round(float(total) / entities, 4)
    return profile


def _aggregate_rows(store: Store, progress: bool) -> dict[str, dict]:
    """The raw statistics by aggregate queries: any backend, but slow on big KBs (docs/performance.md)."""
    steps = tqdm(total=4, desc="profiling", disable=not progress, leave=False)
    rows = {p: dict(zip(("facts", "subjects", "objects"), counts)) for p, counts in _counted(store).items()}
    steps.update()
    content = [iri(p) for p in rows if not is_schema_predicate(p)]
    for side, template in (("subject_types", "predicate_subject_types"), ("object_types", "predicate_object_types")):
        for row in store.select(template):
            p = row["p"].value
            if p in rows and not is_schema_predicate(p):
                rows[p].setdefault(side, []).append((row["type"].value, int(row["n"].value)))
        steps.update()
    if content:
        for row in store.select("predicate_mean_degree", predicates=content):
            p = row["p"].value
            if p in rows and not is_schema_predicate(p):
                rows[p]["degree"] = (int(row["total"].value), int(row["entities"].value))
    steps.update()
    steps.close()
    return rows


def _counted(store: Store) -> dict[str, list[int]]:
    """Facts, distinct subjects and distinct objects of every predicate, by one grouped scan of the
    KB (``predicate_counts``), cached by fingerprint: the profiles start from it, and it is all of
    the whole-KB profile that neighbourhood generation needs."""
    return StatsCache(store).get_or_compute("predicate-counts", lambda: {
        row["p"].value: [int(row["n"].value), int(row["subjects"].value), int(row["objects"].value)]
        for row in store.select("predicate_counts")})


def predicate_counts(store: Store) -> dict[str, list[int]]:
    """{predicate IRI: [facts, distinct subjects, distinct objects]} for every predicate of the KB.

    Behind an endpoint without a local copy (``store.whole_index`` false) this is the counts
    query alone, not the whole profiles: their type and degree aggregates join every triple and
    took longer than any scenario at 10M triples. Elsewhere, or when the profiles are cached
    already, it is read from them."""
    if store.whole_index or StatsCache(store).get("predicate-profiles") is not None:
        return {p["predicate"]: [p["facts"], p["subjects"], p["objects"]] for p in predicate_profiles(store)}
    return _counted(store)


def objects_per_subject(store: Store) -> dict[str, float]:
    """By predicate IRI: its facts per distinct subject, as its profile rounds it."""
    return {p: round(n / ns, 4) for p, (n, ns, _) in predicate_counts(store).items()}


def content_predicates(store: Store) -> list[str]:
    """The non-schema predicates of the KB (those whose links count towards a degree), sorted."""
    return sorted(p for p in predicate_counts(store) if not is_schema_predicate(p))


def _endpoint_profile(store: Store, target: str, *, degree: bool) -> dict:
    """The profile of one predicate by queries about it alone (its ends' types, its entities'
    degrees), each cached by fingerprint: their cost grows with the predicate, not with the KB. The
    degree part (``mean_degree``) joins every link of the predicate's entities and is left out
    (None) unless ``degree``: only Eq. 1 popularity uses it."""
    cache = StatsCache(store)
    row: dict = dict(zip(("facts", "subjects", "objects"), predicate_counts(store)[target]))
    if is_schema_predicate(target):
        return _profile(target, row)
    p = iri(target)

    def types() -> dict:
        found: dict[str, list] = {"subject_types": [], "object_types": []}
        for r in store.select("predicate_types", predicate=p):
            found[f"{r['side'].value}_types"].append([r["type"].value, int(r["n"].value)])
        return found

    row.update(cache.get_or_compute(f"predicate-types-{stable_key(target)}", types))
    if degree:
        def degrees() -> list[int]:
            [r] = store.select("predicate_degree_sum", predicate=p, predicates=[iri(q) for q in content_predicates(store)])
            return [int(r["total"].value), int(r["entities"].value)]

        row["degree"] = cache.get_or_compute(f"predicate-degree-{stable_key(target)}", degrees)
    return _profile(target, row)


def known_predicate(store: Store, predicate: str) -> str:
    """The full IRI of a predicate of the KB (``dbo:birthPlace`` or a full IRI); a clear error when
    the KB has no fact of it. Asks no statistic of the predicate itself."""
    try:
        target = iri(predicate, field="predicate").value
    except TermError as error:
        raise UnknownPredicate(str(error)) from None
    if target not in predicate_counts(store):
        raise UnknownPredicate(f"predicate: the KB has no fact of {shown(predicate)}")
    return target


def predicate_profile(store: Store, predicate: str, *, degree: bool = True) -> dict:
    """The profile of one predicate (``dbo:birthPlace`` or a full IRI); a clear error when unknown.
    ``degree=False``: the caller does not read ``mean_degree``, which behind an endpoint is then
    not computed (it may be None)."""
    target = known_predicate(store, predicate)
    if store.whole_index or StatsCache(store).get("predicate-profiles") is not None:
        return next(profile for profile in predicate_profiles(store) if profile["predicate"] == target)
    # behind an endpoint, a scenario needs its own predicate's profile, not every predicate's
    return _endpoint_profile(store, target, degree=degree)


def degree_predicates(store: Store) -> list:
    """The predicates whose links count towards an entity's degree."""
    return [iri(p["predicate"]) for p in predicate_profiles(store) if not p["schema"]]


# --- entities -------------------------------------------------------------------------------------
def entity_degrees(store: Store, entities: Iterable[str], *, progress: bool = False) -> dict[str, int]:
    """G(e) for each entity IRI, in VALUES batches (one query per batch, never per entity)."""
    wanted = sorted(set(entities))
    degrees: dict[str, int] = dict.fromkeys(wanted, 0)
    for batch in tqdm(list(batched(wanted)), desc="degrees", disable=not progress, leave=False):
        for row in store.select("entity_degrees", entities=[iri(e) for e in batch]):
            if not is_schema_predicate(row["q"].value):
                degrees[row["e"].value] += int(row["n"].value)
    return degrees


@dataclass
class ClassTree:
    parents: dict[str, str]

    def chain(self, cls: str) -> list[str]:
        """From the root down to ``cls``; a cycle in the ontology stops the walk instead of hanging."""
        chain = [cls]
        seen = {cls}
        while chain[-1] in self.parents and self.parents[chain[-1]] not in seen:
            chain.append(self.parents[chain[-1]])
            seen.add(chain[-1])
        return list(reversed(chain))

    def ancestors(self, cls: str) -> set[str]:
        return set(self.chain(cls)[:-1])


def class_tree(store: Store) -> ClassTree:
    def compute():
        parents: dict[str, str] = {}
        edges = [(r["class"].value, r["super"].value) for r in store.select("class_hierarchy")]
        # With several parents (DBpedia also links to DUL and schema.org), prefer one of the
        # child's own vocabulary, then the first by IRI: a deterministic single path.
        edges.sort(key=lambda e: (e[0], _namespace(e[1]) != _namespace(e[0]), e[1]))
        for child, parent in edges:
            if child != parent and child not in parents:
                parents[child] = parent
        return parents

    return ClassTree(StatsCache(store).get_or_compute("class-tree", compute))


def entity_types(store: Store, entities: Iterable[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for batch in batched(sorted(set(entities))):
        for row in store.select("entity_types", entities=[iri(e) for e in batch]):
            found.setdefault(row["e"].value, []).append(row["type"].value)
    return {e: sorted(types) for e, types in found.items()}


def type_paths(store: Store, entities: Iterable[str]) -> dict[str, list[list[str]]]:
    """The type path(s) of each entity, as lists of class IRIs from the root down."""
    tree = class_tree(store)
    return {entity: paths_of(tree, types) for entity, types in entity_types(store, entities).items()}


def paths_of(tree: "ClassTree", types) -> list[list[str]]:
    """The type paths of an entity with these asserted classes: one per class that is no other's
    ancestor, from the root down."""
    inherited = set().union(*(tree.ancestors(t) for t in types)) if types else set()
    return sorted(tree.chain(t) for t in types if t not in inherited)


def _namespace(value: str) -> str:
    cut = max(value.rfind("#"), value.rfind("/"))
    return value[: cut + 1]


def path_text(path: list[str]) -> str:
    return "/".join(_local(c) for c in path)


def _local(value: str) -> str:
    for sep in ("#", "/"):
        if sep in value.rstrip(sep):
            value = value.rstrip(sep).rsplit(sep, 1)[1]
    return value


# --- facts ------------------------------------------------------------------------------------------
def predicate_facts(store: Store, predicate: str) -> list[tuple[str, str]]:
    """Every (s, o) of a predicate with a non-literal object, in a stable order."""
    p = iri(predicate, field="predicate")
    return sorted((r["s"].value, r["o"].value) for r in store.select("predicate_facts", predicate=p)
                  if not isinstance(r["o"], Literal))


def stable_key(value: str) -> str:
    """A short file-name-safe key for an IRI in cache keys."""
    import hashlib

    return hashlib.sha256(value.encode()).hexdigest()[:16]


def kb_profile(store: Store, *, progress: bool = False) -> dict:
    """The KB at a glance: size, fingerprint, graphs, and every predicate's profile."""
    profiles = predicate_profiles(store, progress=progress)
    return {
        "fingerprint": store.fingerprint(),
        "backend": store.kind,
        "triples": store.triple_count(),
        "typed_entities": store.count("typed_entity_count"),
        "predicates": len(profiles),
        "profiles": profiles,
    }
