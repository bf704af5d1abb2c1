"""Claim templates: one JSON file per language in ``claims/templates/<lang>.json``.

Format ``factforge-claim-templates/1``::

    {"format": "factforge-claim-templates/1", "lang": "en",
     "end": ".",                       what closes a sentence
     "date": " ({date})",              a one-day (or one-year) fact's date, appended
     "span": " ({start} – {end})",     a fact's time span, appended
     "and": "{first}, and {second}",   two facts in one claim (a conjunction)
     "paths": {"dbo:birthPlace": "the birthplace of {s}", ...},  the unnamed middle m of a 2-hop
                                       path s -p-> m -q-> o, said from s: q's own template then says
                                       "The capital of the birthplace of X is Y"; a phrase that
                                       changes with case is an object of its forms by case,
                                       {"nom": "{g} größte Stadt", "dat": "{g} größter Stadt"}
     "path": "the {p} of {s}",         the middle for a predicate without an entry in "paths"
     "possessive": {"suffix": "s", "after_sibilant": "’", "sibilants": "sßxz"},  optional: {g} in a
                                       path is the subject's name with it ("Maries Geburtsort")
     "contractions": [["de", "le", "du"], ...],  optional: a preposition before a path that starts
                                       with the article becomes one word ("de le lieu" -> "du lieu")
     "predicates": {"dbo:birthPlace": [{"id": "birthPlace.1", "text": "{s} was born in {o}",
                                        "negated": "{s} was not born in {o}"}, ...]},
     "generic": [{"id": "generic.1", "text": "The {p} of {s} is {o}", ...}],
     "generic_kinds": {"relation": [{"id": "generic.relation.1", "text": "{s} is {p} {o}", ...}]},
                                       optional: the generic templates of a kind of label other than
                                       a noun ("known for": "X is known for Y", not "the known for of X")
     "label_kinds": [["relation", "^(?:is )?(?P<p>.+ (?:of|in|for|by))$"], ...],  optional: the kind of
                                       a predicate's label, the first regular expression that matches
                                       it (case aside), its group p what {p} says; else "noun" ("generic")
     "local_kind": "quoted",           optional: the kind of a label made from the IRI's local name (in
                                       English words: named, not conjugated, in another language)
     "verbs": {"owns": "own", ...},    optional: labels whose first word is a finite verb, with its form
                                       after "does not": kind "verb" ("X owns Y", "X does not own Y"),
                                       a closed list since "features", "honours" end in -s as nouns do
     "path_kinds": {"relation": "what {s} is {p}", ...}}  optional: the middle of a 2-hop path for a
                                       predicate without a "paths" entry whose label is of that kind
                                       (else "path": "the known for of X" reads as nonsense); forms
                                       by case as in "paths", words that agree with {s} as in templates
     "path_splits": {"copula": ["^(?P<relation>.+? of) (?P<thing>\\w.*)$", "the {thing} {s} is {relation}"]},
                                       optional: for a label of that kind whose {p} the expression
                                       matches, the path's middle said with its groups ("the military
                                       conflict X is part of", not "the object of “X is part of
                                       military conflict”"); else the kind's "path_kinds" phrase
     "path_clause": {"dat": "dem, was {s} als {p} {s|hat|haben},", ...}  optional (with "possessive"):
                                       the middle of a generic noun path whose subject cannot take the
                                       possessive (it takes an article or is a title said whole), a
                                       clause naming it in the nominative: the label gives no gender of
                                       its noun, so "der Besitzerfirma der Schweiz" would guess an article

``{s}`` and ``{o}`` are the subject's and object's names, ``{p}`` (generic templates only) the
predicate's label in the language (else its local name in words). The kind of the label, and so the
generic templates, depend on the predicate alone, so a true and a false claim share them. ``{s:dat}`` (``nom``, ``acc``, ``dat``, ``gen``) says the case the
subject takes there ("von {s:dat}"; unmarked: nominative), ``{o:dat}`` the object's: a name that takes
an article gets it in that case ("in {o:dat}": "in der Schweiz"; ``articles``; ``{o:bare}``, as in an
apposition "zum Land {o:bare}", keeps the name without it); a name without one does not change, but a path's
middle put there takes its form of that case (the nominative when it has none), so "von Annas
größter Stadt", not "von Annas größte Stadt". Every template has a negated form, so that a claim and its
negation use the same wording. A 2-hop claim is the second predicate's template with the path's
middle (a noun phrase of the first predicate) in place of ``{s}``, so it reads as the one-hop claims
do; a phrase with an article gets no case or gender from the template, hence ``{g}`` (a possessive
name needs none) in German and the contractions in French.

A word that agrees with a name is written ``{s|liegt|liegen}`` (singular | plural) or, where gender
shows too, ``{s|est situé|est située|se trouvent}`` (masculine | feminine | plural: no plural class
gives a gender, so a plural form shows none): a name the article file
(``articles``) gives the class ``pl`` takes the last form, ``f`` the feminine one, any other the first.
A word that agrees with a person's gender is written ``{s?né|née}`` (masculine | feminine), after the
subject's gender where the KB gives one (``names``: foaf:gender, dbo:gender, Wikidata P21); such a
template has ``neutral`` and ``negated_neutral`` forms, said when it gives none ("{s} a vu le jour à {o}").
``"heads": {"dbo:capital": "f", ...}`` (German) gives the gender of a path phrase's head noun, and
``possessive["of"]`` the preposition after it: a subject that cannot take the -s genitive, a name that
takes an article or ends in a sibilant, is then named after the head, "die Hauptstadt der Schweiz",
"der Geburtsort von Hans"; a path without a head's gender ("path") keeps the possessive.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from factforge.sparql.terms import iri

from .articles import BARE
from .errors import ClaimsError
from .keyed import keyed_index

FORMAT = "factforge-claim-templates/1"
_SLOT = re.compile(r"\{(\w*)\}")
_CASED = re.compile(r"\{([so]):(\w*)\}")  # a name's slot with the case it takes there
_AGREE = re.compile(r"\{([so])\|([^{}]*)\}")  # a word's forms by the number (and gender) of a name
_GENDERED = re.compile(r"\{s\?([^{}|]*)\|([^{}|]*)\}")  # a word's forms by the subject's gender (a person's)
CASES = ("nom", "acc", "dat", "gen")
NOUN = "noun"  # the kind of label the plain generic templates say ("the {p} of {s}")
MARKS = (*CASES, BARE)


class TemplateFileError(ClaimsError):
    """A template file is malformed; the message names the file and the entry."""


@dataclass(frozen=True)
class Template:
    id: str
    text: str
    negated: str
    case: str = "nom"          # of the subject in ``text``
    negated_case: str = "nom"  # and in ``negated``
    object_case: str = "nom"
    negated_object_case: str = "nom"
    neutral: str | None = None  # ``text`` for a subject of unknown gender, where ``text`` agrees with one
    negated_neutral: str | None = None

    def form(self, negated: bool, gender: str | None = None) -> str:
        """The form said: ``gender`` ("m", "f") of the subject where the KB gives one; without it a
        form whose words agree with a person's gender gives way to the neutral one."""
        form = self.negated if negated else self.text
        if gender is None and self.neutral is not None:
            return self.negated_neutral if negated else self.neutral
        return form

    def subject_case(self, negated: bool) -> str:
        return self.negated_case if negated else self.case

    def object_of(self, negated: bool) -> str:
        return self.negated_object_case if negated else self.object_case

    def fill(self, *, negated: bool, number: dict[str, str | None] | None = None, gender: str | None = None,
             **slots: str) -> str:
        """``number``: the article class of the name in each slot (``s``, ``o``) a word agrees with;
        ``gender``: the subject's, where the KB gives one."""
        number = number or {}
        return _format_string(self.form(negated, gender), number.get("s"), number.get("o"), gender).format_map(slots)


