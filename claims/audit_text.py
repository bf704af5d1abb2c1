"""What the claims audit reads in a claim's text: its words, its entity-like spans, negation cues, dates.

* **Words**: lower-cased word tokens (``n't`` read as ``not``); Chinese is cut into words with jieba,
  Japanese and Korean into characters (no word boundaries to split on, and no segmenter installed).
* **Entity spans** (the entity-only baseline's view of a claim when no answers name its entities):
  the claim with everything masked but its entity-like spans: runs of capitalised words, quoted text
  and ``[[wiki links]]``; in Chinese also the words jieba's dictionary tags as proper nouns (person,
  place, organisation, other) and the words it does not know (found by its HMM: mostly names; its
  dictionary is in simplified characters, so in traditional text ordinary words too, which every
  label shares). German capitalises every noun, so there
  template nouns are spans too; they are shared by all labels and tell none.
* **Negation cues**: words of a small per-language list (en, de, fr, es, nl, it, pt; zh/ja characters).
* **Dates**: the finest date a claim gives: ``day`` (1946-07-06, 6.7.1946, "July 6, 1946",
  "6. Juli 1946", "1946年7月6日"), ``month`` (a month name or 年..月 with a year, no day) or ``year``
  (a year alone). Month names come from babel's locale data for the claim's language.
"""
from __future__ import annotations

import functools
import re

_CJK_WORDS = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_NOT = re.compile(r"n['’]t\b")
_SPAN = re.compile(r"\[\[([^\]]+)\]\]|\"([^\"]+)\"|“([^”]+)”|«\s*([^»]+?)\s*»|„([^“]+)“"
                   r"|((?:[A-ZÀ-ÖØ-ÞĀ-Ž][\w'’.\-]*)(?:\s+(?:[A-ZÀ-ÖØ-ÞĀ-Ž][\w'’.\-]*|\d+))*)")
