"""A seeded generator of DBpedia-like N-Triples KBs, for benchmarking the store layer.

    python bench/synthetic_kb.py --triples 1000000 --seed 1 --out bench/out/syn-1M.nt

What the KB looks like:

* entities ``http://dbpedia.org/resource/E<n>`` (about one per ``--triples-per-entity`` triples);
* about 80% of them typed (``rdf:type``) with a real DBpedia ontology class (the classes that have
  ``rdfs:subClassOf`` in the 2018 ontology, read in place), class popularity Zipf-distributed;
  some 40% of the typed ones also carry the class's parent, as DBpedia lists several types;
* a few hundred predicates ``http://dbpedia.org/ontology/p0001``... with Zipf-distributed
  frequencies, each with a preferred subject class and object class (drawn from the populated
  classes), so that per-predicate types look like DBpedia's (most subjects of ``p0001`` are of
  one class, the rest scattered);
* power-law (Pareto) entity degrees, heavier-tailed on the object side (hubs such as countries);
* about 10% of the triples literal-valued (dates, years, integers, language-tagged strings).

Exactly ``--triples`` distinct triples are written, sorted by subject (as DBpedia dumps are), and
the same seed gives a byte-identical file. Drawing is vectorized (numpy); 10M triples take
well under a minute on one core.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
# $FACTFORGE_DATA as the tests read it; ../shared/data only holds from a checkout beside it
DEFAULT_ONTOLOGY = (Path(os.environ.get("FACTFORGE_DATA", HERE.parent.parent / "shared" / "data"))
                    / "dbpedia-ontology" / "dbo-2018.12.28.ttl")
DBO = "http://dbpedia.org/ontology/"
DBR = "http://dbpedia.org/resource/"
RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
XSD = "http://www.w3.org/2001/XMLSchema#"
LITERAL_KINDS = ("date", "year", "integer", "string")
LITERAL_SPACE = 1_000_000  # literal values per predicate: ids 0..LITERAL_SPACE-1
DATE_DAYS = 80_000  # dates from 1800-01-01 on
LITERAL_RANGE = np.array([DATE_DAYS, 1025, LITERAL_SPACE, LITERAL_SPACE])  # distinct values per kind
CHUNK = 1_000_000  # lines a write


def ontology_classes(path: Path) -> tuple[list[str], dict[str, str]]:
    """The dbo: classes that have an rdfs:subClassOf (sorted), and each one's dbo: parent if any."""
    import pyoxigraph as ox

    store = ox.Store()
    store.load(path=str(path), format=ox.RdfFormat.TURTLE)
    rows = store.query(
        "SELECT ?c ?super WHERE { ?c <http://www.w3.org/2000/01/rdf-schema#subClassOf> ?super "
        f"FILTER(isIRI(?c) && STRSTARTS(STR(?c), '{DBO}')) }}")
    classes: set[str] = set()
    parents: dict[str, str] = {}
    for row in rows:
        c, sup = row["c"].value, row["super"]
        classes.add(c)
        if isinstance(sup, ox.NamedNode) and sup.value.startswith(DBO) and sup.value != c:
            parents[c] = min(parents.get(c, sup.value), sup.value)
    if not classes:
        raise SystemExit(f"{path}: no dbo: class with rdfs:subClassOf found")
    return sorted(classes), parents


def zipf_weights(n: int, exponent: float) -> np.ndarray:
    w = 1.0 / np.arange(1, n + 1, dtype=np.float64) ** exponent
    return w / w.sum()


class Sampler:
    """Draws entities in proportion to a weight, optionally restricted to one class, vectorized.

    Entities are laid out by class (untyped last); a class is a contiguous range of the
    cumulative weights, so a class-restricted draw is one uniform number in that range and a
    ``searchsorted``.
    """

    def __init__(self, order: np.ndarray, starts: np.ndarray, weights: np.ndarray):
        self.order = order  # position -> entity id
        self.cum = np.concatenate([[0.0], np.cumsum(weights[order])])
        self.lo = self.cum[starts[:-1]]
        self.hi = self.cum[starts[1:]]

    def draw(self, rng: np.random.Generator, group: np.ndarray | None, n: int) -> np.ndarray:
        r = rng.random(n)
        if group is None:
            u = r * self.cum[-1]
        else:
            u = self.lo[group] + r * (self.hi[group] - self.lo[group])
        pos = np.searchsorted(self.cum, u, side="right") - 1
        np.clip(pos, 0, len(self.order) - 1, out=pos)
        return self.order[pos]


