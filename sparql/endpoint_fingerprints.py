"""Endpoint fingerprints, and what the cap probe found, remembered on disk per (endpoint URL, graphs).

Computing an endpoint's fingerprint reads a GROUP BY over the whole KB (``EndpointStore.fingerprint``),
which every command would otherwise repeat. A remembered one is used while it is younger than the
age the caller allows; within that time a change to the KB behind the endpoint is not seen (the
change goes unnoticed: caches kept under the old fingerprint are read, scenarios name it). The file
name is a hash of the URL and the graphs, so a URL's user:password is not written to disk.

The cap probe (``EndpointStore._probe``: whether, and where, the server cuts answers) is remembered
the same way, with the fingerprint it was made under: a command reuses it when the KB's fingerprint
is pinned to that one, or when it is younger than the age allowed, and then asks for the probe's rows
once more (not their COUNT), so that a cap changed on the server since is found.
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


def entry_path(url: str, graphs: tuple[str, ...] | list[str], kind: str = "fingerprints") -> Path:
    key = "\n".join([url, *sorted(set(graphs))])
    return default_cache_root() / f"endpoint-{kind}" / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"


def probe_found(url: str, graphs: tuple[str, ...] | list[str], *, pinned: str | None,
                max_age: float | None) -> dict | None:
    """The last probe's findings (``cap``, ``whole_below``) for this endpoint, when made under the
    pinned fingerprint or at most ``max_age`` seconds ago; else None."""
    try:
        entry = json.loads(entry_path(url, graphs, "probes").read_text(encoding="utf-8"))
        same_kb = pinned is not None and entry["fingerprint"] == pinned
        recent = max_age is not None and 0 <= time.time() - float(entry["computed"]) <= max_age
        cap, whole_below = entry["cap"], int(entry["whole_below"])
        if (same_kb or recent) and (cap is None or isinstance(cap, int)):
            return {"cap": cap, "whole_below": whole_below}
    except (OSError, ValueError, KeyError, TypeError):
        pass  # none, unreadable or from another format: probed anew
    return None


def remember_probe(url: str, graphs: tuple[str, ...] | list[str], *, pinned: str | None, cap: int | None,
                   whole_below: int) -> None:
    try:
        write_json(entry_path(url, graphs, "probes"), {"computed": time.time(), "fingerprint": pinned, "cap": cap,
                                                       "whole_below": whole_below})
    except OSError:
        pass  # a read-only cache: probed again next time


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
