"""Claim records in the FEVER layout, and the answers that say how each was made.

A record has ``id``, ``claim``, ``lang``, ``label``, ``verifiable`` and ``evidence`` as FEVER's
shared-task files do: a list of evidence sets, each a list of ``[annotation_id, evidence_id,
page, line]``, where page is the evidence triple's subject IRI and line its 0-based line in
``reference.sorted.nt`` (the sorted N-Triples dump of R). NOT ENOUGH INFO has FEVER's single
empty set ``[[[annotation_id, null, null, null]]]``. ``evidence_triples`` has the same sets as
``{"s", "p", "o"}`` objects (with ``start``/``end`` where the claim's fact is dated). Nothing in a
record says how it was made: that is in the answers only.
"""
from __future__ import annotations

import json
import json.encoder

from .fever_io import Claim
from .labelling import NEI

RECORD_KEYS = ("id", "claim", "lang", "label", "verifiable", "evidence", "evidence_triples")


def record(number: int, text: str, lang: str, label: str, evidence_sets, lines: dict, dates: dict,
           next_evidence_id) -> dict:
    if label == NEI:
        evidence, triples = [[[number, None, None, None]]], []
    else:
        evidence = [[[number, next_evidence_id(), s, lines[(s, p, o)]] for s, p, o in group] for group in evidence_sets]
        triples = [[{"s": s, "p": p, "o": o, **dates.get((s, p, o), {})} for s, p, o in group] for group in evidence_sets]
    return {"id": number, "claim": text, "lang": lang, "label": label,
            "verifiable": "NOT VERIFIABLE" if label == NEI else "VERIFIABLE",
            "evidence": evidence, "evidence_triples": triples}


def as_claims(records) -> list[Claim]:
    """The claims ``fever_io.claims_of`` reads from ``records`` (``record``'s, numbered from 1 in order),
    made without checking each field as a file's: the claims step audits the records it has just made,
    whose fields are right by making, and the checks took about as long as making the records."""
    return [Claim(str(r["id"]), r["claim"].strip(), r["label"], r["lang"].strip(),
                  [[(item[2], item[3]) for item in group] for group in r["evidence"]], number)
            for number, r in enumerate(records, 1)]


def answers_json(header: dict, answers: dict[str, dict]) -> bytes:
    """``answers.json``: one JSON object, the header's keys and ``answers`` in key order, one claim's
    answer a line (in claim order). Each line is one call of the C encoder: an indented dump of the
    whole object goes through ``json``'s pure-Python encoder, which on a large set was most of the
    claims step."""
    dumps = _SORTED

    def entry(key, value) -> str:
        if key != "answers":
            return f"{dumps(key)}: {dumps(value)}"
        lines = ",\n".join(f"{dumps(number)}: {dumps(answer)}" for number, answer in value.items())
        return f'"answers": {{\n{lines}\n}}' if lines else '"answers": {}'

    data = {**header, "answers": answers}
    return ("{" + ",\n".join(entry(key, data[key]) for key in sorted(data)) + "}\n").encode("utf-8")


def jsonl(records) -> bytes:
    encode = _PLAIN
    return "".join([encode(r) + "\n" for r in records]).encode("utf-8")


def _encoder(**options):
    """A function giving a value's JSON text as ``json.dumps(value, **options)`` does, in one call of the
    C encoder: ``json.dumps`` with any option makes a new encoder (and its C half) a call, which on a
    large claims set cost about as much as the encoding itself."""
    encoder = json.JSONEncoder(**options)
    make = json.encoder.c_make_encoder
    if make is None:  # no C encoder in this Python: its pure-Python one, the same text
        return encoder.encode
    strings = json.encoder.encode_basestring_ascii if encoder.ensure_ascii else json.encoder.encode_basestring
    encode = make(None, encoder.default, strings, encoder.indent, encoder.key_separator, encoder.item_separator,
                  encoder.sort_keys, encoder.skipkeys, encoder.allow_nan)
    return lambda value: "".join(encode(value, 0))


_SORTED = _encoder(ensure_ascii=False, sort_keys=True)
_PLAIN = _encoder(ensure_ascii=False, separators=(", ", ": "))
