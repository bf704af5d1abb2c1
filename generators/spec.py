"""A scenario's spec: every knob, validated up front with messages that name the field.

The spec is what a user asks for (CLI flags, an HTTP body, a release file). Its canonical JSON,
with the software version and the KB fingerprint, travels with every output and derives the
scenario id.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, fields
from typing import Callable

from factforge.sparql.messages import shown

from .negatives.registry import ambiguous_kinds, factbench_kinds

POPULARITY = ("popular", "unpopular", "random")
LEAKAGE = ("triple", "inverse", "pair")
MAX_SIZE = 100_000
MAX_SEED = 2**32 - 1


@dataclass(frozen=True)
class Constraint:
    """What one knob accepts. The validator, the OpenAPI schema and the CLI flags all read it, so
    they cannot disagree.

    ``kind`` is integer, number, choice (one of ``choices``), choices (a list of distinct ones) or
    boolean. ``choices`` is a tuple or a function returning one: the negative kinds are the sampler
    registry's, known only once it is loaded.
    """

    kind: str
    default: object
    help: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] | Callable[[], tuple[str, ...]] = ()

    def allowed(self) -> tuple[str, ...]:
        return tuple(self.choices() if callable(self.choices) else self.choices)


#: every knob of a spec but the predicate; the order is the order of validation
CONSTRAINTS: dict[str, Constraint] = {
    "size": Constraint("integer", 300, "test facts", 2, MAX_SIZE),
    "ratio": Constraint("number", 1.0, "true:false ratio", 0.01, 100),
    "transparency": Constraint("number", 0.5, "share of random false facts", 0, 1),
    "homogeneity": Constraint("number", 0.0, "share of true facts from one cluster", 0, 1),
    "max_path_length": Constraint("integer", 3, "random walk paths up to this length", 1, 4),
    "type_overlap": Constraint("integer", 4, "classes a false object must share", 0, 20),
    "train_size": Constraint("integer", 0, "training facts (0 = none)", 0, MAX_SIZE),
    "latest_year": Constraint("integer", 2025, "date corruption bound", 1, 9999),
    "seed": Constraint("integer", 0, "the one seed of every random choice", 0, MAX_SEED),
    "popularity": Constraint("choice", "random", "which true facts are drawn", choices=POPULARITY),
    "ambiguous": Constraint("choice", "lcwa", "how ambiguous false facts are made", choices=ambiguous_kinds),
    "leakage": Constraint("choice", "triple", "what leaves the reference KB around a test fact", choices=LEAKAGE),
    "entity_disjoint": Constraint("boolean", False, "no entity shared by train and test"),
    "factbench": Constraint("choices", (), "FactBench kinds", choices=factbench_kinds),
}


class SpecError(ValueError):
    """A spec field is missing, unknown or out of range; ``field`` names it."""

    def __init__(self, field_name: str, message: str):
        # A check that wraps another error's message (an unknown predicate, a bad IRI) may pass one
        # that names the field already; said twice it reads "predicate: predicate: ...".
        message = message.removeprefix(f"{field_name}: ")
        super().__init__(f"{field_name}: {message}")
        self.field = field_name
        self.reason = message


@dataclass(frozen=True)
class ScenarioSpec:
    predicate: str
    size: int = CONSTRAINTS["size"].default
    ratio: float = CONSTRAINTS["ratio"].default
    popularity: str = CONSTRAINTS["popularity"].default
    transparency: float = CONSTRAINTS["transparency"].default
    homogeneity: float = CONSTRAINTS["homogeneity"].default
    ambiguous: str = CONSTRAINTS["ambiguous"].default
    max_path_length: int = CONSTRAINTS["max_path_length"].default
    type_overlap: int = CONSTRAINTS["type_overlap"].default
    factbench: tuple[str, ...] = field(default_factory=tuple)
    leakage: str = CONSTRAINTS["leakage"].default
    train_size: int = CONSTRAINTS["train_size"].default
    entity_disjoint: bool = CONSTRAINTS["entity_disjoint"].default
    latest_year: int = CONSTRAINTS["latest_year"].default
    seed: int = CONSTRAINTS["seed"].default

    def __post_init__(self):
        _check(self)

    # --- counts -------------------------------------------------------------------------------
    @staticmethod
    def split_counts(total: int, ratio: float) -> tuple[int, int]:
        """(true, false) for ``total`` facts at ``ratio`` true:false, exact up to rounding."""
        true = int(round(total * ratio / (1.0 + ratio)))
        return true, total - true

    @property
    def test_counts(self) -> tuple[int, int]:
        return self.split_counts(self.size, self.ratio)

    @property
    def train_counts(self) -> tuple[int, int]:
        return self.split_counts(self.train_size, self.ratio)

    # --- serialization --------------------------------------------------------------------------
    def to_dict(self) -> dict:
        data = asdict(self)
        data["factbench"] = list(self.factbench)
        return data

    def canonical_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    def scenario_id(self, fingerprint: str, version: str) -> str:
        digest = hashlib.sha256(f"{fingerprint}\n{version}\n{self.canonical_json()}".encode()).hexdigest()
        return f"sc-{digest[:20]}"

    @classmethod
    def from_dict(cls, data: dict) -> "ScenarioSpec":
        if not isinstance(data, dict):
            raise SpecError("spec", "expected a JSON object")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise SpecError(unknown[0], f"unknown field (known: {', '.join(sorted(known))})")
        if "predicate" not in data:
            raise SpecError("predicate", "required")
        values = dict(data)
        if "factbench" in values:
            kinds = values["factbench"]
            if isinstance(kinds, str):
                kinds = [k for k in kinds.split(",") if k]
            if not isinstance(kinds, (list, tuple)):
                raise SpecError("factbench", "expected a list of corruption kinds")
            values["factbench"] = tuple(kinds)
        return cls(**values)


def _number(name: str, value, *, integer: bool, low: float, high: float):
    # Whole-number bounds are written out in full (4294967295, not 4.29497e+09).
    allowed = f"between {int(low)} and {int(high)}" if integer else f"between {low:g} and {high:g}"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(name, f"expected a {'whole ' if integer else ''}number {allowed}, got {shown(value)}")
    # float(value) of an int past float's range raises OverflowError; Python compares int and float exactly
    if integer and isinstance(value, float) and not value.is_integer():
        raise SpecError(name, f"expected a whole number {allowed}, got {shown(value)}")
    if not (low <= value <= high):
        raise SpecError(name, f"must be {allowed}, got {shown(value)}")


def _choice(name: str, value, allowed: tuple[str, ...]):
    if value not in allowed:
        raise SpecError(name, f"must be one of {', '.join(allowed)}, got {shown(value)}")


def check_knob(name: str, value, constraint: Constraint) -> None:
    """SpecError naming ``name`` unless ``value`` is what ``constraint`` accepts."""
    if constraint.kind in ("integer", "number"):
        _number(name, value, integer=constraint.kind == "integer", low=constraint.low, high=constraint.high)
    elif constraint.kind == "choice":
        _choice(name, value, constraint.allowed())
    elif constraint.kind == "boolean":
        if not isinstance(value, bool):
            raise SpecError(name, f"expected true or false, got {shown(value)}")
    else:  # choices: a list of distinct ones
        kinds = constraint.allowed()
        if not isinstance(value, (list, tuple)):
            raise SpecError(name, f"expected a list of {constraint.help} ({', '.join(kinds)}), got {shown(value)}")
        for kind in value:
            _choice(name, kind, kinds)
        if len(set(value)) != len(value):
            raise SpecError(name, f"{shown(next(k for k in value if value.count(k) > 1))} is listed twice")


def _check(spec: ScenarioSpec) -> None:
    from factforge.sparql.terms import TermError, iri

    if not isinstance(spec.predicate, str):
        raise SpecError("predicate", f"expected an IRI string, got {shown(spec.predicate)}")
    try:
        object.__setattr__(spec, "predicate", iri(spec.predicate, field="predicate").value)
    except TermError as error:
        raise SpecError("predicate", str(error)) from None
    for name, constraint in CONSTRAINTS.items():
        check_knob(name, getattr(spec, name), constraint)
    kinds = CONSTRAINTS["factbench"].allowed()
    for name, constraint in CONSTRAINTS.items():
        if constraint.kind == "integer":
            object.__setattr__(spec, name, int(getattr(spec, name)))
        elif constraint.kind == "number":
            object.__setattr__(spec, name, float(getattr(spec, name)))
    object.__setattr__(spec, "factbench", tuple(sorted(spec.factbench, key=kinds.index)))
    true, false = spec.test_counts
    if true < 1 or false < 1:
        raise SpecError("ratio", f"size {spec.size} at ratio {spec.ratio:g} leaves no true or no false fact")
    if spec.train_size:
        true, false = spec.train_counts
        if true < 1 or false < 1:
            raise SpecError("train_size", f"train_size {spec.train_size} at ratio {spec.ratio:g} leaves no true "
                                          "or no false training fact: use 0 (no training set) or at least 2")
