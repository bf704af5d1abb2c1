"""What entities and predicates are called in a language: the KB's names, a user's, or the IRI's.

An entity's name in a language is its ``rdfs:label``, else its ``skos:prefLabel``, else the name
a user label file gives (TSV: IRI, language, label), else the IRI's local name (for a FactBench folder, the
names its models give come before the user's file: a store of the true models only lacks the names
of the false facts' entities); the last is a
fallback that the answers mark and ``--require-labels`` refuses. ``skos:altLabel`` names that
share a word with the main name are the aliases a claim may use (DBpedia's altLabels also hold
redirects such as "Pretzel incident" for George W. Bush, which name something else). The KB's
gender of an entity (foaf:gender, dbo:gender, Wikidata P21) is read with its names: French words
that agree with a person follow it, and without it a template's wording that agrees with none.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote

from factforge.sparql.profiles import batched
from factforge.sparql.store import Store
from factforge.sparql.terms import TermError, iri

from . import articles
from .errors import ClaimsError
from .keyed import keyed_index

KB, MODELS, USER, LOCAL = "kb", "factbench model", "label file", "local name"
# foaf:gender and dbo:gender values (literals, DBpedia resources) and Wikidata's P21 items (male, female,
# trans man, trans woman) by their local name: the gender a French participle agrees with
_GENDERS = {"male": "m", "man": "m", "m": "m", "q6581097": "m", "q2449503": "m",
            "female": "f", "woman": "f", "f": "f", "q6581072": "f", "q1052281": "f"}
_WORD = re.compile(r"\w+")


class NamesError(ClaimsError):
    """A label file cannot be read, or an entity has no name where one is required."""


@dataclass
class Names:
    """Names by (IRI, language): the main one with its source, and aliases."""

    main: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    aliases: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    articles: dict[str, dict[str, str]] = field(default_factory=dict)  # a label file's: by language, name: class
    genders: dict[str, str] = field(default_factory=dict)  # by entity: "m" or "f", where the KB gives one
    # by entity: "place", "work", what the KB types it as (never an agent), among those whose local name
    # begins with an article-like word: where the language says so, the word is the name's own article
    # ("Le Mans": "au Mans"; ``articles``' own_typed)
    typed: dict[str, frozenset[str]] = field(default_factory=dict)

    def name(self, entity: str, lang: str) -> tuple[str, str]:
        """(name, source): source is ``kb``, ``label file`` or ``local name``."""
        return self.main.get((entity, lang)) or (local_name(entity), LOCAL)

    def say(self, entity: str, lang: str, *, seed: int, role: str, subject: str, predicate: str) -> tuple[str, str]:
        """The name a claim uses: the main name, or one of its aliases, chosen by (subject, predicate)."""
        main, source = self.name(entity, lang)
        aliases = self.aliases.get((entity, lang), [])
        if aliases and keyed_index(seed, f"alias?/{role}", subject, predicate, 3) == 0:
            return aliases[keyed_index(seed, f"alias/{role}", subject, predicate, len(aliases))], source
        return main, source


@lru_cache(maxsize=1 << 16)  # a claims set says each entity once a language and claim
def local_name(value: str) -> str:
    """``http://dbpedia.org/resource/New_Haven,_Connecticut`` -> ``New Haven, Connecticut``."""
    cut = max(value.rfind("/"), value.rfind("#"))
    return unquote(value[cut + 1:] or value).replace("_", " ").strip() or value


def _matches(tag: str, lang: str) -> bool:
    tag = tag.lower()
    return tag == lang or tag.startswith(lang + "-")


def kb_names(store: Store, entities, langs: list[str], user: dict[tuple[str, str], str] | None = None,
             models: dict[tuple[str, str], str] | None = None) -> Names:
    """The names of ``entities`` in ``langs``, from the KB, then FactBench models, then the user's file."""
    found: dict[tuple[str, str, str], set[str]] = {}
    genders: dict[str, set[str | None]] = {}
    for batch in batched(sorted(set(entities))):
        for row in store.select("entity_names", entities=[iri(e) for e in batch]):
            if row["kind"].value == "gender":
                genders.setdefault(row["e"].value, set()).add(_GENDERS.get(local_name(row["name"].value).lower()))
                continue
            tag = row["name"].language or ""
            for lang in langs:
                if _matches(tag, lang) and row["name"].value.strip():
                    found.setdefault((row["e"].value, lang, row["kind"].value), set()).add(row["name"].value.strip())
    # a gender other than these, or two that differ, gets the wording that agrees with none
    names = Names(articles=getattr(user, "articles", {}),
                  genders={e: next(iter(g)) for e, g in sorted(genders.items()) if len(g) == 1 and None not in g})
    for entity in sorted(set(entities)):
        for lang in langs:
            # several labels in one language (a KB merged from sources): the first in code point order
            main = min(found.get((entity, lang, "label"), ()) or found.get((entity, lang, "pref"), ()) or [""])
            if main:
                names.main[(entity, lang)] = (main, KB)
            elif models and (entity, lang) in models:
                names.main[(entity, lang)] = (models[(entity, lang)], MODELS)
            elif user and (entity, lang) in user:
                names.main[(entity, lang)] = (user[(entity, lang)], USER)
            if main:
                words = {w.lower() for w in _WORD.findall(main)}
                names.aliases[(entity, lang)] = sorted(
                    a for a in found.get((entity, lang, "alt"), ())
                    if a != main and words & {w.lower() for w in _WORD.findall(a)})
    names.typed = _place_or_work(store, entities, langs, names)
    return names


