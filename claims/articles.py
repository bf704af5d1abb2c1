"""Proper names that take the definite article (die Schweiz, in den Vereinigten Staaten, au Canada).

A KB labels a country "Schweiz" or "Canada"; a sentence says "in der Schweiz", "au Canada". Which names
take an article is a closed class per language (countries and regions), listed with each name's gender
or plural in ``claims/articles/<lang>.json``; a user label file adds names (a fourth column). A template
slot that marks a case (``{o:dat}``; unmarked: nominative) gets the article of that case, then a
preposition before it and the article join as the language joins them ("in dem" -> "im", "à la" -> "en");
a slot marked ``bare`` (an apposition: "zum Land {o:bare}") keeps the name as it is.

Format ``factforge-name-articles/1``::

    {"format": "factforge-name-articles/1", "lang": "de",
     "articles": {"f": {"nom": "die", "acc": "die", "dat": "der", "gen": "der"}, ...},  by gender, by case
     "weak_en": {"pl": ["nom", "acc", "dat", "gen"], ...},  optional: where an adjective in the name ends
                                     in -en after the article ("den Vereinigten Staaten"), else in -e
     "weak_nouns": {"Herr": {"acc": "Herrn", "dat": "Herrn", "gen": "Herrn"}, ...},  optional, with
                                     "weak_en": head nouns that do not take the -s genitive but a form
                                     of their own per case (German weak and mixed nouns: "des Herrn der
                                     Ringe", "vom kleinen Prinzen", "des Namens der Rose"), a compound
                                     ending in one ("Seelöwe") alike
     "elided": "l'",                 optional: a singular's article before a vowel
     "elisions": [["de", "d'"], ...],  optional: a template's word right before a name that begins with
                                     a vowel, and the word elided ("de Anna" -> "d'Anna")
     "contractions": [["in", "dem", "im"], ...],  a preposition before the article and the two joined
     "names": {"Schweiz": "f", "Vereinigte Staaten": "pl", ...},
     "patterns": [["^(Kingdom|Republic) of ", "sg"], ...],  optional: a name none of "names" lists
                                     takes the class of the first pattern it matches (a regular
                                     expression, searched), for a kind of name (English "the Kingdom of
                                     X") too open to list
     "own": {"Le": "m", "Les": "pl"},  optional: a label's own article, as it begins a name none of the
                                     above lists (Le Mans, Les Andelys, Der Spiegel), and its class: the
                                     name then takes it in its slot's case ("du Mans", "au Mans", "vom
                                     Spiegel") and keeps it as written where it is the label's form
     "own_typed": ["place", "work"],  optional: the kinds of entity the KB types (``names``: a place, a
                                     work, never an agent) whose name made from the IRI's local name
                                     takes its initial "own" word as its article ("au Mans"); any other
                                     local name is said as written ("de Les Mutrie")
     "titled": ["work"],            optional: the kinds of entity the KB types whose name's initial
                                     "own" word is a title's article, and the words after it may be a
                                     sentence (German "Der Regen fällt", a song): never declined, it is
                                     said as "whole" ones are ("von „Der Regen fällt“"), from a label or
                                     a local name alike; a place's stays "own" ("im Haag"); it and
                                     "own_typed" need "own" and list no kind in common
     "whole": {"Die": ["f", "pl"]}, "quotes": ["„", "“"],  optional: a label's own article whose class
                                     the label does not tell (German "Die": "Die Smaragdstadt", "Die
                                     Ärzte"): where the slot's case would change it for one of those
                                     classes, the name is said whole in quotes ("von „Die Smaragdstadt“"),
                                     elsewhere as written ("Ann schrieb Die Smaragdstadt")
     "foreign_names": {"Ottoman Empire": "n", ...}, "foreign_patterns": [["^Kingdom of ", "n"], ...]}
                                     optional: as "names" and "patterns", for names in another language
                                     standing in for the language's own (German text with DBpedia's
                                     English names): they take the article ("des Ottoman Empire") but
                                     not the language's endings ("des Ottoman Empires", "dem Middlen East")

A vowel is a, e, i, o, u or one with an accent: an initial h or y is not, since the place names that
begin with one (Hongrie, Honduras, Yémen) keep their article whole; "de Henri" reads old-fashioned
but not wrong, "l'Hongrie" reads wrong.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from importlib import resources

from .errors import ClaimsError

FORMAT = "factforge-name-articles/1"
BARE = "bare"
_ADJECTIVE = re.compile(r"^(\w+?)(es|er|en|e)$")  # a German adjective before the name's head noun
ENTITY_KINDS = ("place", "work")  # what ``names`` reads of the KB's types (sparql/queries/entity_name_kinds.rq)
KEPT_NAMES = 1 << 16  # names whose article ``Articles._named`` keeps, a language
_VOWEL = "aeiouéèêëàâîïôûùœæAEIOUÉÈÊËÀÂÎÏÔÛÙŒÆ"


class ArticlesError(ClaimsError):
    """A name-article file is malformed, or a label file gives a class the language has no article for."""


@dataclass(frozen=True)
class Articles:
    lang: str
    articles: dict[str, dict[str, str]]
    names: dict[str, str]
    contractions: tuple[tuple[str, str, str], ...] = ()
    weak_en: dict[str, frozenset] | None = None
    elided: str | None = None
    elisions: tuple[tuple[str, str], ...] = ()
    patterns: tuple[tuple[re.Pattern, str], ...] = ()
    own: dict[str, str] | None = None
    foreign: dict[str, str] | None = None
    foreign_patterns: tuple[tuple[re.Pattern, str], ...] = ()
    whole: dict[str, tuple[str, ...]] | None = None
    quotes: tuple[str, str] = ("“", "”")
    own_typed: frozenset[str] = frozenset()
    titled: frozenset[str] = frozenset()
    weak_nouns: dict[str, dict[str, str]] | None = None

    def kind(self, name: str, extra: dict[str, str] | None = None) -> str | None:
        """The class (gender or plural) of a name that takes an article, else None."""
        return self._named(name, extra)[1]

    def _listed(self, name: str, extra: dict[str, str] | None) -> str | None:
        kind = (extra or {}).get(name) or self.names.get(name)
        if kind is None:
            kind = next((found for pattern, found in self.patterns if pattern.search(name)), None)
        return kind or self._foreign(name)

    def _foreign(self, name: str) -> str | None:
        """The class of a name in another language standing in for one of the language's own."""
        kind = (self.foreign or {}).get(name)
        if kind is None:
            kind = next((found for pattern, found in self.foreign_patterns if pattern.search(name)), None)
        return kind

    def _named(self, name: str, extra: dict[str, str] | None) -> tuple[str, str | None, str | None]:
        """``_found``, kept by name when no label file adds classes: a claim asks it twice a name (its
        class, then its phrase) and a claims set says a subject or a popular object in many claims; the
        patterns searched each time were a sizeable share of saying 80,000 claims."""
        if extra:
            return self._found(name, extra)
        kept = self._kept
        found = kept.get(name)
        if found is None:
            if len(kept) >= KEPT_NAMES:  # the file is loaded once a process: a server's names do not pile up
                kept.clear()
            found = kept[name] = self._found(name, None)
        return found

    @cached_property
    def _kept(self) -> dict[str, tuple[str, str | None, str | None]]:
        return {}

    def _found(self, name: str, extra: dict[str, str] | None) -> tuple[str, str | None, str | None]:
        """(the name without an article of its own, its class, the label's own article where the file's
        ``own`` gives it). A label may carry one: put last, as a catalogue sorts ("Netherlands, The":
        always an article), or first ("The Netherlands", "Les Pays-Bas": only where the rest takes one,
        so a title such as "The Beatles" stays whole, unless ``own`` lists the article: "Le Mans")."""
        kind = self._listed(name, extra)
        if kind is not None:
            return name, kind, None
        rest, comma, last = name.rpartition(", ")
        if comma and last.lower() in self._forms:
            return rest, self._listed(rest, extra) or next(iter(self.articles)), None
        first, space, rest = name.partition(" ")
        if space and first.lower() in self._forms and (kind := self._listed(rest, extra)):
            return rest, kind, None
        if space and self.own and first in self.own and _named_after(rest):
            return rest, self.own[first], first
        return name, None, None

    @cached_property
    def _forms(self) -> frozenset:
        return frozenset(form.lower() for forms in self.articles.values() for form in forms.values())

    def as_titles(self) -> "Articles":
        """These articles for a name the KB types as one of ``titled``: its own article, said whole."""
        own = {word: (kind,) for word, kind in (self.own or {}).items()}
        return replace(self, own=None, whole={**own, **(self.whole or {})})

    def undeclined(self, name: str, extra: dict[str, str] | None = None) -> tuple[str, ...] | None:
        """The classes a label's own article could be of, where the label does not tell which (``whole``)."""
        first, space, rest = name.partition(" ")
        if not (space and self.whole and first in self.whole and _named_after(rest)) or self._named(name, extra)[1]:
            return None
        return self.whole[first]

    def phrase(self, name: str, case: str, extra: dict[str, str] | None = None) -> str | None:
        """``name`` with its article in ``case``, or None when it takes none (or the slot is bare)."""
        classes = self.undeclined(name, extra)
        if classes and case != BARE:
            # German usage leaves a title undeclined only in quotes ("der Autor von „Der Steppenwolf“")
            article = name.partition(" ")[0].lower()
            if any(self.articles[c][case] != article for c in classes):
                return self.quotes[0] + name + self.quotes[1]
            return None
        name, kind, own = self._named(name, extra)
        if kind is None or case == BARE:
            return None
        article = self.articles[kind][case]
        if self.weak_en is not None and not self._foreign(name):  # a foreign name keeps its own endings
            name = self._declined(name, kind, case)
        if own and own.lower() == article:
            return f"{own} {name}"  # a city's or a title's article is written as the label writes it
        if self.elided and kind != "pl" and name[:1] in _VOWEL:
            return self.elided + name
        return f"{article} {name}"

    def _declined(self, name: str, kind: str, case: str) -> str:
        """German: adjectives before the head noun take the weak ending; a plural's head takes -n in
        the dative, a masculine or neuter one -s in the genitive (where it does not end in either)."""
        words = name.split(" ")
        # the head noun: the last capitalised word before a lower-case one ("von"), a phrase's own
        # adjectives ("größte Stadt") coming before it
        first = next((i for i, w in enumerate(words) if w[:1].isupper()), 0)
        head = next((i for i, w in enumerate(words) if i > first and w[:1].islower()), len(words)) - 1
        ending = "en" if case in self.weak_en.get(kind, ()) else "e"
        for i in range(head):
            match = _ADJECTIVE.match(words[i])
            if match and (words[i][:1].isupper() or i < first):
                words[i] = match.group(1) + ending
        # a comma or a stop after the head noun ("Der Stoff, aus dem die Träume sind") is not part of it
        noun = words[head].rstrip(",.;:!?")
        mark = words[head][len(noun):]
        weak = self._weak_form(noun, case) if kind in ("m", "n") else None
        if weak is not None:
            noun = weak
        elif kind == "pl" and case == "dat" and noun[-1:] not in "ns":
            noun += "n"
        elif kind in ("m", "n") and case == "gen" and noun[-1:] not in "sßxz" and noun[-1:].isalpha():
            noun += "s"
        words[head] = noun + mark
        return " ".join(words)

    def _weak_form(self, noun: str, case: str) -> str | None:
        """A weak or mixed noun's form in ``case`` ("Herr" -> "Herrn"), of a compound ending in one too
        ("Seelöwe" -> "Seelöwen"); None for any other noun."""
        for base, forms in (self.weak_nouns or {}).items():
            if noun == base or (len(noun) > len(base) and noun.endswith(base.lower())):
                form = forms.get(case)
                return None if form is None else noun[:len(noun) - len(base)] + (
                    form if noun == base else form.lower())
        return None


