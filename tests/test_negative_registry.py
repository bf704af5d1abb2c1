"""The sampler registry is the one list of negative kinds: the spec's validation, the OpenAPI
description and the command line's help offer exactly its kinds, and a kind registered there is
offered everywhere with no other edit."""
from __future__ import annotations

import argparse
import dataclasses
import re

import pytest

from factforge.generators.negatives import registry
from factforge.generators.negatives.base import NegativeSampler
from factforge.generators.spec import ScenarioSpec, SpecError
from factforge.cli.main import build_parser
from factforge.server.openapi import openapi_document

BIRTH_PLACE = "http://dbpedia.org/ontology/birthPlace"


class AmbiguousStandIn(NegativeSampler):
    name = kind = "test_only_ambiguous"
    ambiguous = True


class CorruptionStandIn(NegativeSampler):
    family = "factbench"
    kind, name = "test_only_corruption", "factbench:test_only_corruption"


def accepted_by_spec(field: str, candidates) -> set[str]:
    """The candidate values the spec's validation takes for ``field``."""
    taken = set()
    for value in candidates:
        try:
            ScenarioSpec(BIRTH_PLACE, **{field: (value,) if field == "factbench" else value})
        except SpecError as error:
            assert error.field == field
        else:
            taken.add(value)
    return taken


def offered_by_openapi() -> tuple[set[str], set[str]]:
    fields = openapi_document()["components"]["schemas"]["ScenarioSpec"]["properties"]
    return set(fields["ambiguous"]["enum"]), set(fields["factbench"]["items"]["enum"])


def cli_help(command: str, dest: str) -> str:
    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return next(a for a in commands.choices[command]._actions if a.dest == dest).help


def choices_in(help_text: str) -> set[str]:
    """The choices a knob's help lists: "what it does: a | b (default a)" (cli.options.knob_help)."""
    listed = help_text.split(": ", 1)[1]
    return set(re.sub(r" \(default [^)]*\)$", "", listed).split(" | "))


def offered_by_cli() -> tuple[set[str], set[str], set[str]]:
    """The kinds the help of ``generate --ambiguous``, ``grid --ambiguous`` and ``generate --factbench`` lists."""
    ambiguous, grid = (choices_in(cli_help(command, "ambiguous")) for command in ("generate", "grid"))
    factbench = set(cli_help("generate", "factbench").split(": ", 1)[1].split(", "))
    return ambiguous, grid, factbench


def every_name_anywhere() -> set[str]:
    """Every registry name and kind, and a few that are no kind at all."""
    return ({cls.name for cls in registry.SAMPLERS.values()} | {cls.kind for cls in registry.SAMPLERS.values()}
            | {"mix", "nope", "LCWA", ""})


def test_the_registry_holds_the_kinds_of_the_paper_and_of_factbench():
    assert set(registry.ambiguous_kinds()) == {"lcwa", "random_walk"}
    assert registry.factbench_kinds() == ("domain", "range", "domainrange", "property", "random", "date", "mix")
    assert registry.transparent().name == "random"
    assert list(registry.sections()) == ["lcwa", "random_walk", "factbench"]
    for name, cls in registry.SAMPLERS.items():
        assert cls.name == name and cls.knob in {f.name for f in dataclasses.fields(ScenarioSpec)}
        assert cls.advice, name


def test_spec_openapi_and_cli_offer_exactly_the_registrys_kinds():
    ambiguous, factbench = set(registry.ambiguous_kinds()), set(registry.factbench_kinds())
    assert accepted_by_spec("ambiguous", every_name_anywhere()) == ambiguous
    assert accepted_by_spec("factbench", every_name_anywhere()) == factbench
    assert offered_by_openapi() == (ambiguous, factbench)
    assert offered_by_cli() == (ambiguous, ambiguous, factbench)


def test_a_registered_kind_is_offered_everywhere_and_a_removed_one_nowhere(monkeypatch):
    monkeypatch.setitem(registry.SAMPLERS, AmbiguousStandIn.name, AmbiguousStandIn)
    monkeypatch.setitem(registry.SAMPLERS, CorruptionStandIn.name, CorruptionStandIn)
    monkeypatch.delitem(registry.SAMPLERS, "random_walk")
    ambiguous = {"lcwa", AmbiguousStandIn.name}
    factbench = {"domain", "range", "domainrange", "property", "random", "date", CorruptionStandIn.kind, "mix"}
    candidates = every_name_anywhere() | {"random_walk"}
    assert accepted_by_spec("ambiguous", candidates) == ambiguous
    assert accepted_by_spec("factbench", candidates) == factbench
    assert offered_by_openapi() == (ambiguous, factbench)
    assert offered_by_cli() == (ambiguous, ambiguous, factbench)


@pytest.mark.parametrize("name", sorted(registry.SAMPLERS))
def test_sampler_by_name_gives_that_kind(name):
    assert type(registry.sampler(name)) is registry.SAMPLERS[name]


def test_an_unknown_sampler_name_lists_the_known_ones():
    with pytest.raises(ValueError) as caught:
        registry.sampler("nope")
    assert all(name in str(caught.value) for name in registry.SAMPLERS)
