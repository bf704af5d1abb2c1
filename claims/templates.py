"""Claim templates: one JSON file per language in ``claims/templates/<lang>.json``.

Format ``factforge-claim-templates/1``::

    {"format": "factforge-claim-templates/1", "lang": "en",
     "end": ".",                       what closes a sentence
     "date": " ({date})",              a one-day (or one-year) fact's date, appended
     "span": " ({start} – {end})",     a fact's time span, appended
     "and": "{first}, and {second}",   two facts in one claim (a conjunction)
     "path": "an entity whose {q} is {o}",  what stands for the unnamed middle of a 2-hop path
     "predicates": {"dbo:birthPlace": [{"id": "birthPlace.1", "text": "{s} was born in {o}",
                                        "negated": "{s} was not born in {o}"}, ...]},
     "generic": [{"id": "generic.1", "text": "The {p} of {s} is {o}", ...}]}

``{s}`` and ``{o}`` are the subject's and object's names, ``{p}`` (generic templates only) the
predicate's label in the language. Every template has a negated form, so that a claim and its
negation use the same wording.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib import resources

from factforge.sparql.terms import iri

from .errors import ClaimsError
from .keyed import keyed_index

FORMAT = "factforge-claim-templates/1"
_SLOT = re.compile(r"\{(\w*)\}")


class TemplateFileError(ClaimsError):
    """A template file is malformed; the message names the file and the entry."""


@dataclass(frozen=True)
class Template:
    id: str
    text: str
    negated: str

    def fill(self, *, negated: bool, **slots: str) -> str:
        pieces = self._negated_pieces if negated else self._pieces
        return "".join(slots[piece] if i % 2 else piece for i, piece in enumerate(pieces))

    # a form split once at its slots (text, slot name, text, ...): filling is then a join, not a regex pass
    @cached_property
    def _pieces(self) -> list[str]:
        return _SLOT.split(self.text)

    @cached_property
    def _negated_pieces(self) -> list[str]:
        return _SLOT.split(self.negated)


@dataclass(frozen=True)
class Language:
    lang: str
    end: str
    date: str
    span: str
    conjunction: str
    path: str
    predicates: dict[str, tuple[Template, ...]]
    generic: tuple[Template, ...]

    def choose(self, seed: int, subject: str, predicate: str, slot: int | None = None) -> tuple[Template, bool]:
        """(template, generic?): chosen by (subject, predicate) only, so a true claim and a false one
        about the same subject and predicate are worded alike: the ``slot`` dealt to it, else a hash."""
        own = self.predicates.get(predicate)
        options = own or self.generic
        index = slot % len(options) if slot is not None else \
            keyed_index(seed, f"template/{self.lang}", subject, predicate, len(options))
        return options[index], not own


def available() -> list[str]:
    folder = resources.files("factforge.claims") / "templates"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json"))


@lru_cache(maxsize=None)
def load(lang: str) -> Language:
    if lang not in available():
        raise TemplateFileError(f"--lang: no claim templates for {lang!r} (available: {', '.join(available())})")
    name = f"templates/{lang}.json"
    try:
        data = json.loads((resources.files("factforge.claims") / "templates" / f"{lang}.json").read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise TemplateFileError(f"{name}: cannot read ({error})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("lang") != lang:
        raise TemplateFileError(f"{name}: expected format {FORMAT!r} and lang {lang!r}")
    predicates = {iri(key, field=f"{name}: predicate").value: _templates(name, key, entries, ("s", "o"))
                  for key, entries in data.get("predicates", {}).items()}
    generic = _templates(name, "generic", data.get("generic"), ("s", "o", "p"))
    for key in ("end", "date", "span", "and", "path"):
        if not isinstance(data.get(key), str):
            raise TemplateFileError(f"{name}: {key!r} must be a string")
    if set(_SLOT.findall(data["path"])) != {"q", "o"}:
        raise TemplateFileError(f"{name}: 'path' must use {{q}} and {{o}}")
    return Language(lang, data["end"], data["date"], data["span"], data["and"], data["path"], predicates, generic)


def _templates(name: str, key: str, entries, slots: tuple[str, ...]) -> tuple[Template, ...]:
    if not isinstance(entries, list) or not entries:
        raise TemplateFileError(f"{name}: {key}: expected a non-empty list of templates")
    made = []
    for entry in entries:
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in ("id", "text", "negated")):
            raise TemplateFileError(f"{name}: {key}: each template needs string id, text and negated")
        for form in ("text", "negated"):
            used = set(_SLOT.findall(entry[form]))
            if used != set(slots):
                raise TemplateFileError(f"{name}: {entry['id']}: {form} uses {sorted(used)}, expected {sorted(slots)}")
        made.append(Template(entry["id"], entry["text"], entry["negated"]))
    return tuple(made)