# a form made once into a format string (its text's own braces doubled): filling is then one C call,
# not a regex pass or a join a slot
@lru_cache(maxsize=None)
def _format_string(form: str, s_class: str | None = None, o_class: str | None = None, gender: str | None = None) -> str:
    form = _GENDERED.sub(lambda m: m.group(2 if gender == "f" else 1), form)
    form = _AGREE.sub(lambda m: _agreeing(m.group(2).split("|"), s_class if m.group(1) == "s" else o_class), form)
    pieces = _SLOT.split(form)  # text, slot name, text, ...
    return "".join("{" + piece + "}" if i % 2 else piece.replace("{", "{{").replace("}", "}}")
                   for i, piece in enumerate(pieces))


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
    paths: dict[str, dict[str, str]] = field(default_factory=dict)  # by predicate: phrase by case
    possessive: dict | None = None
    contractions: tuple[tuple[str, str, str], ...] = ()
    heads: dict[str, str] = field(default_factory=dict)  # by predicate: the gender of its path's head noun
    generic_kinds: dict[str, tuple[Template, ...]] = field(default_factory=dict)
    label_kinds: tuple[tuple[str, re.Pattern], ...] = ()
    local_kind: str | None = None
    verbs: dict[str, str] = field(default_factory=dict)  # a finite verb's form after "does not", by the verb
    path_kinds: dict[str, dict[str, str]] = field(default_factory=dict)  # by kind of label: phrase by case
    path_clause: dict[str, str] = field(default_factory=dict)  # phrase by case (a noun path without possessive)
    path_splits: dict[str, tuple[re.Pattern, str]] = field(default_factory=dict)  # by kind: label parts, phrase

    def label_kind(self, label: str, local: bool) -> tuple[str, str, str]:
        """(the kind of a predicate's label, what a generic template says of it, what its negated form
        says): ``local``, a label made from the IRI's local name."""
        if local and self.local_kind:
            return self.local_kind, label, label
        verb, space, rest = label.partition(" ")
        if verb.lower() in self.verbs:
            return "verb", label, self.verbs[verb.lower()] + space + rest
        for kind, pattern in self.label_kinds:
            found = pattern.search(label)
            if found:
                said = found.group("p") if "p" in pattern.groupindex else label
                return kind, said, said
        return NOUN, label, label

    def own_path(self, predicate: str, kind: str) -> bool:
        """Whether the path phrase of ``predicate`` is its label kind's own (no ``paths`` entry, and a
        ``path_kinds`` one), which names its subject in a clause of its own, not by a possessive."""
        return predicate not in self.paths and kind in self.path_kinds

    def middle(self, predicate: str, subject: str, label: str, case: str = "nom",
               owner: str | None = None, kind: str = NOUN, number: str | None = None,
               clause: bool = False) -> tuple[str, bool]:
        """(the phrase for the unnamed object of ``predicate`` seen from ``subject``, in ``case`` where
        the phrase has that form, generic?); ``owner``: what stands for ``{g}`` instead of the possessive;
        ``kind``: of the label, for a predicate without a ``paths`` entry; ``number``: the subject's
        article class, which words of the phrase agree with; ``clause``: a generic noun path said by
        ``path_clause``, for a subject without the possessive."""
        forms = self.paths.get(predicate) or self.path_kinds.get(kind) or (self.path_clause if clause else None)
        phrase = forms.get(case, forms["nom"]) if forms else self.path
        parts = {"p": label}
        split = self.path_splits.get(kind) if predicate not in self.paths else None
        found = split[0].search(label) if split else None
        if found:
            phrase, parts = split[1], found.groupdict()
        phrase = _AGREE.sub(lambda m: _agreeing(m.group(2).split("|"), number), phrase)
        return _SLOT.sub(lambda m: {"s": subject, "g": owner or self._possessive(subject), **parts}[m.group(1)],
                         phrase), predicate not in self.paths

    def head(self, predicate: str, case: str) -> tuple[str, str] | None:
        """(the head noun of ``predicate``'s path phrase in ``case``, its gender), where the phrase is a
        possessive before the head and the file gives its gender."""
        forms, gender = self.paths.get(predicate), self.heads.get(predicate)
        phrase = forms.get(case, forms["nom"]) if forms else ""
        return (phrase[4:], gender) if gender and phrase.startswith("{g} ") else None

    def put_middle(self, text: str, slot: str, middle: str) -> str:
        """``text`` with ``middle`` in place of ``slot``, a preposition and the middle's article joined."""
        for preposition, article, joined in self.contractions:
            if middle.startswith(article + " ") and f"{preposition} {slot}" in text:
                return text.replace(f"{preposition} {slot}", f"{joined} {middle[len(article) + 1:]}", 1)
        return text.replace(slot, middle, 1)

    def _possessive(self, name: str) -> str:
        if self.possessive is None:
            return name
        sibilant = name[-1:] in self.possessive["sibilants"]
        return name + self.possessive["after_sibilant" if sibilant else "suffix"]

    def choose(self, seed: int, subject: str, predicate: str, slot: int | None = None,
               kind: str = "noun") -> tuple[Template, bool]:
        """(template, generic?): chosen by (subject, predicate) only, so a true claim and a false one
        about the same subject and predicate are worded alike: the ``slot`` dealt to it, else a hash.
        ``kind``: of the predicate's label (``label_kind``), for a predicate without templates."""
        own = self.predicates.get(predicate)
        options = own or self.generic_kinds.get(kind, self.generic)
        index = slot % len(options) if slot is not None else \
            keyed_index(seed, f"template/{self.lang}", subject, predicate, len(options))
        return options[index], not own


