"""Choices that must not depend on a claim's label: a seeded keyed hash of (subject, predicate).

True and false facts of one subject and predicate differ only in their object (or dates), so a
choice keyed on (subject, predicate) alone is the same for both: the wording, the aliases and the
date granularity then carry nothing about the label.
"""
from __future__ import annotations

import hashlib
import hmac
from functools import lru_cache


@lru_cache(maxsize=256)
def _key(purpose: str, seed: int) -> bytes:
    """One stream's HMAC key: computed once, not once a choice (a claims set makes several choices a claim)."""
    return hashlib.sha256(f"factforge/claims/{purpose}\n{int(seed)}".encode()).digest()


def keyed_index(seed: int, purpose: str, subject: str, predicate: str, n: int) -> int:
    """An index below ``n``, from the seed, the purpose (one stream per choice) and (subject, predicate)."""
    if n <= 1:
        return 0
    digest = hmac.digest(_key(purpose, int(seed)), f"{subject}\n{predicate}".encode("utf-8"), "sha256")
    return int.from_bytes(digest[:8], "big") % n


def keyed_rank(seed: int, purpose: str, triple: tuple[str, str, str]) -> bytes:
    """A fact's place in a seeded order for ``purpose``: picking the first m of each label's claims
    by it picks the same number of each label, whatever the facts."""
    return hmac.digest(_key(purpose, int(seed)), "\n".join(triple).encode("utf-8"), "sha256")
