"""Keyed choices of a claims set: a keyed hash of (subject, predicate), or a keyed rank of a fact.

True and false facts of one subject and predicate differ only in their object (or dates), so a
choice keyed on (subject, predicate) alone is the same for both: the wording, the aliases and the
date granularity then carry nothing about the label.

A key is the seed, for a choice anyone may replay (it depends on what a claim shows, never on its
label), or the plan key (``plan_key``: bytes, kept in answers.json), for every order the label plan
follows: which true facts leave R first, and which claims of each label take a form. Those orders
decide labels, and keyed by the seed alone a verifier who knows the seed could replay them.
"""
from __future__ import annotations

import hashlib
import hmac
from functools import lru_cache


@lru_cache(maxsize=256)
def _key(purpose: str, key: int | bytes) -> bytes:
    """One stream's HMAC key: computed once, not once a choice (a claims set makes several choices a claim)."""
    if isinstance(key, bytes):
        return hashlib.sha256(f"factforge/claims/{purpose}\n".encode() + key).digest()
    return hashlib.sha256(f"factforge/claims/{purpose}\n{int(key)}".encode()).digest()


def keyed_index(key: int | bytes, purpose: str, subject: str, predicate: str, n: int) -> int:
    """An index below ``n``, from the key, the purpose (one stream per choice) and (subject, predicate)."""
    if n <= 1:
        return 0
    digest = hmac.digest(_key(purpose, key), f"{subject}\n{predicate}".encode("utf-8"), "sha256")
    return int.from_bytes(digest[:8], "big") % n


def keyed_rank(key: int | bytes, purpose: str, fields: tuple[str, ...]) -> bytes:
    """A fact's place (``fields``: its triple, and its dates where they tell facts apart) in a keyed
    order for ``purpose``: picking the first m of each label's claims by it picks the same number of
    each label, whatever the facts."""
    return hmac.digest(_key(purpose, key), "\n".join(fields).encode("utf-8"), "sha256")
