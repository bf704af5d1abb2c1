"""The reference fact checkers, chosen by name: ``checker("knowledge_linker", seed=0)``.

Each lives in its own module and has the interface of ``base.Checker``: ``fit(train_records,
reference)``, then ``score(records)`` -> one number per record, higher for "true".
"""
from __future__ import annotations

from importlib import import_module

from .base import Checker, CheckerError, FeatureChecker

CHECKERS = {
    "knowledge_linker": ("linker", "KnowledgeLinker"),
    "path_features": ("paths", "PathFeatures"),
    "transe": ("transe", "TransE"),
    "degree": ("baselines", "DegreeOnly"),
    "type": ("baselines", "TypeOnly"),
    "shape": ("baselines", "ShapeOnly"),
    "frequency": ("baselines", "FrequencyOnly"),
    "direct_link": ("baselines", "DirectLink"),
}
ALIASES = {"kl": "knowledge_linker", "linker": "knowledge_linker", "paths": "path_features",
           "pra": "path_features", "sfe": "path_features", "kg-miner": "path_features"}
REFERENCE_CHECKERS = ("knowledge_linker", "path_features", "transe")
BASELINES = ("degree", "type", "shape", "frequency", "direct_link")


def names() -> list[str]:
    return list(CHECKERS)


def canonical(name: str) -> str:
    key = ALIASES.get(name.strip().lower(), name.strip().lower())
    if key not in CHECKERS:
        raise CheckerError(f"checker: {name!r} is not one of {', '.join(CHECKERS)}")
    return key


def checker(name: str, *, seed: int = 0, **options) -> Checker:
    module, cls = CHECKERS[canonical(name)]
    return getattr(import_module(f"{__name__}.{module}"), cls)(seed=seed, **options)


__all__ = ["Checker", "CheckerError", "FeatureChecker", "checker", "names", "canonical", "CHECKERS"]