def generate(triples: int, seed: int, ontology: Path, *, predicates: int = 360, literal_predicates: int = 40,
             triples_per_entity: float = 10.0, typed_fraction: float = 0.8, literal_fraction: float = 0.10,
             preferred: float = 0.85) -> dict:
    """Draw the KB; returns the sorted unique keys and the tables needed to write them."""
    rng = np.random.default_rng(seed)
    classes, parents = ontology_classes(ontology)
    n_classes = len(classes)
    n_entities = max(100, int(triples / triples_per_entity))

    # Classes: Zipf popularity over a seeded order of the ontology's classes.
    class_rank = rng.permutation(n_classes)
    class_p = zipf_weights(n_classes, 1.0)[class_rank]
    typed = rng.random(n_entities) < typed_fraction
    ent_class = np.full(n_entities, n_classes, dtype=np.int64)  # n_classes = untyped
    ent_class[typed] = rng.choice(n_classes, size=int(typed.sum()), p=class_p)
    parent_index = np.array([classes.index(parents[c]) if parents.get(c) in classes else -1 for c in classes]
                            + [-1], dtype=np.int64)
    second = typed & (parent_index[ent_class] >= 0) & (rng.random(n_entities) < 0.4)

    # Entities by class; separate subject (out) and object (in) weights, both power-law.
    order = np.argsort(ent_class, kind="stable")
    sizes = np.bincount(ent_class, minlength=n_classes + 1)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    out_w = rng.pareto(2.0, n_entities) + 1.0
    in_w = rng.pareto(1.1, n_entities) + 1.0
    subjects = Sampler(order, starts, out_w)
    objects = Sampler(order, starts, in_w)

    # Predicates: Zipf frequencies; each with a preferred subject and object class among the
    # populated classes (popular classes preferred more often).
    n_obj_pred = predicates - literal_predicates
    n_types_est = typed.sum() + second.sum()
    n_literal = int(round(literal_fraction * triples))
    obj_pred_p = zipf_weights(n_obj_pred, 1.1)
    lit_pred_p = zipf_weights(literal_predicates, 1.0)
    expected = np.concatenate([obj_pred_p * (triples - n_types_est - n_literal), lit_pred_p * n_literal])

    def preferred_classes(per_entity: float) -> np.ndarray:
        # A class big enough for the predicate's facts (at most ``per_entity`` a member on
        # average), else the facts would pile up as duplicates on a few members.
        chosen = np.empty(predicates, dtype=np.int64)
        for k in range(predicates):
            fit = np.flatnonzero(sizes[:n_classes] * per_entity >= expected[k])
            if len(fit) == 0:
                fit = np.array([int(np.argmax(sizes[:n_classes]))])
            share = sizes[fit] / sizes[fit].sum()
            chosen[k] = rng.choice(fit, p=share)
        return chosen

    pref_s = preferred_classes(8.0)
    pref_o = preferred_classes(40.0)
    literal_kind = rng.integers(0, len(LITERAL_KINDS), size=literal_predicates)

    type_pid = 0
    n_pred_ids = predicates + 1  # 0 = rdf:type, 1..n_obj_pred object predicates, then literal ones
    lit_base = n_entities + n_classes
    n_obj_ids = lit_base + LITERAL_SPACE
    if n_entities * n_pred_ids * n_obj_ids >= 2 ** 63:
        raise SystemExit("too many triples for 64-bit keys")

    def keys(s, p, o):
        return (s.astype(np.int64) * n_pred_ids + p) * n_obj_ids + o

    type_keys = np.concatenate([
        keys(np.flatnonzero(typed), type_pid, n_entities + ent_class[typed]),
        keys(np.flatnonzero(second), type_pid, n_entities + parent_index[ent_class[second]]),
    ])
    n_types = len(type_keys)
    if n_types >= triples:
        raise SystemExit(f"--triples {triples} is too small for the type triples alone ({n_types})")
    n_object = triples - n_types - n_literal

    def draw_facts(n: int, literal: bool) -> np.ndarray:
        if literal:
            pi = rng.choice(literal_predicates, size=n, p=lit_pred_p)
            p = 1 + n_obj_pred + pi
        else:
            pi = rng.choice(n_obj_pred, size=n, p=obj_pred_p)
            p = 1 + pi
        s = subjects.draw(rng, None, n)
        use = rng.random(n) < preferred
        s[use] = subjects.draw(rng, pref_s[p[use] - 1], int(use.sum()))
        if literal:
            # A few values per predicate are common (years, round numbers): Zipf-ish ids.
            v = np.minimum(rng.zipf(1.3, n) - 1 + rng.integers(0, 50, n), LITERAL_SPACE - 1)
            spread = rng.random(n) < 0.5
            v[spread] = rng.integers(0, LITERAL_SPACE, int(spread.sum()))
            o = lit_base + v % LITERAL_RANGE[literal_kind[pi]]  # one id per distinct text
        else:
            o = objects.draw(rng, None, n)
            use = rng.random(n) < preferred - 0.05
            o[use] = objects.draw(rng, pref_o[p[use] - 1], int(use.sum()))
            # no self-loops
            loop = o == s
            o[loop] = (o[loop] + 1) % n_entities
        return keys(s, p, o)

    def exactly(n: int, literal: bool) -> np.ndarray:
        have = np.empty(0, dtype=np.int64)
        overshoot = 1.05
        while len(have) < n:
            need = n - len(have)
            fresh = draw_facts(int(need * overshoot) + 16, literal)
            pool = np.concatenate([have, fresh])
            _, first = np.unique(pool, return_index=True)
            first.sort()  # keep draw order, so truncating does not favour low ids
            gained = len(first) - len(have)
            have = pool[first]
            # Duplicates concentrate on hubs; draw enough next time to finish in one more round.
            overshoot = max(overshoot, 1.1 * len(fresh) / max(gained, 1))
        return have[:n]

    all_keys = np.concatenate([type_keys, exactly(n_object, False), exactly(n_literal, True)])
    all_keys.sort()
    if len(all_keys) != triples or (np.diff(all_keys) == 0).any():
        raise AssertionError("duplicate triples survived")
    return dict(keys=all_keys, n_entities=n_entities, classes=classes, n_pred_ids=n_pred_ids,
                n_obj_ids=n_obj_ids, n_obj_pred=n_obj_pred, lit_base=lit_base,
                literal_kind=literal_kind, n_types=n_types, n_literal=n_literal, n_object=n_object)