def _place_or_work(store: Store, entities, langs: list[str], names: Names) -> dict[str, frozenset[str]]:
    """What the KB types those of ``entities`` as ("place", "work"), whose local name or a name of
    ``names`` begins with a word that is a label's own article in one of ``langs`` (``articles``: "Le",
    "Les", "Der", "Das"), where it does not type them as an agent: asked of those alone, since only
    their names can carry one (a German work's title is then said whole: "Der Regen fällt")."""
    files = [articles.load(lang) for lang in langs]
    words = {word for said in files if said is not None for word in (said.own or {})}
    named = {e: [local_name(e)] for e in set(entities)}
    for (entity, _), (main, _) in names.main.items():
        named.setdefault(entity, []).append(main)
    for (entity, _), aliases in names.aliases.items():
        named.setdefault(entity, []).extend(aliases)
    wanted = sorted(e for e, found in named.items() if any(n.split(" ", 1)[0] in words for n in found))
    kinds: dict[str, set[str]] = {}
    for batch in batched(wanted):
        for row in store.select("entity_name_kinds", entities=[iri(e) for e in batch]):
            kinds.setdefault(row["e"].value, set()).add(row["kind"].value)
    return {e: frozenset(found) for e, found in sorted(kinds.items()) if "agent" not in found}


class UserLabels(dict):
    """A label file's names by (IRI, language), and ``articles``: by language, the labels it says take
    an article, with their class (a fourth column: ``f``, ``m``, ``n``, ``pl``; ``articles``)."""

    def __init__(self):
        super().__init__()
        self.articles: dict[str, dict[str, str]] = {}


def read_label_file(path: str | Path) -> UserLabels:
    """A user's names: TSV lines ``IRI TAB language TAB label [TAB article class]``; blank lines and
    ``#`` lines skipped."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise NamesError(f"--labels: cannot read {path} ({error})") from None
    labels = UserLabels()
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if len(cells) not in (3, 4) or not all(c.strip() for c in cells):
            raise NamesError(f"--labels: {path}:{number}: expected IRI TAB language TAB label [TAB article class]")
        try:
            entity = iri(cells[0].strip().strip("<>"), field="IRI").value
        except TermError as error:
            raise NamesError(f"--labels: {path}:{number}: {error}") from None
        lang = cells[1].strip().lower()
        labels.setdefault((entity, lang), cells[2].strip())
        if len(cells) == 4:
            labels.articles.setdefault(lang, {})[cells[2].strip()] = _article_class(path, number, lang, cells[3])
    return labels


def _article_class(path, number: int, lang: str, cell: str) -> str:
    from .articles import load

    said, kind = load(lang), cell.strip()
    if said is None or kind not in said.articles:
        known = ", ".join(said.articles) if said else "none: its names take no article"
        raise NamesError(f"--labels: {path}:{number}: article class {kind!r} for {lang!r} (known: {known})")
    return kind


def predicate_label(names: Names, predicate: str, lang: str) -> str:
    """What the generic template calls a predicate: its label, else its local name in words."""
    return predicate_name(names, predicate, lang)[0]


def predicate_name(names: Names, predicate: str, lang: str) -> tuple[str, bool]:
    """(``predicate_label``, whether it was made from the local name)."""
    name, source = names.name(predicate, lang)
    if source != LOCAL:
        return name, False
    return _words(name), True


@lru_cache(maxsize=1024)
def _words(name: str) -> str:
    """A camel-case local name in lower-case words: ``birthPlace`` -> ``birth place``."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).lower()


def factbench_names(folder) -> dict[tuple[str, str], str]:
    """The rdfs:label of each entity of a FactBench folder's models, by (IRI, language)."""
    from factforge.sparql.factbench import read_factbench

    names: dict[tuple[str, str], str] = {}
    for record in read_factbench(folder):
        for entity, labels in record.labels.items():
            for lang, label in labels.items():
                names.setdefault((entity, lang.lower()), label)
    return names