def _named_after(rest: str) -> bool:
    """Whether the words after a label's initial article-like word are a name's: a capitalised word
    first ("Der Spiegel", "Le Mans"), or lower-case ones before one, an adjective before its noun
    ("Der große Eisenbahnraub", "Die nächste Begegnung", "Le petit Nicolas"); in lower case alone
    ("Das glasperlenspiel") nothing tells what they are."""
    words = rest.split(" ")
    return any(w[:1].isupper() for w in words) and all(
        w.isalpha() and w.islower() for w in words[:next(i for i, w in enumerate(words) if w[:1].isupper())])


def join(text: str, slot: str, phrase: str, contractions, elisions=(), own=()) -> str:
    """``text`` with ``phrase`` in place of ``slot``, a preposition before it and the phrase's article
    joined ("de le lieu" -> "du lieu", "à l'Iran" -> "en Iran"; ``own``, a label's own articles, as
    written: "de Le Mans" -> "du Mans"), a word before a vowel elided ("de Anna" -> "d'Anna")."""
    for preposition, article, joined in _may_contract(contractions, phrase[:1]):
        spaced = phrase.startswith(article + " ") or (phrase.startswith(article.capitalize() + " ")
                                                      and article.capitalize() in own)
        if (spaced or (article.endswith("'") and phrase.startswith(article))) and f"{preposition} {slot}" in text:
            rest = phrase[len(article) + spaced:]
            return text.replace(f"{preposition} {slot}", f"{joined} {rest}", 1)
    if phrase[:1] in _VOWEL:
        for word, elided in elisions:
            at = text.find(f"{word} {slot}")
            if at != -1 and (at == 0 or not text[at - 1].isalpha()):
                return text[:at] + elided + phrase + text[at + len(word) + 1 + len(slot):]
    return text.replace(slot, phrase, 1)


