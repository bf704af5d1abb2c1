"""Reading claims files: FEVER, FEVEROUS and CFEVER JSON Lines, and FEVER prediction files.

All three are one JSON object per line with ``id``, ``claim``, ``label`` and ``evidence``; they differ in
how they spell labels and evidence:

* **FEVER**: ``evidence`` is a list of evidence sets, each a list of ``[annotation_id, evidence_id,
  page, line]``; a NOT ENOUGH INFO claim has ``[[[annotation_id, null, null, null]]]``.
* **CFEVER** (Chinese FEVER, IKMLab): the FEVER layout, labels lower-case (``supports``, ``refutes``),
  a NOT ENOUGH INFO claim's evidence one level flatter (``[[annotation_id, null, null, null]]``), and a
  ``domain`` field.
* **FEVEROUS**: ``evidence`` is a list of ``{"content": [element ids], "context": {...}}``; an element id
  is ``<page>_<type>_<position>`` (``Aspirin_sentence_3``, ``Aspirin_cell_0_2_1``), read here as the pair
  (page, ``type_position``). The file's first line is an empty header (``id``, ``claim`` and ``label``
  all empty), skipped. ``challenge`` is kept as the claim's kind.

Labels are normalised to ``SUPPORTS``, ``REFUTES`` and ``NOT ENOUGH INFO`` whatever their case, with
``_`` or ``-`` for spaces, or the short forms ``NEI`` / ``SUPPORTED`` / ``REFUTED``. A claim without a
``lang`` is English unless most of its letters are CJK (then ``zh``): FEVER and FEVEROUS are English
Wikipedia, CFEVER Chinese. Every problem is one ``ClaimsError`` line naming the file and line.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from .errors import ClaimsError

SUPPORTS, REFUTES, NEI = "SUPPORTS", "REFUTES", "NOT ENOUGH INFO"
LABELS = (SUPPORTS, REFUTES, NEI)
_SPELLINGS = {"SUPPORTS": SUPPORTS, "SUPPORT": SUPPORTS, "SUPPORTED": SUPPORTS,
              "REFUTES": REFUTES, "REFUTE": REFUTES, "REFUTED": REFUTES,
              "NOT ENOUGH INFO": NEI, "NOT ENOUGH INFORMATION": NEI, "NEI": NEI}
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LETTER = re.compile(r"[^\W\d_]")
_ELEMENT = re.compile(r"^(.+?)_((?:header_cell|cell|sentence|table_caption|item|section|list)(?:_[0-9_]+)?|title)$")
KEPT = ("template", "template_id", "kind", "challenge", "domain", "entity", "entities", "subject", "object")


@dataclass
class Claim:
    id: str
    claim: str
    label: str
    lang: str
    evidence: list[list[tuple]]  # evidence sets of (page, line); line None for NEI's placeholder
    line: int  # where it is in its file
    extra: dict = field(default_factory=dict)  # fields of KEPT the record carries
    lang_guessed: bool = False


def normalise_label(value, where: str) -> str:
    if isinstance(value, str):
        # a label already spelt as a key (every one factforge writes) needs no regex pass
        label = _SPELLINGS.get(value) or _SPELLINGS.get(re.sub(r"[\s_\-]+", " ", value.strip()).upper())
        if label:
            return label
    raise ClaimsError(f"{where}: label {value!r} is not SUPPORTS, REFUTES or NOT ENOUGH INFO")


def guess_lang(text: str) -> str:
    letters = _LETTER.findall(text)
    cjk = sum(1 for c in letters if _CJK.match(c))
    return "zh" if letters and cjk * 2 >= len(letters) else "en"


def is_claims_file(path: str | Path) -> bool:
    """Whether ``path`` is a JSON Lines file whose first record has a ``claim`` (a claims file), not a
    labelled-triples file."""
    path = Path(path)
    if not path.is_file() or path.suffix.lower() not in (".jsonl", ".ndjson"):
        return False
    try:
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    data = json.loads(line)
                    return isinstance(data, dict) and "claim" in {str(k).lower() for k in data}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return False


def _lines(path: Path):
    """(line number, object) of each non-blank line; keys lower-cased, as the labelled-file reader has them."""
    from factforge.evaluation.labelled import json_objects

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ClaimsError(f"{path}: cannot read ({error})") from None
    yield from json_objects(path, text, ClaimsError)


def read_claims(path: str | Path) -> list[Claim]:
    """The claims of a FEVER, FEVEROUS or CFEVER JSON Lines file, in file order."""
    path = Path(path)
    claims = claims_of(_lines(path), str(path))
    if not claims:
        raise ClaimsError(f"{path}: no claims")
    return claims


def claims_of(numbered, name: str) -> list[Claim]:
    """The claims of (line number, object) pairs (keys lower-cased) of the file ``name``: what
    ``read_claims`` reads, and what the claims step audits without reading back the file it wrote."""
    claims, seen = [], set()
    for number, data in numbered:
        where = f"{name}:{number}"
        if data.get("id") in ("", None) and data.get("claim") in ("", None) and data.get("label") in ("", None):
            continue  # FEVEROUS's empty header line
        if data.get("id") in (None, "") or isinstance(data["id"], (dict, list, bool)):
            raise ClaimsError(f"{where}: field 'id' is missing or not a string or number")
        text = data.get("claim")
        if not isinstance(text, str) or not text.strip():
            raise ClaimsError(f"{where}: field 'claim' is missing or empty")
        claim_id = str(data["id"])
        if claim_id in seen:
            raise ClaimsError(f"{where}: id {claim_id!r} appears twice")
        seen.add(claim_id)
        lang = data.get("lang")
        if lang is not None and (not isinstance(lang, str) or not lang.strip()):
            raise ClaimsError(f"{where}: field 'lang' is not a language tag")
        extra = {k: data[k] for k in KEPT if data.get(k) not in (None, "")}
        if "challenge" in extra:
            extra.setdefault("kind", extra["challenge"])
        claims.append(Claim(claim_id, text.strip(), normalise_label(data.get("label"), where),
                            lang.strip() if lang else guess_lang(text), evidence_sets(data.get("evidence"), where),
                            number, extra, lang_guessed=lang is None))
    return claims


def evidence_sets(evidence, where: str) -> list[list[tuple]]:
    """FEVER, CFEVER or FEVEROUS evidence as evidence sets of (page, line) pairs."""
    if evidence is None:
        return []
    if not isinstance(evidence, list):
        raise ClaimsError(f"{where}: field 'evidence' is not a list of evidence sets")
    sets = []
    for group in evidence:
        if isinstance(group, dict):
            sets.append(_feverous_set(group, where))
        elif isinstance(group, list) and len(group) == 4 and not any(isinstance(x, list) for x in group):
            sets.append([_item(group, where)])  # CFEVER's flat NOT ENOUGH INFO placeholder
        elif isinstance(group, list):
            sets.append([_item(item, where) for item in group])
        else:
            raise ClaimsError(f"{where}: field 'evidence' holds {json.dumps(group)[:60]}, not an evidence set")
    return sets


def _item(item, where: str) -> tuple:
    if not isinstance(item, list) or len(item) != 4:
        raise ClaimsError(f"{where}: evidence item {json.dumps(item)[:60]} is not "
                          f"[annotation_id, evidence_id, page, line]")
    page, line = item[2], item[3]
    if page is not None and not isinstance(page, str) or isinstance(line, (bool, float, list, dict)):
        raise ClaimsError(f"{where}: evidence item {json.dumps(item)[:60]}: page must be text, line a whole number")
    return page, line


def _feverous_set(group: dict, where: str) -> list[tuple]:
    content = group.get("content")
    if not isinstance(content, list) or not all(isinstance(e, str) for e in content):
        raise ClaimsError(f"{where}: FEVEROUS evidence needs 'content', a list of element ids")
    pairs = []
    for element in content:
        match = _ELEMENT.match(element)
        if not match:
            raise ClaimsError(f"{where}: {element!r} is not a FEVEROUS element id (<page>_<type>_<position>)")
        pairs.append((match.group(1), match.group(2)))
    return pairs


# --- predictions --------------------------------------------------------------------------------
@dataclass
class Prediction:
    id: str
    label: str
    evidence: list[tuple]  # (page, line) in the order given
    line: int


def read_predictions(path: str | Path) -> dict[str, Prediction]:
    """FEVER predictions (``id``, ``predicted_label``, ``predicted_evidence`` as ``[page, line]`` pairs)."""
    path = Path(path)
    found: dict[str, Prediction] = {}
    for number, data in _lines(path):
        where = f"{path}:{number}"
        if data.get("id") in (None, "") or isinstance(data["id"], (dict, list, bool)):
            raise ClaimsError(f"{where}: field 'id' is missing or not a string or number")
        claim_id = str(data["id"])
        if claim_id in found:
            raise ClaimsError(f"{where}: id {claim_id!r} appears twice")
        label = normalise_label(data.get("predicted_label"), f"{where}: predicted_label")
        evidence = data.get("predicted_evidence")
        if not isinstance(evidence, list):
            raise ClaimsError(f"{where}: field 'predicted_evidence' is missing or not a list of [page, line]")
        pairs = []
        for item in evidence:
            if (not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], str)
                    or not isinstance(item[1], int) or isinstance(item[1], bool)):
                raise ClaimsError(f"{where}: predicted_evidence item {json.dumps(item)[:60]} is not "
                                  f"[page, line] with line a whole number")
            pairs.append((item[0], item[1]))
        found[claim_id] = Prediction(claim_id, label, pairs, number)
    if not found:
        raise ClaimsError(f"{path}: no predictions")
    return found


def read_answers(path: str | Path | None) -> dict[str, dict]:
    """How each claim was made, by claim id: a JSON object ``{"answers": {id: {...}}}`` or ``{id: {...}}``,
    or JSON Lines of objects with an ``id``. None gives no answers."""
    if path is None:
        return {}
    path = Path(path)
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        return {str(d["id"]): d for _, d in _lines(path) if "id" in d}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ClaimsError(f"{path}: cannot read ({error})") from None
    if isinstance(data, dict) and isinstance(data.get("answers"), dict):
        data = data["answers"]
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ClaimsError(f"{path}: expected {{\"answers\": {{id: {{...}}}}}} or {{id: {{...}}}}")
    return {str(k): v for k, v in data.items()}
