"""The plan key: what keys every ordered choice of a claims set's label plan, kept from whoever verifies it.

The plan takes true facts out of R one after another (the first ones out become NOT ENOUGH INFO, the
next stay as SUPPORTS) and picks which claims take a form (negation, conjunction, temporal, multi-hop,
a template) in an order per label. A system under test knows the seed (it is in the manifest) and the
software; had those orders been keyed by the seed alone (``generators.fact_order``), it could replay
them on the facts it parses from the claims and read NOT ENOUGH INFO off the earliest true facts
without any KB. So they are keyed by a key it cannot compute:

    key = SHA-256("factforge/claims/plan-key" | seed | SHA-256(the KB's facts of the set's predicates))

the KB's facts being every (subject, object) of each predicate of the set's true facts, as N-Triples
lines in (predicate, subject, object) order. It must be reproducible (same KB, parameters and seed,
same bytes) and the same through every backend, so it is made of the KB's content and not of its
fingerprint, which differs per backend (file hashes, a quad hash, an endpoint's counts). The claims'
R lacks exactly the facts taken out, and a verifier without the KB cannot name the KB's other facts
of the predicates either, so neither can compute it; whoever holds the whole KB could, but could as
well rerun the whole generation, which a reproducible output cannot prevent. A secret drawn at random
would be safe from that too, but would give other bytes on every run.

The key is written to answers.json (``plan_key``, hex) and nowhere a system under test reads.
"""
from __future__ import annotations

import hashlib

CHUNK = 4096  # lines hashed a call: one update a line costs more than the hash itself


def plan_key(index, seed: int, predicates) -> bytes:
    """The key of a claims set of this seed over true facts of ``predicates``, from the KB's whole
    adjacency index (``sparql.adjacency``: its entities are sorted and its links sorted by (subject,
    predicate, object), so the lines come in one order through every backend). A predicate the KB
    has no link of adds nothing."""
    digest = hashlib.sha256()
    for predicate in sorted(set(predicates)):
        pid = index.pindex.get(predicate)
        if pid is None:
            continue
        mask = index.pred == pid
        src, dst = index.src[mask].tolist(), index.dst[mask].tolist()
        entities = index.entities
        for at in range(0, len(src), CHUNK):
            digest.update("".join(f"<{entities[s]}> <{predicate}> <{entities[o]}> .\n"
                                  for s, o in zip(src[at:at + CHUNK], dst[at:at + CHUNK])).encode("utf-8"))
    return hashlib.sha256(f"factforge/claims/plan-key\n{int(seed)}\n".encode() + digest.digest()).digest()