def _agreeing(forms: list[str], kind: str | None) -> str:
    if kind == "pl":
        return forms[-1]
    return forms[1] if kind == "f" and len(forms) == 3 else forms[0]


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
    possessive = data.get("possessive")
    if possessive is not None and not (isinstance(possessive, dict) and all(
            isinstance(possessive.get(k), str) for k in ("suffix", "after_sibilant", "sibilants", "of"))):
        raise TemplateFileError(f"{name}: 'possessive' needs strings suffix, after_sibilant, sibilants and of")
    heads = data.get("heads", {})
    if not isinstance(heads, dict) or not all(isinstance(g, str) for g in heads.values()):
        raise TemplateFileError(f"{name}: 'heads' must map predicates to the gender of their path's head noun")
    subject_slots = ({"s"}, {"g"}) if possessive else ({"s"},)
    if set(_SLOT.findall(data["path"])) not in [{"p", *s} for s in subject_slots]:
        raise TemplateFileError(f"{name}: 'path' must use {{p}} and {{s}}" + (" or {g}" if possessive else ""))
    paths = data.get("paths", {})
    if not isinstance(paths, dict):
        raise TemplateFileError(f"{name}: 'paths' must map predicates to phrases")
    paths = {key: _forms(name, key, phrase) for key, phrase in paths.items()}
    for key, forms in paths.items():
        if any(set(_SLOT.findall(phrase)) not in subject_slots for phrase in forms.values()):
            raise TemplateFileError(f"{name}: paths: {key}: a phrase uses {{s}}" + (" or {g}" if possessive else ""))
    contractions = data.get("contractions", [])
    if not isinstance(contractions, list) or not all(
            isinstance(c, list) and len(c) == 3 and all(isinstance(w, str) and w for w in c) for c in contractions):
        raise TemplateFileError(f"{name}: 'contractions' must be a list of [preposition, article, joined]")
    kinds = data.get("generic_kinds", {})
    if not isinstance(kinds, dict):
        raise TemplateFileError(f"{name}: 'generic_kinds' must map kinds of label to templates")
    kinds = {kind: _templates(name, f"generic_kinds: {kind}", entries, ("s", "o", "p")) for kind, entries in kinds.items()}
    verbs = data.get("verbs", {})
    if not isinstance(verbs, dict) or not all(isinstance(k, str) and isinstance(v, str) and k and v
                                              for k, v in verbs.items()):
        raise TemplateFileError(f"{name}: 'verbs' must map a finite verb to its form after a negation")
    if verbs and "verb" not in kinds:
        raise TemplateFileError(f"{name}: 'verbs' needs generic_kinds templates of kind 'verb'")
    path_kinds = data.get("path_kinds", {})
    if not isinstance(path_kinds, dict) or set(path_kinds) - set(kinds):
        raise TemplateFileError(f"{name}: 'path_kinds' must map kinds of label with generic_kinds to phrases")
    path_kinds = {kind: _forms(name, kind, phrase) for kind, phrase in path_kinds.items()}
    for kind, forms in path_kinds.items():
        if any(set(_SLOT.findall(phrase)) != {"s", "p"} for phrase in forms.values()):
            raise TemplateFileError(f"{name}: path_kinds: {kind}: a phrase uses {{s}} and {{p}}")
    path_clause = _forms(name, "path_clause", data["path_clause"]) if "path_clause" in data else {}
    if path_clause and (possessive is None or any(set(_SLOT.findall(p)) != {"s", "p"} for p in path_clause.values())):
        raise TemplateFileError(f"{name}: 'path_clause' needs 'possessive' and uses {{s}} and {{p}}")
    splits = data.get("path_splits", {})
    if not isinstance(splits, dict) or set(splits) - set(path_kinds):
        raise TemplateFileError(f"{name}: 'path_splits' must map kinds of label with path_kinds to "
                                "[regular expression, phrase]")
    path_splits = {kind: _split(name, kind, entry) for kind, entry in splits.items()}
    return Language(lang, data["end"], data["date"], data["span"], data["and"], data["path"], predicates, generic,
                    {iri(key, field=f"{name}: paths").value: phrase for key, phrase in paths.items()}, possessive,
                    tuple(tuple(c) for c in contractions),
                    {iri(key, field=f"{name}: heads").value: gender for key, gender in heads.items()},
                    kinds, *_label_kinds(name, data, {NOUN, *kinds}), {k.lower(): v for k, v in verbs.items()},
                    path_kinds, path_clause, path_splits)


