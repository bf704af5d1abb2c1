"""Negative samplers, one module per kind, chosen by name through ``sampler(name)``."""
from __future__ import annotations

from .base import NegativeContext, NegativeSampler
from .factbench import SAMPLERS as FACTBENCH_SAMPLERS
from .lcwa import LocalClosedWorld
from .random_pairing import RandomPairing
from .random_walk import RandomWalk

SAMPLERS: dict[str, type[NegativeSampler]] = {
    RandomPairing.name: RandomPairing,
    LocalClosedWorld.name: LocalClosedWorld,
    RandomWalk.name: RandomWalk,
}
SAMPLERS.update({cls.name: cls for cls in FACTBENCH_SAMPLERS})  # factbench:domain ... factbench:date


def sampler(name: str) -> NegativeSampler:
    try:
        return SAMPLERS[name]()
    except KeyError:
        raise ValueError(f"no negative sampler named {name!r} (known: {', '.join(sorted(SAMPLERS))})") from None


__all__ = ["NegativeContext", "NegativeSampler", "SAMPLERS", "sampler"]
