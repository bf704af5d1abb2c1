"""A fact as a sentence in a language: a template, the entities' names, and localized dates.

Every choice here (template, aliases, date granularity) is keyed on (subject, predicate), so a
true fact and a false one about the same subject and predicate are said the same way. Templates
are dealt (``template_slots``) so that each label has each template as often.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from factforge.generators.facts import Fact

from . import articles
from .dates import GRANULARITIES, coarsest, say_date
from .keyed import keyed_index, keyed_rank
from .names import LOCAL, Names, predicate_name
from .templates import load


_MIDDLE = "\x00"  # where a path's middle goes, until it is put there with the language's contractions
_NAMED = {"s": "\x01", "o": "\x02"}  # where a name with its article goes, until joined to its preposition
_OWNER = "\x03"  # where a path's subject goes in its middle, likewise
_STOPS = ".?!…"
# a path's middle said as a relative clause closes it with a comma ("von dem, wozu X ... steht, ist Y"),
# which punctuation or the sentence's end takes the place of
_CLAUSE_COMMA = re.compile(r",(?=$|[.:;!?])")


@dataclass(frozen=True)
class Said:
    text: str
    body: str  # the text without the sentence's end, as a conjunction joins it
    template: str
    generic: bool
    name_sources: dict[str, str]
    granularity: str | None


def granularities(facts) -> tuple[str, ...]:
    """The date granularities every dated fact can be said at. When some facts carry only years
    (FactBench's wrong models), all are said by year, so precision never tells true from false."""
    floor = coarsest(value for fact in facts for value in (fact.start, fact.end))
    return GRANULARITIES[GRANULARITIES.index(floor):]


def say(fact: Fact, lang: str, names: Names, *, seed: int, negated: bool, allowed: tuple[str, ...],
        hop: tuple[str, str] | None = None, slot: int | None = None) -> Said:
    """``hop`` (q, o): a 2-hop path whose middle, the fact's object, is left unnamed: said with q's
    template, the middle a phrase of the fact's predicate ("The capital of the birthplace of X is Y").
    ``slot``: the template's place dealt to (subject, predicate) (``template_slots``), else a hash picks it."""
    language = load(lang)
    subject, s_source = names.say(fact.s, lang, seed=seed, role="subject", subject=fact.s, predicate=fact.p)
    gender = names.genders.get(fact.s) if hop is None else None  # a path's middle is a thing, not a person
    if hop is None:
        kind, label, negated_label = language.label_kind(*predicate_name(names, fact.p, lang))
        template, generic = language.choose(seed, fact.s, fact.p, slot, kind)
        obj, o_source = names.say(fact.o, lang, seed=seed, role="object", subject=fact.s, predicate=fact.p)
        slots = {"s": subject, "o": obj}
        forms = {role: _articles_of(entity, source, names, lang)
                 for role, entity, source in (("s", fact.s, s_source), ("o", fact.o, o_source))}
        if generic:
            slots["p"] = negated_label if negated or _plural_verb(kind, subject, forms["s"], names, lang) else label
        text = _fill(template, negated, slots, lang, names, subject=template.subject_case(negated), gender=gender,
                     forms=forms)
        template_id = f"{lang}:{template.id}"
    else:
        kind, label, negated_label = language.label_kind(*predicate_name(names, hop[0], lang))
        template, generic = language.choose(seed, fact.s, hop[0], slot, kind)
        end, o_source = names.say(hop[1], lang, seed=seed, role="object", subject=fact.s, predicate=fact.p)
        # the middle is said by the kind of the first predicate's label ("the owning company of X",
        # "what X is known for"), never by its label as a noun whatever it is
        middle_kind, middle_label, bare = language.label_kind(*predicate_name(names, fact.p, lang))
        s_forms = _articles_of(fact.s, s_source, names, lang)
        if _plural_verb(middle_kind, subject, s_forms, names, lang):
            middle_label = bare
        middle, generic_middle = _middle(language, fact.p, subject, middle_label, template.subject_case(negated),
                                         lang, names, middle_kind, s_forms)
        slots = {"s": _MIDDLE, "o": end}
        if generic:
            slots["p"] = negated_label if negated else label
        forms = {"o": _articles_of(hop[1], o_source, names, lang)}
        text = language.put_middle(_fill(template, negated, slots, lang, names, forms=forms), _MIDDLE, middle)
        if middle.endswith(","):  # a clause (a label kind's own path, or ``path_clause``)
            text = _CLAUSE_COMMA.sub("", text)
        path_kind = middle_kind if middle_kind != "noun" else "clause" if middle.endswith(",") else None
        path_id = (f"path.{path_kind}" if path_kind else "path") if generic_middle \
            else fact.p.rsplit("/", 1)[-1]
        template_id = f"{lang}:{template.id}<{path_id}"
        generic = generic or generic_middle
    granularity = None
    if fact.start:
        granularity = allowed[keyed_index(seed, "granularity", fact.s, fact.p, len(allowed))]
        start = say_date(fact.start, lang, granularity)
        end = say_date(fact.end, lang, granularity) if fact.end else start
        text += language.date.format(date=start) if end == start else language.span.format(start=start, end=end)
    capital = text[:1].upper() + text[1:] if text[:1].islower() and lang != "zh" else text
    # inside a conjunction, a template's own first word is lower-cased ("..., and the capital of"); a name is kept
    inner = text[:1].lower() + text[1:] if not template.form(negated, gender).startswith("{") else text
    return Said(closed(capital, language.end), inner, template_id, generic,
                {"subject": s_source, "object": o_source}, granularity)


def _plural_verb(kind: str, name: str, forms, names: Names, lang: str) -> bool:
    """Whether a label that is a finite verb ("owns") is said after ``name`` in its form after "does not"
    ("own"), the plural's: where the article lists (or a label file) give the name the class ``pl``."""
    return kind == "verb" and forms is not None and forms.kind(name, names.articles.get(lang)) == "pl"


def _may_carry_own_article(entity: str, source: str, names: Names, lang: str) -> bool:
    """Whether an initial "Le", "Les", "Der", "Das" of the name said may be the label's own article: in
    a label of the language, and in an IRI's local name only where the KB types the entity as a kind
    the language's article file lists (``own_typed``: French places and works, "Le_Mans": "au Mans";
    German places only, since a title may be a sentence, "Der Regen fällt"); a local name is else
    most often an English title or a person's name ("Les Paul", "Das Damen"); never in a person's name
    (the KB gives the entity a gender)."""
    said = articles.load(lang)
    typed = said is not None and bool(names.typed.get(entity, frozenset()) & said.own_typed)
    return (source != LOCAL or typed) and entity not in names.genders


def _articles_of(entity: str, source: str, names: Names, lang: str):
    """The language's name articles as they apply to ``entity``'s name: a title's own article said whole
    where the KB types the entity as a kind the article file's ``titled`` lists (German works: a title
    may be a sentence, "Der Regen fällt", which declined reads "vom Regen fällt"), none where the name
    carries no article of its own (``_may_carry_own_article``), else the file's."""
    said = articles.load(lang)
    if said is None:
        return None
    if said.titled & names.typed.get(entity, frozenset()) and entity not in names.genders:
        return _as_titles(lang)
    return said if _may_carry_own_article(entity, source, names, lang) else _without_own(lang)


@lru_cache(maxsize=None)
def _without_own(lang: str):
    """The language's name articles for a name whose initial article-like word is part of the name."""
    return replace(articles.load(lang), own=None)


@lru_cache(maxsize=None)
def _as_titles(lang: str):
    """The language's name articles for a title whose own article is said whole (``_articles_of``)."""
    return articles.load(lang).as_titles()


def _fill(template, negated: bool, slots: dict[str, str], lang: str, names: Names, subject: str | None = None,
          gender: str | None = None, forms: dict | None = None) -> str:
    """The template filled, a name that takes an article given it in its slot's case (``articles``),
    joined to the word before it, and the words that agree with a name in its number, or with the
    subject's ``gender`` where the KB gives one; ``subject``: the subject's case when the subject is a
    name (not a path's middle); ``forms``: by role, the articles its name takes (``_articles_of``), else
    the language's."""
    if articles.load(lang) is None:
        return template.fill(negated=negated, gender=gender, **slots)
    extra = names.articles.get(lang)
    placed, number = {}, {}
    for role, case in (("s", subject), ("o", template.object_of(negated))):
        if case:
            said = (forms or {}).get(role) or articles.load(lang)
            number[role] = said.kind(slots[role], extra)
            placed[_NAMED[role]] = (said.phrase(slots[role], case, extra) or slots[role], said.own or ())
            slots = {**slots, role: _NAMED[role]}
    text = template.fill(negated=negated, number=number, gender=gender, **slots)
    said = articles.load(lang)
    for slot, (phrase, own) in placed.items():
        text = articles.join(text, slot, phrase, said.contractions, said.elisions, own)
    return text


def _middle(language, predicate: str, subject: str, label: str, case: str, lang: str, names: Names,
            label_kind: str = "noun", forms=None):
    """(a path's unnamed middle seen from ``subject``, generic?). A German subject that cannot take the
    -s genitive (it takes an article or ends in a sibilant) is named after the head noun, which then
    takes its article: "die Hauptstadt der Schweiz", "der Geburtsort von Hans"; elsewhere the subject
    takes its article where the phrase names it ("la capitale des États-Unis", "d'Anna"), and so in a
    label kind's own phrase, a clause in which the subject is said in the nominative ("what the United
    States is known for", "wozu die Niederlande ... stehen"), as is a German generic noun's subject
    that takes an article ("dem, was die Schweiz als Besitzerfirma hat")."""
    said = articles.load(lang)
    if said is None:
        return language.middle(predicate, subject, label, case, kind=label_kind)
    if forms is not None:  # the subject's own article: none, or said whole (``_articles_of``)
        said = forms
    extra = names.articles.get(lang)
    kind = said.kind(subject, extra)
    possessive = language.possessive
    # a generic noun without the possessive ("von der Schweiz Besitzerfirma", "von Die Smaragdstadts
    # Besitzerfirma" were wrong): its gender is unknown, so it cannot head the phrase with an article
    # ("der Besitzerfirma der Schweiz" would guess one); a clause names the subject in the nominative
    clause = (possessive is not None and predicate not in language.paths and bool(language.path_clause)
              and bool(kind or said.undeclined(subject, extra)))
    if language.own_path(predicate, label_kind) or clause:
        phrase, generic = language.middle(predicate, _OWNER, label, case, kind=label_kind, number=kind,
                                          clause=clause)
        named = said.phrase(subject, "nom", extra) or subject
        return articles.join(phrase, _OWNER, named, said.contractions, said.elisions, said.own or ()), generic
    # a title said whole ("Die Smaragdstadt") takes no -s genitive either
    if possessive is not None and (kind or subject[-1:] in possessive["sibilants"]
                                   or said.undeclined(subject, extra)):
        head = language.head(predicate, case)
        headed = said.phrase(head[0], case, {head[0]: head[1]}) if head else None
        if headed is not None:
            owner = said.phrase(subject, "gen", extra) if kind else \
                f"{possessive['of']} {said.phrase(subject, 'dat', extra) or subject}"
            return f"{headed} {owner}", False
        if kind:  # no head to name it after: the genitive before the phrase ("der Schweiz Amtssprache")
            return language.middle(predicate, subject, label, case, owner=said.phrase(subject, "gen", extra))
    phrase, generic = language.middle(predicate, _OWNER, label, case, number=kind)
    named = said.phrase(subject, "nom", extra) or subject
    return articles.join(phrase, _OWNER, named, said.contractions, said.elisions, said.own or ()), generic


def template_slots(keyed_labels, key: bytes) -> dict[tuple[str, str], int]:
    """A template slot for each (subject, predicate) of ``keyed_labels`` ((subject, predicate), label)
    pairs: dealt in an order keyed by ``key`` (the plan key: the deal follows the labels, so an order a
    verifier could replay would let the templates tell them) among the subjects whose claims of the
    predicate have the same labels. A subject's true and false facts give a SUPPORTS and a REFUTES claim or two NOT ENOUGH INFO
    ones, so a hash per subject gives each label a template mix drawn from a third of the subjects,
    which can differ by chance enough to tell NOT ENOUGH INFO apart; dealt, every label has each
    template as often, up to one subject per set of labels."""
    labels: dict[tuple[str, str], list[str]] = {}
    for pair, label in keyed_labels:
        labels.setdefault(pair, []).append(label)
    groups: dict[tuple, list] = {}
    for pair, found in labels.items():
        groups.setdefault((pair[1], *sorted(found)), []).append(pair)
    slots = {}
    for group, members in sorted(groups.items()):
        start = keyed_index(key, "template-deal", "\n".join(group), "", 1 << 30)
        for place, member in enumerate(sorted(members, key=lambda k: keyed_rank(key, "template-deal", (*k, "")))):
            slots[member] = start + place
    return slots


def conjoin(first: Said, second: Said, lang: str) -> str:
    language = load(lang)
    opening = first.text[:1] + first.body[1:]  # the first sentence as said, without the end it was given
    return closed(language.conjunction.format(first=opening, second=second.body), language.end)


def closed(text: str, end: str) -> str:
    """``text`` with the sentence's end, unless a name that ends it brings its own stop ("Inc.",
    "Yahoo!", a title ending in "?"): a second one reads as a typo."""
    return text if end == "." and text[-1:] in _STOPS else text + end


def fallback_names(said: Said) -> list[str]:
    return [role for role, source in said.name_sources.items() if source == LOCAL]
