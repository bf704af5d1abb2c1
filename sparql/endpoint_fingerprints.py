"""Endpoint fingerprints remembered on disk for a bounded time, per (endpoint URL, graphs).

Computing an endpoint's fingerprint reads a GROUP BY over the whole KB (``EndpointStore.fingerprint``),
which every command would otherwise repeat. A remembered one is used while it is younger than the
age the caller allows; within that time a change to the KB behind the endpoint is not seen (the
change goes unnoticed: caches kept under the old fingerprint are read, scenarios name it). The file
name is a hash of the URL and the graphs, so a URL's user:password is not written to disk.
"""
from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Callable

from .cache import write_json
from .interface import default_cache_root

#: seconds a computed endpoint fingerprint is used for by default
MAX_AGE = 3600.0


def entry_path(url: str, graphs: tuple[str, ...] | list[str]) -> Path:
    key = "\n".join([url, *sorted(set(graphs))])
    return default_cache_root() / "endpoint-fingerprints" / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"


def remembered(url: str, graphs: tuple[str, ...] | list[str], max_age: float, compute: Callable[[], str]) -> str:
    """The fingerprint computed for this endpoint and graphs less than ``max_age`` seconds ago, else
    ``compute()``'s, remembered from now on (``max_age`` 0: always computed)."""
    path = entry_path(url, graphs)
    if max_age > 0:
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            age = time.time() - float(entry["computed"])
            if 0 <= age <= max_age and isinstance(entry["fingerprint"], str):
                return entry["fingerprint"]
        except (OSError, ValueError, KeyError, TypeError):
            pass  # none, unreadable or from another format: computed anew
    fingerprint = compute()
    try:
        write_json(path, {"computed": time.time(), "fingerprint": fingerprint})
    except OSError:
        pass  # a read-only cache: computed again next time
    return fingerprint