def write(kb: dict, out: Path) -> None:
    n_entities, n_obj_pred, lit_base = kb["n_entities"], kb["n_obj_pred"], kb["lit_base"]
    entity = [f"<{DBR}E{i}>" for i in range(n_entities)]
    preds = [RDF_TYPE] + [f"<{DBO}p{i:04d}>" for i in range(1, kb["n_pred_ids"])]
    objs_class = [f"<{c}>" for c in kb["classes"]]
    days = np.datetime64("1800-01-01") + np.arange(DATE_DAYS)
    date_text = [f'"{d}"^^<{XSD}date>' for d in days.astype(str)]

    def literal(kind: int, v: int) -> str:
        if kind == 0:
            return date_text[v]
        if kind == 1:
            return f'"{1000 + v}"^^<{XSD}gYear>'
        if kind == 2:
            return f'"{v}"^^<{XSD}integer>'
        return f'"Name {v}"@en'

    kinds = kb["literal_kind"]
    keys = kb["keys"]
    n_pred_ids, n_obj_ids = kb["n_pred_ids"], kb["n_obj_ids"]
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="\n", buffering=1 << 22) as handle:
        for start in range(0, len(keys), CHUNK):
            k = keys[start:start + CHUNK]
            o = (k % n_obj_ids).tolist()
            sp = k // n_obj_ids
            p = (sp % n_pred_ids).tolist()
            s = (sp // n_pred_ids).tolist()
            lines = []
            append = lines.append
            for si, pi, oi in zip(s, p, o):
                if oi < n_entities:
                    obj = entity[oi]
                elif oi < lit_base:
                    obj = objs_class[oi - n_entities]
                else:
                    obj = literal(kinds[pi - 1 - n_obj_pred], oi - lit_base)
                append(f"{entity[si]} {preds[pi]} {obj} .\n")
            handle.write("".join(lines))
    tmp.replace(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--triples", type=int, required=True, help="exact number of distinct triples")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--ontology", type=Path, default=DEFAULT_ONTOLOGY)
    parser.add_argument("--predicates", type=int, default=360, help="all predicates, literal ones included")
    parser.add_argument("--literal-predicates", type=int, default=40)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    kb = generate(args.triples, args.seed, args.ontology, predicates=args.predicates,
                  literal_predicates=args.literal_predicates)
    drawn = time.perf_counter()
    write(kb, args.out)
    done = time.perf_counter()
    print(f"{args.out}: {len(kb['keys']):,} triples ({kb['n_object']:,} entity links, {kb['n_literal']:,} literal, "
          f"{kb['n_types']:,} rdf:type), {kb['n_entities']:,} entities; drawn in {drawn - started:.1f}s, "
          f"written in {done - drawn:.1f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