_PROPER = ("nr", "ns", "nt", "nz")
NEGATION = {
    "en": {"not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without", "cannot"},
    "de": {"nicht", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nie", "niemals", "ohne", "weder"},
    "fr": {"ne", "n", "pas", "jamais", "aucun", "aucune", "ni", "sans", "non", "personne", "rien"},
    "es": {"no", "nunca", "jamás", "ningún", "ninguna", "ninguno", "sin", "ni", "nadie", "nada"},
    "nl": {"niet", "geen", "nooit", "zonder", "noch", "niets", "niemand"},
    "it": {"non", "mai", "nessuno", "nessuna", "senza", "né", "niente"},
    "pt": {"não", "nunca", "nenhum", "nenhuma", "sem", "nem", "nada", "ninguém"},
}
NEGATION_CHARACTERS = {"zh": "不没沒未非无無否别別莫勿", "ja": "ない無未非不"}
_ISO = re.compile(r"(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)|(?<!\d)\d{1,2}[./]\d{1,2}[./]\d{4}(?!\d)")
_YEAR = re.compile(r"(?<!\d)(?:1\d{3}|20\d{2})(?!\d)")
_CJK_DAY = re.compile(r"\d{1,4}\s*年\s*\d{1,2}\s*月\s*\d{1,2}\s*[日号號]")
_CJK_MONTH = re.compile(r"\d{1,4}\s*年\s*\d{1,2}\s*月")
_CJK_YEAR = re.compile(r"(?<!\d)\d{3,4}\s*年")


@functools.lru_cache(maxsize=256)
def primary(lang: str) -> str:
    return lang.split("-")[0].split("_")[0].lower()


def is_cjk(lang: str) -> bool:
    return primary(lang) in ("zh", "ja", "ko")


@functools.lru_cache(maxsize=1)
def _jieba():
    import jieba

    jieba.setLogLevel(60)  # its dictionary-loading chatter goes to stderr otherwise
    return jieba


def prepare(langs) -> None:
    """Load now what the words of claims in ``langs`` need (jieba, for Chinese), rather than on first
    use: importing jieba (through pkg_resources) leaves a reference cycle that holds the frames on the
    stack then; imported deep inside a claims step, those held all the step's records until the
    garbage collector's next pass, which then had them all to walk and free."""
    if any(primary(lang) == "zh" for lang in langs):
        _jieba()


@functools.lru_cache(maxsize=1)
def _word_tags() -> dict:
    """jieba's dictionary tags, loaded only when entity spans are asked for: reading them takes longer
    than the words of a large claims set, and an audit whose answers name the entities needs none."""
    import jieba.posseg

    _jieba()
    return jieba.posseg.dt.word_tag_tab  # the dictionary's tags: the tagger's HMM is 4x slower


@functools.lru_cache(maxsize=1 << 16)
def _cut(text: str) -> tuple[str, ...]:
    """jieba's words of a Chinese text, kept: the audit's words and its entity spans both need them.
    jieba cuts a text's runs of Han characters, letters and digits (its ``re_han_default``) each on
    its own, and what lies between them without its dictionary, so the text's words are its pieces'
    words in order: each distinct piece is cut once (``_cut_piece``), and claims made from templates
    share most of theirs (the template's words; a name in many claims)."""
    return tuple(word for piece in _jieba().re_han_default.split(text) if piece for word in _cut_piece(piece))


@functools.lru_cache(maxsize=1 << 18)
def _cut_piece(piece: str) -> tuple[str, ...]:
    return tuple(_jieba().lcut(piece))


def words(text: str, lang: str) -> list[str]:
    code = primary(lang)
    if code == "zh":
        return [w for w in (t.strip().lower() for t in _cut(text)) if w and _WORD.fullmatch(w)]
    if code in ("ja", "ko"):
        return [t.lower() for t in _WORD.findall(text) for t in (list(t) if _CJK_WORDS.match(t) else [t])]
    return _WORD.findall(_NOT.sub(" not", text.lower()))


def ngrams(tokens: list[str], n: int) -> list[str]:
    # the audit's 1- and 2-grams without a slice and a join each: a large claims set has a million
    if n == 1:
        return list(tokens)
    if n == 2:
        return [f"{a} {b}" for a, b in zip(tokens, tokens[1:])]
    return [" ".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]


def entity_spans(text: str, lang: str) -> list[str]:
    spans = [next(g for g in match.groups() if g) for match in _SPAN.finditer(text)]
    if primary(lang) == "zh":
        tags = _word_tags()
        spans += [w for w in _cut(text)
                  if tags.get(w) in _PROPER or (w not in tags and len(w) >= 2 and _CJK_WORDS.match(w))]
    return [s.strip() for s in spans if s.strip()]


def has_negation(tokens: list[str], text: str, lang: str) -> bool | None:
    """Whether a negation cue occurs; None when there is no cue list for the language."""
    code = primary(lang)
    if code in NEGATION_CHARACTERS:
        return any(c in text for c in NEGATION_CHARACTERS[code])
    cues = NEGATION.get(code)
    if cues is None:
        return None
    return any(t in cues for t in tokens)


@functools.lru_cache(maxsize=64)
def _month_pattern(lang: str) -> re.Pattern | None:
    from babel import Locale, UnknownLocaleError
    from babel.dates import get_month_names

    try:
        locale = Locale.parse(lang.replace("-", "_"))
    except (UnknownLocaleError, ValueError, TypeError):
        locale = Locale.parse("en")
    names = set()
    for width in ("wide", "abbreviated"):
        for context in ("format", "stand-alone"):
            names.update(n.lower().rstrip(".") for n in get_month_names(width, context, locale).values())
    names = sorted((n for n in names if len(n) >= 3), key=len, reverse=True)
    if not names:
        return None
    month = "|".join(re.escape(n) for n in names)
    return re.compile(rf"(?<!\w)(?P<day1>\d{{1,2}}\.?\s*(?:de\s+)?)?(?:{month})\.?(?!\w)(?P<day2>\s+\d{{1,2}}(?!\d))?")


def date_granularity(text: str, lang: str) -> str | None:
    """"day", "month" or "year": the finest date the claim gives; None when it gives none."""
    if is_cjk(lang):
        if _CJK_DAY.search(text) or _ISO.search(text):
            return "day"
        if _CJK_MONTH.search(text):
            return "month"
        return "year" if _CJK_YEAR.search(text) or _YEAR.search(text) else None
    if _ISO.search(text):
        return "day"
    has_year = bool(_YEAR.search(text))
    pattern = _month_pattern(primary(lang))
    if pattern is not None and has_year:
        found = "year"
        for match in pattern.finditer(text.lower()):
            if match.group("day1") or match.group("day2"):
                return "day"
            found = "month"
        return found
    return "year" if has_year else None