@lru_cache(maxsize=1 << 12)
def _may_contract(contractions, first: str) -> tuple:
    """The contractions ``join`` may apply to a phrase that begins with ``first``: those whose article,
    as written or capitalised, begins with it (or is empty). The others cannot match, and trying each
    of them for every name said was most of ``join``'s time, most names taking no article."""
    return tuple(c for c in contractions if not c[1] or first in (c[1][:1], c[1].capitalize()[:1]))


@lru_cache(maxsize=None)
def load(lang: str) -> Articles | None:
    """The language's name-article file, or None when it has none (its names take no article)."""
    path = resources.files("factforge.claims") / "articles" / f"{lang}.json"
    if not path.is_file():
        return None
    return read(path, lang, f"articles/{lang}.json")


def read(path, lang: str, name: str | None = None) -> Articles:
    """The name-article file at ``path`` (a ``Path`` or a package resource) for ``lang``; ``name``, what
    its errors call it (default: the path)."""
    name = name or str(path)
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ArticlesError(f"{name}: cannot read ({error})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("lang") != lang:
        raise ArticlesError(f"{name}: expected format {FORMAT!r} and lang {lang!r}")
    articles, names = data.get("articles"), data.get("names")
    if not isinstance(articles, dict) or not all(
            isinstance(forms, dict) and all(isinstance(forms.get(c), str) for c in ("nom", "acc", "dat", "gen"))
            for forms in articles.values()):
        raise ArticlesError(f"{name}: 'articles' must give each class its article in nom, acc, dat and gen")
    if not isinstance(names, dict) or not all(isinstance(k, str) and v in articles for k, v in names.items()):
        raise ArticlesError(f"{name}: 'names' must map names to one of {', '.join(articles)}")
    weak = data.get("weak_en")
    pairs = {}
    for key, size in (("contractions", 3), ("elisions", 2), ("patterns", 2), ("foreign_patterns", 2)):
        found = data.get(key, [])
        if not isinstance(found, list) or not all(
                isinstance(c, list) and len(c) == size and all(isinstance(w, str) and w for w in c) for c in found):
            raise ArticlesError(f"{name}: {key!r} must be a list of {size} strings each")
        pairs[key] = tuple(tuple(c) for c in found)
    compiled = {}
    for key in ("patterns", "foreign_patterns"):
        try:
            compiled[key] = tuple((re.compile(pattern), kind) for pattern, kind in pairs[key])
        except re.error as error:
            raise ArticlesError(f"{name}: {key!r}: {error}") from None
        if any(kind not in articles for _, kind in compiled[key]):
            raise ArticlesError(f"{name}: {key!r} must give each one of {', '.join(articles)}")
    foreign = data.get("foreign_names", {})
    if not isinstance(foreign, dict) or not all(isinstance(k, str) and v in articles for k, v in foreign.items()):
        raise ArticlesError(f"{name}: 'foreign_names' must map names to one of {', '.join(articles)}")
    whole, quotes = data.get("whole", {}), data.get("quotes", ["“", "”"])
    if not isinstance(whole, dict) or not all(
            isinstance(k, str) and isinstance(v, list) and v and all(c in articles for c in v) for k, v in whole.items()):
        raise ArticlesError(f"{name}: 'whole' must map a label's own article to the classes it could be of")
    if not (isinstance(quotes, list) and len(quotes) == 2 and all(isinstance(q, str) and q for q in quotes)):
        raise ArticlesError(f"{name}: 'quotes' must be [opening, closing]")
    own = data.get("own", {})
    if not isinstance(own, dict) or not all(isinstance(k, str) and v in articles for k, v in own.items()):
        raise ArticlesError(f"{name}: 'own' must map a label's own article to one of {', '.join(articles)}")
    weak_nouns = data.get("weak_nouns")
    if weak_nouns is not None and not (weak is not None and isinstance(weak_nouns, dict) and all(
            isinstance(k, str) and k and isinstance(v, dict) and v
            and all(c in ("nom", "acc", "dat", "gen") and isinstance(f, str) and f for c, f in v.items())
            for k, v in weak_nouns.items())):
        raise ArticlesError(f"{name}: 'weak_nouns' must map nouns to their forms by case (nom, acc, dat, gen), "
                            "and needs 'weak_en'")
    own_typed, titled = (_entity_kinds(name, data, key, bool(own)) for key in ("own_typed", "titled"))
    if own_typed & titled:
        raise ArticlesError(f"{name}: 'titled' and 'own_typed' both list {', '.join(sorted(own_typed & titled))}: "
                            "a title's own article is said whole, never declined")
    return Articles(lang, articles, names, pairs["contractions"],
                    {k: frozenset(v) for k, v in weak.items()} if isinstance(weak, dict) else None,
                    data.get("elided"), pairs["elisions"], compiled["patterns"], own, foreign,
                    compiled["foreign_patterns"], {k: tuple(v) for k, v in whole.items()}, tuple(quotes),
                    own_typed, titled, weak_nouns)


def _entity_kinds(name: str, data: dict, key: str, own: bool) -> frozenset[str]:
    """``own_typed`` or ``titled``: kinds of entity the KB types (``ENTITY_KINDS``), each saying what a
    label's own article (``own``) is for such an entity, so neither means anything without ``own``."""
    kinds = data.get(key, [])
    if not isinstance(kinds, list) or not all(isinstance(k, str) and k in ENTITY_KINDS for k in kinds):
        raise ArticlesError(f"{name}: {key!r} must list kinds of entity among {' and '.join(ENTITY_KINDS)}")
    if kinds and not own:
        raise ArticlesError(f"{name}: {key!r} needs 'own', the label's own articles it is about")
    return frozenset(kinds)