def _split(name: str, kind: str, entry) -> tuple[re.Pattern, str]:
    """A ``path_splits`` entry: its expression's named groups are the slots its phrase uses beside {s}."""
    if not (isinstance(entry, list) and len(entry) == 2 and all(isinstance(x, str) for x in entry)):
        raise TemplateFileError(f"{name}: path_splits: {kind}: expected [regular expression, phrase]")
    try:
        pattern = re.compile(entry[0])
    except re.error as error:
        raise TemplateFileError(f"{name}: path_splits: {kind}: {error}") from None
    if set(_SLOT.findall(entry[1])) != {"s", *pattern.groupindex}:
        raise TemplateFileError(f"{name}: path_splits: {kind}: the phrase uses {{s}} and the expression's groups")
    return pattern, entry[1]


def _label_kinds(name: str, data: dict, kinds: set[str]) -> tuple[tuple, str | None]:
    rules, local = data.get("label_kinds", []), data.get("local_kind")
    if not isinstance(rules, list) or not all(
            isinstance(r, list) and len(r) == 2 and all(isinstance(x, str) for x in r) for r in rules):
        raise TemplateFileError(f"{name}: 'label_kinds' must be a list of [kind, regular expression]")
    unknown = sorted({kind for kind, _ in rules} - kinds | ({local} - kinds if local is not None else set()))
    if unknown:
        raise TemplateFileError(f"{name}: label kinds {unknown} have no generic_kinds entry")
    try:
        compiled = tuple((kind, re.compile(pattern, re.IGNORECASE)) for kind, pattern in rules)
    except re.error as error:
        raise TemplateFileError(f"{name}: 'label_kinds': {error}") from None
    return compiled, local


