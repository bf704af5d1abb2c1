"""One seed, many independent streams: every random choice in a scenario comes from here.

Each component draws from its own stream, derived from the spec's seed and the component's
name, so adding a draw in one component never shifts the choices of another.
"""
from __future__ import annotations

import hashlib

import numpy as np


def stream(seed: int, name: str) -> np.random.Generator:
    salt = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")
    return np.random.default_rng([int(seed), salt])

