"""The claims audit: can the labels of a claims file be told from the claims alone?

For a FEVER, FEVEROUS or CFEVER file (``fever_io``) it reports, for each language:

* **ngrams**: for word 1- and 2-grams (``audit_text.words``: jieba words for Chinese), against each label,
  the LMI and nPMI of Schuster et al. 2019 ("Towards debiasing fact verification models"):
  ``LMI(w, l) = p(w, l) * log(p(l | w) / p(l))`` over n-gram occurrences (p(w, l) = count(w, l) / |D|,
  |D| all occurrences of n-grams of that order, p(l) = count(l) / |D| the share of occurrences in
  claims labelled l), reported times 10^6 as in the paper; and the normalized PMI of the events "the
  claim contains w" and "the claim is labelled l" over claims (-1 never together, 0 independent, 1
  always together: ``evaluation.features.npmi_counts``). The strongest by LMI are listed per label;
  the strongest by nPMI over all labels among n-grams in at least ``min_claims`` claims;
* **baselines**: seeded stratified 5-fold accuracy of a logistic regression (fit by seeded stochastic
  gradient descent: a quasi-Newton fit of the same model is several times slower on large vocabularies,
  for the same accuracy) on TF-IDF features of the claim's 1- and 2-grams (those in at least two claims) (**claim-only**), of its template id alone (**template-only**, when the
  answers or the records give one), and of its entities alone (**entity-only**: the entities the
  answers name, else the claim's entity-like spans, ``audit_text.entity_spans``), each against the
  majority-class share. The TF-IDF weights are fit on all claims of the language (they use no
  labels); above ``BASELINE_CLAIMS`` claims a language's baselines use a seeded stratified sample
  of that many (said so in the report). When the answers or the records name each claim's subject,
  the folds are grouped by subject and each is fit without the claims made with its held-out ones,
  as in the scenario audit (``_folds`` says why);
* **subjects**: how often two claims of one subject share a label, against chance (a model that
  remembers a subject's label from training gains the difference);
* **negation**: the share of claims with a negation cue, per label;
* **dates**: per label, the share of claims that give a date, and of those, the shares that give a day,
  a month or a year only;
* **record_order**: per label, the AUROC of a claim's position in the file for that label against the
  rest (``audit_order``).
* **kinds**: within each predicate, whether a claim's kind (negation, conjunction, ...) goes with its
  label (``audit_kinds``), when the answers or the records name each claim's predicate and kind.

Flags (each stated in the report's ``thresholds``):

* a baseline's accuracy exceeds the majority share by more than ``lift_threshold`` (0.1: about three
  standard errors of a 3-way accuracy over 200 claims, and a lift no honest claim wording explains)
  and by more than three standard errors of an accuracy at the majority share over that many claims
  (over a few dozen claims, 0.1 is one standard error: chance, not wording);
* an n-gram in at least ``min_claims`` claims (10, or 0.5% of the language's claims if more) has an
  nPMI above ``npmi_threshold`` (0.3) with a label: e.g. a word in half of one label's claims and in
  no other's, when the three labels are balanced, reaches 0.61; and the label's share of the claims
  with the n-gram exceeds its overall share by three standard errors (so an n-gram of a dozen claims
  needs nearly all of them of one label);
* two claims of one subject share a label more often than at random by more than ``gap_threshold``
  and three standard errors;
* the negation-cue share, or the day-level share of dated claims, differs between two labels by more
  than ``gap_threshold`` (0.1) and by more than three standard errors of that difference (so a
  handful of claims cannot trip it);
* a label's record-order AUROC differs from 0.5 by more than ``gap_threshold`` and three standard
  errors.
* kind and label are not independent within predicates: a chi-square test's p-value below
  ``audit_kinds.P_VALUE`` (0.001).

The same claims, answers and seed give the same report.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from factforge.evaluation.features import npmi_counts

from . import audit_kinds, audit_order, audit_text
from .errors import ClaimsError
from .fever_io import LABELS, REFUTES, SUPPORTS, Claim, read_answers, read_claims

LIFT_THRESHOLD = 0.1
NPMI_THRESHOLD = 0.3
GAP_THRESHOLD = 0.1
GAP_STANDARD_ERRORS = 3.0
MIN_CLAIMS, MIN_CLAIMS_SHARE = 10, 0.005
FOLDS = 5
BASELINE_CLAIMS = 10_000
# The labels a held-out claim's training is mirrored against (``_folds``): a SUPPORTS and a REFUTES claim
# are made together (a true fact and a false one that took a true fact's object), so an entity is named
# by about as many of each; how many NOT ENOUGH INFO claims name it follows which true facts left R,
# which nothing ties to the others. Mirrored against NOT ENOUGH INFO too, a fold kept each entity's lean
# over the whole set, its held-out claims' labels included, and three-label files read above chance.
MIRRORED = {SUPPORTS: (REFUTES,), REFUTES: (SUPPORTS,)}
SHOWN = 10  # n-grams listed per label and in the strongest list
DIGITS = 4


def audit_claims(claims: list[Claim], *, answers: dict[str, dict] | None = None, seed: int = 0,
                 lift_threshold: float = LIFT_THRESHOLD, npmi_threshold: float = NPMI_THRESHOLD,
                 gap_threshold: float = GAP_THRESHOLD, source: dict | None = None) -> dict:
    for name, value in (("lift_threshold", lift_threshold), ("npmi_threshold", npmi_threshold),
                        ("gap_threshold", gap_threshold)):
        if not 0.0 <= value <= 1.0:
            raise ClaimsError(f"{name}: {value} is not between 0 and 1")
    answers = answers or {}
    by_lang: dict[str, list[Claim]] = {}
    for claim in claims:
        by_lang.setdefault(claim.lang, []).append(claim)
    report = {
        "kind": "claims", "flagged": False, "reasons": [],
        "thresholds": {"lift": lift_threshold, "npmi": npmi_threshold,
                       "npmi_min_claims": f"max({MIN_CLAIMS}, {MIN_CLAIMS_SHARE:.1%} of a language's claims)",
                       "gap": gap_threshold, "gap_standard_errors": GAP_STANDARD_ERRORS,
                       "lift_and_npmi": f"also beyond {GAP_STANDARD_ERRORS:g} standard errors at the claims count",
                       "record_order": f"|AUROC of position - 0.5| above the gap and "
                                       f"{audit_order.STANDARD_ERRORS:g} standard errors",
                       "kinds_p_value": audit_kinds.P_VALUE},
        "seed": seed, "folds": FOLDS,
        "fold_groups": "claims of one subject (when the answers or the records name it) stay in one fold, and each "
                       "fold is fit without the claims that share a rarely named entity with its held-out ones, "
                       "and, for each held-out SUPPORTS (REFUTES) claim, one REFUTES (SUPPORTS) claim naming the "
                       "same entity, on the features of claims of two subjects or more",
        **({"source": source} if source else {}),
        "claims": {"total": len(claims), "labels": _label_counts(claims),
                   "languages": {lang: len(group) for lang, group in sorted(by_lang.items())},
                   "lang_guessed": sum(c.lang_guessed for c in claims)},
        "languages": {},
    }
    shared: dict = {}  # what languages with the same claims share (``_baselines``)
    for lang, group in sorted(by_lang.items()):
        report["languages"][lang] = _audit_language(group, lang, answers, seed, shared)
    report["reasons"] = _reasons(report, lift_threshold, npmi_threshold, gap_threshold)
    report["flagged"] = bool(report["reasons"])
    return report


def _label_counts(claims: list[Claim]) -> dict[str, int]:
    counts = Counter(c.label for c in claims)
    return {label: counts[label] for label in LABELS if counts[label]}


def _audit_language(claims: list[Claim], lang: str, answers: dict, seed: int, shared: dict) -> dict:
    tokens = [audit_text.words(c.claim, lang) for c in claims]
    grams = {n: [audit_text.ngrams(t, n) for t in tokens] for n in (1, 2)}
    labels = [c.label for c in claims]
    min_claims = max(MIN_CLAIMS, math.ceil(MIN_CLAIMS_SHARE * len(claims)))
    result = {"claims": len(claims), "labels": _label_counts(claims), "min_claims": min_claims,
              "ngrams": {str(n): _ngram_stats(grams[n], labels, min_claims) for n in (1, 2)}}
    result["baselines"] = _baselines(claims, grams, answers, lang, seed, shared)
    result["subjects"] = _subject_agreement(claims, answers)
    result["negation"] = _negation(claims, tokens, lang)
    result["dates"] = _dates(claims, lang)
    result["record_order"] = audit_order.record_order(claims)
    result["kinds"] = audit_kinds.kinds_by_predicate(claims, LABELS, lambda c, name: _answer(c, answers, name))
    return result


# --- n-grams ------------------------------------------------------------------------------------
def _ngram_stats(grams: list[list[str]], labels: list[str], min_claims: int) -> dict:
    present = [label for label in LABELS if label in set(labels)]
    occurrences = {label: Counter() for label in present}  # n-gram occurrences in claims of each label
    documents = {label: Counter() for label in present}  # claims of each label containing the n-gram
    for row, label in zip(grams, labels):
        occurrences[label].update(row)
        documents[label].update(set(row))
    vocabulary = sorted(set().union(*occurrences.values()))
    if not vocabulary:
        return {"by_label": {}, "strongest": []}
    index = {gram: i for i, gram in enumerate(vocabulary)}
    occ = np.zeros((len(present), len(vocabulary)))
    docs = np.zeros((len(present), len(vocabulary)))
    for row, label in enumerate(present):  # a row's cells set at once: one numpy call a label, not a cell
        for matrix, counted in ((occ, occurrences[label]), (docs, documents[label])):
            matrix[row, [index[gram] for gram in counted]] = list(counted.values())
    total, gram_occ, gram_docs = occ.sum(), occ.sum(axis=0), docs.sum(axis=0)
    p_label = occ.sum(axis=1, keepdims=True) / total
    with np.errstate(divide="ignore", invalid="ignore"):
        lmi = np.where(occ > 0, occ / total * np.log((occ / gram_occ) / p_label), 0.0)
    claims_of = Counter(labels)
    n_claims = len(labels)
    by_label, candidates = {}, []
    for row, label in enumerate(present):
        seen = np.flatnonzero(occ[row] > 0)
        top = seen[np.lexsort((seen, -lmi[row, seen]))][:SHOWN]  # ties: in vocabulary order
        by_label[label] = [_row(vocabulary[i], label, occ, docs, gram_occ, gram_docs, lmi, row, i,
                                claims_of[label], n_claims) for i in top]
        frequent = np.flatnonzero(gram_docs >= min_claims)
        candidates += [_row(vocabulary[i], label, occ, docs, gram_occ, gram_docs, lmi, row, i,
                            claims_of[label], n_claims) for i in frequent]
    strongest = sorted(candidates, key=lambda r: (-r["npmi"], -r["claims_with_ngram"], r["ngram"], r["label"]))
    return {"by_label": by_label, "strongest": strongest[:SHOWN]}


def _row(gram, label, occ, docs, gram_occ, gram_docs, lmi, row, i, label_claims, n_claims) -> dict:
    return {"ngram": gram, "label": label, "count": int(occ[row, i]), "claims": int(docs[row, i]),
            "claims_with_ngram": int(gram_docs[i]), "lmi_1e6": round(float(lmi[row, i]) * 1e6, 1),
            "npmi": round(npmi_counts(int(docs[row, i]), int(gram_docs[i]), label_claims, n_claims), DIGITS),
            "p_label_given_ngram": round(float(occ[row, i] / gram_occ[i]), DIGITS),
            **_excess(int(docs[row, i]), int(gram_docs[i]), label_claims / n_claims)}


def _excess(hits: int, trials: int, share: float) -> dict:
    """How much more often than its overall ``share`` a label comes with a feature (``hits`` of its
    ``trials`` claims), and the standard error of that at ``trials`` claims when the feature says nothing."""
    return {"excess": round(hits / trials - share, DIGITS),
            "standard_error": round(math.sqrt(share * (1 - share) / trials), DIGITS)}


# --- baselines ----------------------------------------------------------------------------------
def _baselines(claims: list[Claim], grams: dict, answers: dict, lang: str, seed: int, shared: dict) -> dict:
    """``shared``: folds and results of the languages audited before, by what they were made of. A claims
    set says each claim in every language, so its languages have the same labels and facts in the same
    order, hence the same folds, and the same entities, hence the same entity-only baseline: each is
    made once for all (the words and template ids differ by language, so those baselines do not)."""
    # Each claim's features and facts are read only for the claims the baselines use (a sample of a
    # large language): reading them for every claim was a sizeable share of a large audit's time.
    y = np.array([c.label for c in claims])
    folds = _folds(y, seed, _facts(claims, answers), shared)
    results = {"claim_only": _cross_validated(lambda i: grams[1][i] + grams[2][i], folds, seed, tfidf=True)}
    if any(_answer(c, answers, "template_id", "template") is not None for c in claims):
        results["template_only"] = _cross_validated(
            lambda i: [f"t={_answer(claims[i], answers, 'template_id', 'template')}"], folds, seed)
    else:
        results["template_only"] = {"accuracy": None, "skipped": "no template id in the answers or the records"}
    if (answers or any(c.extra for c in claims)) and any(_entities(c, answers) for c in claims):
        results["entity_only"] = {**_cross_validated(lambda i: [f"e={e}" for e in _entities(claims[i], answers)],
                                                     folds, seed, shared=shared),
                                  "entities": "named by the answers or the records"}
    else:
        def spans(i):  # only for the claims the baseline uses (a sample of a large language)
            return [f"e={s}" for s in audit_text.entity_spans(claims[i].claim, lang)]

        results["entity_only"] = {**_cross_validated(spans, folds, seed),
                                  "entities": "entity-like spans of the claim (the rest masked)"}
    return results


def _answer(claim: Claim, answers: dict, *names):
    for source in (answers.get(claim.id, {}), claim.extra):
        for name in names:
            if source.get(name) not in (None, ""):
                return str(source[name])
    return None


def _entities(claim: Claim, answers: dict) -> list[str]:
    found = []
    for source in (answers.get(claim.id, {}), claim.extra):
        for name in ("entity", "subject", "object", "entities"):
            value = source.get(name)
            values = value if isinstance(value, list) else [value]
            found += [str(v) for v in values if v not in (None, "") and not isinstance(v, (dict, list))]
        if found:
            return found
    return found


def _facts(claims: list[Claim], answers: dict):
    """The (subject, predicate, object) claim i is about, as a function of i, when the answers or the
    records name every claim's subject (an object they do not name is the claim's own); else None."""
    if any(_answer(claim, answers, "subject") is None for claim in claims):
        return None

    def fact(i: int) -> dict:
        claim = claims[i]
        return {"subject": _answer(claim, answers, "subject"), "predicate": _answer(claim, answers, "predicate") or "",
                "object": _answer(claim, answers, "object") or f"\0claim {i}"}
    return fact


@dataclass(frozen=True)
class _Folds:
    """The claims a language's baselines use and their (train, test) folds: the same for each baseline,
    so drawn, grouped and kept apart once."""
    result: dict             # majority share, and what was sampled or left out
    index: np.ndarray        # the claims used
    target: np.ndarray       # their labels
    splits: list             # (train, test) positions in ``index``
    grouped: bool
    skipped: str | None = None
    groups: np.ndarray | None = None  # each used claim's subject, as a number, when the folds are grouped


def _folds(y: np.ndarray, seed: int, facts, shared: dict | None = None) -> _Folds:
    """The folds of ``_cross_validated``. With ``facts`` they are grouped by subject (``evaluation.folds``)
    and, as in the scenario audit (``evaluation.scoring``), each is fit without the claims made with its
    held-out ones (sharing an entity few claims name) and mirrored (``training_for``: for each held-out
    claim of SUPPORTS or REFUTES, one of the other of the two naming its popular entity leaves too
    (``MIRRORED``), or a popular object's training claims lean against the held-out labels and a file whose
    entities say nothing scores below majority).
    A subject's true and false facts are a SUPPORTS and a REFUTES claim (or two NOT ENOUGH INFO ones,
    when the true fact left R): split over folds, each teaches the model its partner's subject with the
    other label, and scores fall below chance or above it with nothing in the claims to learn. Whether a
    subject's claims agree in label more than chance is ``_subject_agreement``'s question."""
    from sklearn.model_selection import StratifiedKFold, train_test_split

    from factforge.evaluation.folds import group_split
    from factforge.evaluation.scoring import naming_of, pairs_of, training_for

    counts = Counter(y.tolist())
    result = {"majority": round(max(counts.values()) / len(y), DIGITS)}
    none = np.empty(0, dtype=np.int64)
    if len(counts) < 2:
        return _Folds(result, none, y[none], [], False, "one label only")
    kept = sorted(label for label, count in counts.items() if count >= 2)
    index = np.flatnonzero(np.isin(y, kept))
    if len(kept) < len(counts):  # a label of one claim cannot be both trained on and held out
        result["left_out_labels"] = sorted(set(counts) - set(kept))
    if len(kept) < 2:
        return _Folds(result, none, y[none], [], False, "fewer than 2 labels with 2 claims or more")
    if index.size > BASELINE_CLAIMS:
        index, _ = train_test_split(index, train_size=BASELINE_CLAIMS, stratify=y[index], random_state=seed)
        index = np.sort(index)
        result["sampled"] = int(index.size)
    folds = min(FOLDS, min(Counter(y[index].tolist()).values()))
    target = y[index]
    if facts is None:
        splits = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed).split(np.zeros(target.size), target)
        return _Folds(result, index, target, list(splits), False)
    sample = [facts(i) for i in index.tolist()]
    # the grouped folds are a function of these alone: made once for the languages that share them
    key = ("folds", seed, folds, tuple(target.tolist()),
           tuple((f["subject"], f["predicate"], f["object"]) for f in sample))
    if shared is not None and key in shared:
        return shared[key]
    groups = [f["subject"] for f in sample]
    folds = min(folds, len(set(groups)))
    if folds < 2:
        return _Folds(result, index, target, [], True, "fewer than 2 subjects")
    partners, naming = pairs_of(sample), naming_of(sample, target)
    splits = []
    for train, test in group_split(target, groups, folds, seed):
        kept_apart = training_for(train, test, sample, target, partners, MIRRORED, naming)
        splits.append((kept_apart if kept_apart.size else train, test))
    made = _Folds(result, index, target, splits, True, groups=np.unique(groups, return_inverse=True)[1])
    if shared is not None:
        shared[key] = made
    return made


def _cross_validated(features, folds: _Folds, seed: int, *, tfidf: bool = False, shared: dict | None = None) -> dict:
    """Out-of-fold accuracy of a logistic regression on ``features(i)`` (the feature names of claim i).
    ``shared``: the results of earlier calls, by folds and features (a language's that another had)."""
    if folds.skipped:
        return {**folds.result, "accuracy": None, "skipped": folds.skipped}
    documents = [features(i) for i in folds.index]
    key = ("cross-validated", id(folds), tfidf, tuple(map(tuple, documents)))
    if shared is not None and key in shared:
        return dict(shared[key][1])
    made = _fitted(documents, folds, seed, tfidf)
    if shared is not None:
        shared[key] = (folds, made)  # the folds kept with it: no other object takes their ``id`` meanwhile
    return dict(made)


def _fitted(documents: list, folds: _Folds, seed: int, tfidf: bool) -> dict:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import SGDClassifier

    result = folds.result
    # a feature of one claim only cannot carry over to another fold
    vectorizer = TfidfVectorizer(analyzer=_identity, sublinear_tf=True, min_df=2) if tfidf else \
        TfidfVectorizer(analyzer=_identity, use_idf=False, norm=None, min_df=2)
    try:
        x = vectorizer.fit_transform(documents)
    except ValueError:  # no feature at all (e.g. no claim has an entity-like span)
        return {**result, "accuracy": None, "skipped": "no features"}
    if folds.groups is not None:
        x = _across_subjects(x, folds.groups, renormalize=tfidf)
        if not x.shape[1]:
            return {**result, "accuracy": None, "skipped": "no feature in claims of two subjects or more"}
    target = folds.target
    predicted = np.empty(target.size, dtype=object)
    for train, test in folds.splits:
        if len(set(target[train].tolist())) < 2:
            predicted[test] = target[train][0]
            continue
        model = SGDClassifier(loss="log_loss", alpha=1e-4, random_state=seed)
        model.fit(x[train], target[train])
        predicted[test] = model.predict(x[test])
    sample_majority = max(Counter(target.tolist()).values()) / target.size
    accuracy = float(np.mean(predicted == target))
    return {**result, "majority": round(sample_majority, DIGITS), "accuracy": round(accuracy, DIGITS),
            "lift": round(accuracy - sample_majority, DIGITS),
            "standard_error": _excess(0, target.size, sample_majority)["standard_error"], "folds": len(folds.splits),
            "folds_grouped_by": "subject" if folds.grouped else None}


def _identity(doc):
    return doc


def _across_subjects(x, groups: np.ndarray, *, renormalize: bool):
    """``x`` without the features that claims of one subject only have. Folds grouped by subject never
    hold such a feature out: it cannot say anything of a held-out claim, and in training it takes over
    the label of a claim whose partner claim left (a mirrored claim, or one made with a held-out claim),
    so the shared features (a popular object) are fit on the claims whose subject kept both labels.
    Those lean the way the held-out claims' labels did not, and a file whose claims say nothing of the
    label scored below chance with two labels and above it with three (``NOT ENOUGH INFO`` pairs)."""
    from scipy import sparse
    from sklearn.preprocessing import normalize

    members = sparse.csr_matrix((np.ones(groups.size), (groups, np.arange(groups.size))))
    subjects = np.asarray(((members @ (x != 0).astype(np.float64)) > 0).sum(axis=0)).ravel()
    x = x[:, np.flatnonzero(subjects >= 2)]
    return normalize(x) if renormalize else x


# --- claims of one subject ---------------------------------------------------------------------
def _subject_agreement(claims: list[Claim], answers: dict) -> dict:
    """How often two claims of one subject have the same label, against how often two claims drawn at
    random from the subjects with two claims or more would: a model that meets a subject in training
    and predicts its label again gains what the first exceeds the second by."""
    labels_of: dict[str, list[str]] = {}
    for claim in claims:
        subject = _answer(claim, answers, "subject")
        if subject is None:
            return {"skipped": "the answers or the records name no subject for some claims"}
        labels_of.setdefault(subject, []).append(claim.label)
    shared = [labels for labels in labels_of.values() if len(labels) > 1]
    pairs = sum(len(labels) * (len(labels) - 1) // 2 for labels in shared)
    if not pairs:
        return {"skipped": "no subject has two claims"}
    same = sum(n * (n - 1) // 2 for labels in shared for n in Counter(labels).values())
    counts = Counter(label for labels in shared for label in labels)
    total = sum(counts.values())
    expected = sum(n * (n - 1) for n in counts.values()) / (total * (total - 1))
    return {"subjects": len(shared), "pairs": pairs, "same_label": round(same / pairs, DIGITS),
            "expected": round(expected, DIGITS),
            "standard_error": round(math.sqrt(expected * (1 - expected) / pairs), DIGITS)}


# --- negation and dates -------------------------------------------------------------------------
def _negation(claims: list[Claim], tokens: list[list[str]], lang: str) -> dict:
    flags = [audit_text.has_negation(t, c.claim, lang) for c, t in zip(claims, tokens)]
    if any(f is None for f in flags):
        return {"skipped": f"no negation cue list for {lang!r}"}
    shares = _shares(claims, flags)
    return {"share": shares, "gap": _gap(shares, claims)}


def _dates(claims: list[Claim], lang: str) -> dict:
    kinds = [audit_text.date_granularity(c.claim, lang) for c in claims]
    dated = _shares(claims, [k is not None for k in kinds])
    granularity = {}
    for label in LABELS:
        mine = [k for c, k in zip(claims, kinds) if c.label == label and k is not None]
        if mine:
            counts = Counter(mine)
            granularity[label] = {"dated": len(mine), **{g: round(counts[g] / len(mine), DIGITS)
                                                          for g in ("day", "month", "year")}}
    day = {label: row["day"] for label, row in granularity.items()}
    dated_claims = [c for c, k in zip(claims, kinds) if k is not None]
    return {"dated_share": dated, "granularity": granularity,
            "gap": _gap(day, dated_claims)}


def _shares(claims: list[Claim], flags: list[bool]) -> dict[str, float]:
    totals, hits = Counter(), Counter()
    for claim, flag in zip(claims, flags):
        totals[claim.label] += 1
        hits[claim.label] += bool(flag)
    return {label: round(hits[label] / totals[label], DIGITS) for label in LABELS if totals[label]}


def _gap(shares: dict[str, float], claims: list[Claim]) -> dict | None:
    """The largest difference between two labels' shares, and its standard error (pooled)."""
    if len(shares) < 2:
        return None
    totals = Counter(c.label for c in claims)
    high = max(shares, key=lambda k: (shares[k], k))
    low = min(shares, key=lambda k: (shares[k], k))
    n_high, n_low = totals[high], totals[low]
    pooled = (shares[high] * n_high + shares[low] * n_low) / (n_high + n_low)
    error = math.sqrt(pooled * (1 - pooled) * (1 / n_high + 1 / n_low)) if n_high and n_low else 0.0
    return {"high": high, "low": low, "difference": round(shares[high] - shares[low], DIGITS),
            "standard_error": round(error, DIGITS)}


# --- flags ----------------------------------------------------------------------------------------
def _beyond(gap: dict | None, threshold: float) -> bool:
    return bool(gap) and gap["difference"] > threshold and gap["difference"] > GAP_STANDARD_ERRORS * gap["standard_error"]


def _reasons(report: dict, lift: float, npmi: float, gap: float) -> list[str]:
    reasons = []
    for lang, result in report["languages"].items():
        for name, baseline in result["baselines"].items():
            if baseline.get("lift") is not None and _beyond(
                    {"difference": baseline["lift"], "standard_error": baseline["standard_error"]}, lift):
                reasons.append(f"[{lang}] the {name.replace('_', '-')} baseline reaches accuracy "
                               f"{baseline['accuracy']:.3f}, {baseline['lift']:+.3f} over the majority class "
                               f"({baseline['majority']:.3f}; flag above +{lift:g} and "
                               f"{GAP_STANDARD_ERRORS:g} standard errors)")
        for n, stats in result["ngrams"].items():
            for row in stats["strongest"]:
                if row["npmi"] > npmi and _beyond({"difference": row["excess"],
                                                   "standard_error": row["standard_error"]}, 0):
                    reasons.append(f"[{lang}] the {n}-gram {row['ngram']!r} ({row['claims_with_ngram']} claims) has "
                                   f"nPMI {row['npmi']:.3f} with {row['label']} (flag above {npmi:g} for n-grams "
                                   f"in at least {result['min_claims']} claims, when the label's share among "
                                   f"them exceeds its overall share by {GAP_STANDARD_ERRORS:g} standard errors)")
                    break  # the strongest one names the problem; the report lists the rest
        agreement = result["subjects"]
        if "same_label" in agreement and _beyond(
                {"difference": agreement["same_label"] - agreement["expected"],
                 "standard_error": agreement["standard_error"]}, gap):
            reasons.append(f"[{lang}] {agreement['same_label']:.0%} of the {agreement['pairs']} pairs of claims of "
                           f"one subject share a label, against {agreement['expected']:.0%} at random (flag above "
                           f"a {gap:g} difference and {GAP_STANDARD_ERRORS:g} standard errors)")
        negation = result["negation"].get("gap")
        if _beyond(negation, gap):
            reasons.append(f"[{lang}] negation cues: {result['negation']['share'][negation['high']]:.0%} of "
                           f"{negation['high']} claims against {result['negation']['share'][negation['low']]:.0%} of "
                           f"{negation['low']} (flag above a {gap:g} difference and "
                           f"{GAP_STANDARD_ERRORS:g} standard errors)")
        dates = result["dates"].get("gap")
        if _beyond(dates, gap):
            granularity = result["dates"]["granularity"]
            reasons.append(f"[{lang}] date granularity: {granularity[dates['high']]['day']:.0%} of dated "
                           f"{dates['high']} claims give a full date against {granularity[dates['low']]['day']:.0%} "
                           f"of {dates['low']} (flag above a {gap:g} difference and {GAP_STANDARD_ERRORS:g} "
                           f"standard errors)")
        reasons += audit_order.reasons(lang, result["record_order"], gap)
        kinds = audit_kinds.reason(lang, result.get("kinds", {}))
        if kinds:
            reasons.append(kinds)
    return reasons


# --- entry points and summary ----------------------------------------------------------------------
def audit_file(path, *, answers_path=None, **options) -> dict:
    """The report of a FEVER, FEVEROUS or CFEVER JSON Lines file (and its answers file, if given)."""
    claims = read_claims(path)
    answers = read_answers(answers_path)
    formats = {"feverous" if any(isinstance(p, tuple) and isinstance(p[1], str) for s in c.evidence for p in s)
               else "fever" for c in claims}
    source = {"path": str(path), "format": "feverous" if "feverous" in formats else "fever",
              **({"answers": str(answers_path)} if answers_path else {})}
    return audit_claims(claims, answers=answers, source=source, **options)


def summary_lines(report: dict) -> list[str]:
    claims = report["claims"]
    labels = ", ".join(f"{n} {label}" for label, n in claims["labels"].items())
    lines = [f"{'FLAGGED' if report['flagged'] else 'ok'}: {claims['total']} claims ({labels}) in "
             f"{len(claims['languages'])} language(s)"]
    for lang, result in report["languages"].items():
        lines.append(f"  [{lang}] {result['claims']} claims")
        for name, baseline in result["baselines"].items():
            if baseline.get("accuracy") is None:
                lines.append(f"    {name:<14} skipped ({baseline.get('skipped')})")
            else:
                lines.append(f"    {name:<14} accuracy {baseline['accuracy']:.3f}  majority {baseline['majority']:.3f}"
                             f"  lift {baseline['lift']:+.3f}")
        for n, stats in result["ngrams"].items():
            if stats["strongest"]:
                top = stats["strongest"][0]
                lines.append(f"    strongest {n}-gram {top['ngram']!r}: nPMI {top['npmi']:+.2f} with {top['label']} "
                             f"({top['claims_with_ngram']} claims)")
        agreement = result["subjects"]
        if "same_label" in agreement:
            lines.append(f"    same label in {agreement['same_label']:.0%} of {agreement['pairs']} pairs of claims of one "
                         f"subject ({agreement['expected']:.0%} at random)")
        negation = result["negation"]
        if "share" in negation:
            lines.append("    negation cues " + ", ".join(f"{k} {v:.0%}" for k, v in negation["share"].items()))
        granularity = result["dates"]["granularity"]
        if granularity:
            lines.append("    full dates among dated claims " +
                         ", ".join(f"{k} {v['day']:.0%} of {v['dated']}" for k, v in granularity.items()))
        order = result["record_order"]["by_label"]
        if order:
            lines.append("    record order: AUROC of position " +
                         ", ".join(f"{k} {v['auroc']:.2f}" for k, v in order.items()))
        kinds = result.get("kinds", {})
        if "p_value" in kinds:
            lines.append(f"    kinds against labels within predicates: chi-square {kinds['chi2']:.1f} on "
                         f"{kinds['degrees_of_freedom']} degrees of freedom, p {kinds['p_value']:.2g}")
    lines += [f"  reason: {reason}" for reason in report["reasons"]]
    return lines


def audit_command(args, flagged_exit: int) -> int:
    """``factforge audit CLAIMS.jsonl``: print the report (``--json``: all of it); ``flagged_exit`` when it flags."""
    import json

    for option, value in (("--auroc-threshold", args.auroc_threshold), ("--drift-threshold", args.drift_threshold)):
        if value is not None:
            raise ClaimsError(f"{option}: applies to labelled triples; a claims file is audited with the "
                             f"thresholds its report states")
    options = {"seed": args.seed} if args.seed is not None else {}
    report = audit_file(args.path, answers_path=getattr(args, "answers", None), **options)
    print(json.dumps(report, indent=1, sort_keys=True, ensure_ascii=False) if args.json
          else "\n".join(summary_lines(report)))
    return flagged_exit if report["flagged"] else 0