def _templates(name: str, key: str, entries, slots: tuple[str, ...]) -> tuple[Template, ...]:
    if not isinstance(entries, list) or not entries:
        raise TemplateFileError(f"{name}: {key}: expected a non-empty list of templates")
    made = []
    for entry in entries:
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in ("id", "text", "negated")):
            raise TemplateFileError(f"{name}: {key}: each template needs string id, text and negated")
        forms, cases = {}, {}
        for form in ("text", "negated"):
            marked = dict(_CASED.findall(entry[form]))
            for role, case in marked.items():
                if case not in MARKS:
                    raise TemplateFileError(f"{name}: {entry['id']}: {form}: a case of {{{role}:...}} is one of "
                                            f"{', '.join(MARKS)}")
            if any(len(words.split("|")) not in (2, 3) for _, words in _AGREE.findall(entry[form])):
                raise TemplateFileError(f"{name}: {entry['id']}: {form}: a word that agrees with a name has 2 "
                                        "forms (singular|plural) or 3 (masculine|feminine|plural)")
            forms[form], cases[form] = _CASED.sub(r"{\1}", entry[form]), marked
            used = set(_SLOT.findall(forms[form]))
            if used != set(slots):
                raise TemplateFileError(f"{name}: {entry['id']}: {form} uses {sorted(used)}, expected {sorted(slots)}")
        made.append(Template(entry["id"], forms["text"], forms["negated"], cases["text"].get("s", "nom"),
                             cases["negated"].get("s", "nom"), cases["text"].get("o", "nom"),
                             cases["negated"].get("o", "nom"), *_neutral(name, entry, slots, cases)))
    return tuple(made)


def _neutral(name: str, entry: dict, slots: tuple[str, ...], cases: dict) -> tuple[str | None, str | None]:
    """A template whose words agree with a person's gender (``{s?né|née}``) says a subject of unknown
    gender with its ``neutral`` and ``negated_neutral`` forms: never a guess from the name."""
    gendered = any(_GENDERED.search(entry[form]) for form in ("text", "negated"))
    if not gendered:
        return None, None
    forms = []
    for form, like in (("neutral", "text"), ("negated_neutral", "negated")):
        said = entry.get(form)
        if not isinstance(said, str) or _GENDERED.search(said):
            raise TemplateFileError(f"{name}: {entry['id']}: a template that agrees with a person's gender needs a "
                                    f"{form} form that does not")
        if dict(_CASED.findall(said)) != cases[like] or set(_SLOT.findall(_CASED.sub(r"{\1}", said))) != set(slots):
            raise TemplateFileError(f"{name}: {entry['id']}: {form} must use the slots and cases of {like}")
        forms.append(_CASED.sub(r"{\1}", said))
    return forms[0], forms[1]


def _forms(name: str, key: str, phrase) -> dict[str, str]:
    """A path phrase's forms by case: a string is one form for every case."""
    if isinstance(phrase, str):
        return {"nom": phrase}
    if (not isinstance(phrase, dict) or not isinstance(phrase.get("nom"), str)
            or not all(case in CASES and isinstance(form, str) for case, form in phrase.items())):
        raise TemplateFileError(f"{name}: paths: {key}: a phrase is a string or an object of its forms by case "
                                f"({', '.join(CASES)}; nom required)")
    return dict(phrase)
