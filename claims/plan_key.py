"""The plan key: what keys every ordered choice of a claims set's label plan, kept from whoever verifies it.

The plan takes true facts out of R one after another (the first ones out become NOT ENOUGH INFO, the
next stay as SUPPORTS) and picks which claims take a form (negation, conjunction, temporal, multi-hop,
a template) in an order per label. A system under test knows the seed (it is in the manifest) and the
software; had those orders been keyed by the seed alone (``generators.fact_order``), it could replay
them on the facts it parses from the claims and read NOT ENOUGH INFO off the earliest true facts
without any KB. So they are keyed by a key it cannot compute:

    key = SHA-256("factforge/claims/plan-key" | seed | SHA-256(the KB's facts of the set's predicates
                                                                [| "secret" | SHA-256(--plan-secret)]))

the KB's facts being every (subject, object) of each predicate of the set's true facts whose ends are
IRIs, as N-Triples lines in (predicate, subject, object) order. It must be reproducible (same KB,
parameters and seed, same bytes) and the same through every backend, so it is made of the KB's
content and not of its fingerprint, which differs per backend (file hashes, a quad hash, an endpoint's
counts), nor of blank nodes, whose labels each store draws for itself.

Who can compute it (docs/claims.md, "the plan key's threat model"):

* a verifier with the claims alone (claim-only): not at all, it cannot name the KB's facts;
* a verifier with R, the intended one: R lacks exactly the facts taken out, which are NOT ENOUGH INFO
  claims' facts, so trying each subset of the NOT ENOUGH INFO claims as the facts R lacks computes it
  in 2^n tries (n: ``guessable_bits``), each checked by replaying the plan; a tiny set falls. What it
  gains is not the labels (R gives those) but which NOT ENOUGH INFO claims are true in the KB;
* whoever holds the whole KB (DBpedia is public): at once, and could as well rerun the generation.

A salt derived from content the verifier never gets does not help: the facts R lacks are KB minus R,
and the KB's other content is the KB's, which the last two hold or guess at the same cost. Only a
secret defeats them, and a secret drawn at random would give other bytes on every run; so the user may
give one (``--plan-secret FILE``): the same secret gives the same set, and the manifest says whether
there was one (never the secret) and, without one, how many bits are left to guess.

The key is written to answers.json (``plan_key``, hex) and nowhere a system under test reads.
"""
from __future__ import annotations

import hashlib
import re

import numpy as np

CHUNK = 1 << 16  # lines hashed a call: one update a line costs more than the hash itself
# an absolute IRI starts with a scheme; a blank node's name in the index (the store's own label) does not
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def plan_key(index, seed: int, predicates, secret: bytes | None = None, cache=None) -> bytes:
    """The key of a claims set of this seed over true facts of ``predicates``, from the KB's whole
    adjacency index (``sparql.adjacency``: its entities are sorted and its links sorted by (subject,
    predicate, object), so the lines come in one order through every backend). A predicate the KB
    has no link of adds nothing, and neither does a link to or from a blank node: its label is the
    store's own (another load, or an endpoint, draws another), so no line of it is the same through
    every backend. ``secret`` (``--plan-secret``): bytes of the user's own, mixed in when given, so that
    a verifier who holds the KB cannot compute the key (see the module's threat model). ``cache``: the
    KB's ``sparql.cache.StatsCache``, where the digest of the lines is kept once per KB and predicate
    set (without a secret, which goes into the same digest): every claims set of the KB hashes the same
    lines, over a million for a frequent predicate of a large KB. Whoever reads that cache holds the KB
    (its sorted dump is there too), so it tells nothing the module's threat model does not grant."""
    if secret or cache is None:
        digest = _lines_digest(index, predicates)
        if secret:
            digest.update(b"secret\n" + hashlib.sha256(secret).digest())
        lines = digest.digest()
    else:
        named = "\n".join(sorted(set(predicates))).encode("utf-8")
        lines = bytes.fromhex(cache.get_or_compute(f"plan-key-lines-{hashlib.sha256(named).hexdigest()[:32]}",
                                                   lambda: _lines_digest(index, predicates).hexdigest()))
    return hashlib.sha256(f"factforge/claims/plan-key\n{int(seed)}\n".encode() + lines).digest()


def _lines_digest(index, predicates):
    """SHA-256, not yet finished, over the N-Triples lines of every named link of ``predicates``."""
    digest = hashlib.sha256()
    entities = index.entities
    for predicate in sorted(set(predicates)):
        pid = index.pindex.get(predicate)
        if pid is None:
            continue
        mask = index.pred == pid
        src, dst = index.src[mask], index.dst[mask]
        # the ends by a mask over the entities, not ``np.unique`` of the ends: a frequent predicate of a
        # large KB has millions of ends, whose sort was half the key's time
        named = np.zeros(len(entities), dtype=bool)
        named[src] = named[dst] = True
        ends = np.flatnonzero(named)
        named[ends] = [bool(_SCHEME.match(entities[e])) for e in ends.tolist()]
        keep = named[src] & named[dst]
        src, dst = src[keep], dst[keep]
        # a line is its subject's head and its object's tail, each encoded once an entity and put in
        # place by numpy: one f-string and encoding a line (over a million lines for a frequent
        # predicate of a large KB) was most of the key's time
        heads, tails = _ends(entities, src, "<", f"> <{predicate}> <"), _ends(entities, dst, "", "> .\n")
        for at in range(0, src.size, CHUNK):
            parts = [b""] * (2 * min(CHUNK, src.size - at))
            parts[0::2], parts[1::2] = heads[src[at:at + CHUNK]].tolist(), tails[dst[at:at + CHUNK]].tolist()
            digest.update(b"".join(parts))
    return digest


def _ends(entities, ends: np.ndarray, before: str, after: str) -> np.ndarray:
    """By entity, ``before`` + its IRI + ``after`` as UTF-8: made for the entities of ``ends`` only."""
    wanted = np.zeros(len(entities), dtype=bool)
    wanted[ends] = True
    found = np.flatnonzero(wanted)
    made = np.empty(len(entities), dtype=object)
    made[found] = [f"{before}{entities[e]}{after}".encode("utf-8") for e in found.tolist()]
    return made


def guessable_bits(claims) -> int:
    """How many bits a verifier with R, the claims and a copy of the KB must guess to compute a key made
    without a secret: R refutes the REFUTES claims and holds the SUPPORTS ones, so only which NOT
    ENOUGH INFO claims are true facts taken out of R (and not false facts) is unknown: one bit each."""
    return sum(c.label == "NOT ENOUGH INFO" for c in claims)
