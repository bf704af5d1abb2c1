"""The knobs of a claims set, in one table: the command line's flags, the HTTP API's query
parameters, release specs and the OpenAPI description all read it, and every value is checked
by the spec's own ``check_knob``, so none of them can accept what another refuses.

``claim_settings`` turns given values (JSON, or the text of a flag or a query string) into
validated, canonical settings: a plain dict that keys a claims set and goes into manifests.
``claim_options`` adds what comes from the scenario (seed, leakage) to make ``build.Options``.
"""
from __future__ import annotations

import hashlib
import json
from fractions import Fraction

from factforge.generators.spec import LEAKAGE, MAX_SIZE, Constraint, SpecError, check_knob
from factforge.sparql.messages import shown

from .build import Options
from .errors import ClaimsError
from .labelling import AUTO, parse_shares
from .templates import available

#: every claims knob; the order is the order of validation. Kind ``text`` is checked by its own parser.
CLAIM_CONSTRAINTS: dict[str, Constraint] = {
    "lang": Constraint("choices", ("en",), "claim languages", choices=available),
    "shares": Constraint("text", AUTO, "SUPPORTS,REFUTES,NOT ENOUGH INFO shares, as numbers or fractions; "
                                       "auto: the most claims with every label well represented: a third each, else a "
                                       "smaller REFUTES share (down to 1/10), else 1/2,0,1/2"),
    "count": Constraint("integer", None, "claims per language (default: as many as the shares allow)", 1, MAX_SIZE),
    "negation": Constraint("number", 0.0, "share of claims negated, the same number with each label", 0, 1),
    "conjunction": Constraint("number", 0.0, "share of claims joined by 'and' with another fact of their subject "
                                             "that R holds, the same number with each label", 0, 1),
    "temporal": Constraint("number", 0.0, "share of claims said with their dates and labelled by the dates R "
                                          "gives (FactBench from/to, rdf:Statement years), the same number with "
                                          "each label", 0, 1),
    "multi_hop": Constraint("number", 0.0, "share of claims said as a 2-hop path (the fact's object unnamed, "
                                           "through a functional link of it), the same number with each label", 0, 1),
    "require_labels": Constraint("boolean", False, "refuse an entity without a name in a claim language "
                                                   "(no IRI local names)"),
}
_TRUE, _FALSE = ("true", "1", "yes"), ("false", "0", "no")


def claim_settings(values: dict) -> dict:
    """Validated, canonical settings from ``values`` (absent knobs take their defaults); a SpecError
    names the knob. Text is read as a flag or a query string gives it: ``en,de``, ``0.2``, ``true``."""
    unknown = sorted(set(values) - set(CLAIM_CONSTRAINTS))
    if unknown:
        raise SpecError(unknown[0], f"unknown claims knob (known: {', '.join(CLAIM_CONSTRAINTS)})")
    settings = {}
    for name, constraint in CLAIM_CONSTRAINTS.items():
        value = _from_text(constraint, values.get(name, constraint.default))
        if value is None and constraint.default is None:
            settings[name] = None
        elif constraint.kind == "text":
            settings[name] = _shares(name, value)
        else:
            check_knob(name, value, constraint)
            if constraint.kind == "choices" and not value:
                raise SpecError(name, f"expected at least one of {', '.join(constraint.allowed())}")
            settings[name] = ([*value] if constraint.kind == "choices" else int(value) if constraint.kind == "integer"
                              else float(value) if constraint.kind == "number" else value)
    return settings


def _from_text(constraint: Constraint, value):
    """A knob's value from its text; text that does not read as the knob's kind stays text, for
    ``check_knob`` to refuse with its own message."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if constraint.kind == "choices":
        return [part.strip().lower() for part in text.split(",") if part.strip()]
    try:
        if constraint.kind == "integer":
            return int(text)
        if constraint.kind == "number":
            return float(text)
    except ValueError:
        return value
    if constraint.kind == "boolean" and text.lower() in _TRUE + _FALSE:
        return text.lower() in _TRUE
    return value


def _shares(name: str, value) -> str:
    if not isinstance(value, str):
        raise SpecError(name, f"expected text S,R,N (e.g. 1/3,1/3,1/3) or auto, got {shown(value)}")
    if value.strip().lower() == AUTO:
        return AUTO
    try:
        shares = parse_shares(value)
    except ClaimsError as error:
        raise SpecError(name, str(error).removeprefix("--shares: ")) from None
    return ",".join(str(share) for share in shares)


def settings_key(settings: dict, seed: int) -> str:
    """A short name for a claims set of one scenario: the same settings and seed, the same key."""
    canonical = json.dumps({**settings, "seed": seed}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def claim_options(settings: dict, *, seed: int, leakage: str, user_labels: dict | None = None):
    """``build.Options`` for validated ``settings`` and the scenario's seed and leakage level."""
    if leakage not in LEAKAGE:
        raise SpecError("leakage", f"must be one of {', '.join(LEAKAGE)}, got {shown(leakage)}")
    shares = AUTO if settings["shares"] == AUTO else tuple(Fraction(s) for s in settings["shares"].split(","))
    return Options(langs=list(settings["lang"]), shares=shares,
                   seed=seed, count=settings["count"], negation=settings["negation"],
                   conjunction=settings["conjunction"], temporal=settings["temporal"],
                   multi_hop=settings["multi_hop"], leakage=leakage, require_labels=settings["require_labels"],
                   user_labels=user_labels)
