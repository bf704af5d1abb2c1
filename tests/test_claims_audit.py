"""The claims audit and the claims readers: a file whose REFUTES claims all say "not" (or whose true claims
alone carry full dates, or whose templates tell the label) is flagged, a balanced one passes; Chinese is
cut into words; FEVEROUS and CFEVER files read; a bad line is one error naming it; ``factforge audit
FILE.jsonl`` exits 3 when it flags and 0 when it does not."""
from __future__ import annotations

import json
import random
from collections import Counter
import subprocess
import sys

import pytest

from factforge.claims import audit_text
from factforge.claims.audit import LIFT_THRESHOLD, NPMI_THRESHOLD, audit_claims, audit_file
from factforge.claims.fever_io import NEI, REFUTES, SUPPORTS, ClaimsError, read_claims

LABELS = [SUPPORTS, REFUTES, NEI]
TEMPLATES = ["{s} was born in {o}.", "The birthplace of {s} is {o}.", "{s} was born in {o} in {y}.",
             "{s} is a citizen of {o}.", "{s} died in {o} on {d}."]


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


def claims(n=300, seed=0, negate_refutes=False, dates_by_label=False):
    """Claims whose templates, entities and dates are drawn alike for every label, unless told otherwise."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        label = LABELS[i % 3]
        template = rng.randrange(len(TEMPLATES))
        if dates_by_label:  # the FactBench trap: true claims give full dates, the others a year
            template = 4 if label == SUPPORTS else 2
        year = rng.randrange(1900, 2000)
        text = TEMPLATES[template].format(s=f"Person{rng.randrange(1000)} Name{rng.randrange(300)}",
                                          o=f"City{rng.randrange(200)}", y=year,
                                          d=f"July {rng.randrange(1, 28)}, {year}")
        if negate_refutes and label == REFUTES:
            text = text.replace(" was ", " was not ").replace(" is ", " is not ").replace(" died ", " did not die ")
        evidence = [[[i, None, None, None]]] if label == NEI else [[[i, 0, f"Page{i}", 0]]]
        rows.append({"id": f"c{i}", "claim": text, "label": label, "lang": "en", "evidence": evidence,
                     "_template": template})
    return rows


def records(rows):
    return [{k: v for k, v in row.items() if not k.startswith("_")} for row in rows]


def test_flags_a_file_whose_refutes_claims_say_not(tmp_path):
    report = audit_file(write_jsonl(tmp_path / "biased.jsonl", records(claims(negate_refutes=True))))
    assert report["flagged"]
    en = report["languages"]["en"]
    assert en["baselines"]["claim_only"]["lift"] > LIFT_THRESHOLD
    strongest = en["ngrams"]["1"]["strongest"][0]
    assert (strongest["ngram"], strongest["label"]) == ("not", REFUTES) and strongest["npmi"] > NPMI_THRESHOLD
    assert strongest["p_label_given_ngram"] == 1.0
    assert en["ngrams"]["1"]["by_label"][REFUTES][0]["ngram"] == "not"  # the strongest by LMI too
    assert en["negation"]["share"] == {SUPPORTS: 0.0, REFUTES: 1.0, NEI: 0.0}
    reasons = " ".join(report["reasons"])
    assert "claim-only baseline" in reasons and "'not'" in reasons and "negation cues" in reasons
    assert report["thresholds"]["lift"] == LIFT_THRESHOLD and report["thresholds"]["npmi"] == NPMI_THRESHOLD


def test_passes_a_balanced_file(tmp_path):
    path = write_jsonl(tmp_path / "balanced.jsonl", records(claims()))
    report = audit_file(path)
    assert not report["flagged"], report["reasons"]
    en = report["languages"]["en"]
    for name in ("claim_only", "entity_only"):
        assert en["baselines"][name]["accuracy"] is not None
        assert en["baselines"][name]["lift"] <= LIFT_THRESHOLD, name
    assert "skipped" in en["baselines"]["template_only"]  # no template ids: said so, not guessed
    assert en["ngrams"]["1"]["strongest"][0]["npmi"] <= NPMI_THRESHOLD
    assert audit_file(path) == report  # seeded folds: the same report again


def test_flags_full_dates_that_only_true_claims_give(tmp_path):
    report = audit_file(write_jsonl(tmp_path / "dates.jsonl", records(claims(dates_by_label=True))))
    dates = report["languages"]["en"]["dates"]
    assert dates["granularity"][SUPPORTS]["day"] == 1.0
    assert dates["granularity"][REFUTES]["year"] == 1.0 and dates["granularity"][NEI]["year"] == 1.0
    assert any("date granularity" in reason for reason in report["reasons"])


def test_template_only_baseline_reads_the_answers(tmp_path):
    rows = claims()
    path = write_jsonl(tmp_path / "claims.jsonl", records(rows))
    shared = tmp_path / "shared.json"
    shared.write_text(json.dumps({"answers": {r["id"]: {"template": r["_template"]} for r in rows}}))
    telling = tmp_path / "telling.json"  # each label its own template ids
    telling.write_text(json.dumps({"answers": {r["id"]: {"template": f"{r['label']}-{r['_template']}"}
                                               for r in rows}}))
    fair = audit_file(path, answers_path=shared)["languages"]["en"]["baselines"]["template_only"]
    assert fair["accuracy"] is not None and fair["lift"] <= LIFT_THRESHOLD
    report = audit_file(path, answers_path=telling)
    assert report["languages"]["en"]["baselines"]["template_only"]["accuracy"] == 1.0
    assert any("template-only baseline" in reason for reason in report["reasons"])


def test_entity_only_baseline_sees_only_entity_spans():
    spans = audit_text.entity_spans('Alan Turing was not born in "Maida Vale" near [[London]] in 1912.', "en")
    assert sorted(spans) == ["Alan Turing", "London", "Maida Vale"]


def test_chinese_is_cut_into_words(tmp_path):
    assert audit_text.words("艾倫·圖靈出生於倫敦。", "zh")[-1] == "倫敦"
    assert "倫敦" in audit_text.words("图灵出生于伦敦。".replace("伦敦", "倫敦"), "zh")
    assert audit_text.date_granularity("圖靈於1912年6月23日出生。", "zh") == "day"
    assert audit_text.date_granularity("圖靈於1912年出生。", "zh") == "year"
    # CFEVER-shaped: lower-case labels, the flat NOT ENOUGH INFO placeholder, no lang (guessed from the script)
    rng = random.Random(1)
    cities = ["倫敦", "巴黎", "柏林", "東京", "北京", "羅馬"]
    rows = []
    for i in range(240):
        label = ["supports", "refutes", "NOT ENOUGH INFO"][i % 3]
        negated = label == "refutes"
        text = f"人物{rng.randrange(50)}{'不是' if negated else '是'}出生於{rng.choice(cities)}的。"
        evidence = [[i, None, None, None]] if label == "NOT ENOUGH INFO" else [[[i, 0, "人物", 0]]]
        rows.append({"id": i, "label": label, "claim": text, "evidence": evidence, "domain": "人物"})
    path = write_jsonl(tmp_path / "cfever.jsonl", rows)
    read = read_claims(path)
    assert {c.lang for c in read} == {"zh"} and all(c.lang_guessed for c in read)
    assert read[2].label == NEI and read[2].evidence == [[(None, None)]]
    assert read[0].label == SUPPORTS and read[0].evidence == [[("人物", 0)]]
    report = audit_file(path)
    zh = report["languages"]["zh"]
    assert zh["negation"]["share"][REFUTES] == 1.0 and zh["negation"]["share"][SUPPORTS] == 0.0
    assert report["flagged"] and any(reason.startswith("[zh] negation cues") for reason in report["reasons"])


def test_reads_feverous(tmp_path):
    rows = [{"id": "", "claim": "", "label": "", "evidence": [{"content": [], "context": {}}], "challenge": ""},
            {"id": 24435, "label": "SUPPORTS", "claim": "Michael Folivi played for Watford.",
             "evidence": [{"content": ["Michael Folivi_cell_0_2_1", "Michael Folivi_sentence_0",
                                       "Watford F.C._header_cell_1_0_2"],
                           "context": {"Michael Folivi_cell_0_2_1": ["Michael Folivi_title"]}}],
             "challenge": "Combining Tables and Text"},
            {"id": 3, "label": "NOT ENOUGH INFO", "claim": "Aspirin is blue.",
             "evidence": [{"content": ["Aspirin_sentence_3"], "context": {}}], "challenge": "Other"}]
    read = read_claims(write_jsonl(tmp_path / "feverous.jsonl", rows))
    assert [c.id for c in read] == ["24435", "3"]  # the empty header line is skipped
    assert read[0].evidence == [[("Michael Folivi", "cell_0_2_1"), ("Michael Folivi", "sentence_0"),
                                 ("Watford F.C.", "header_cell_1_0_2")]]
    assert read[0].extra["kind"] == "Combining Tables and Text" and read[0].lang == "en"
    assert audit_file(tmp_path / "feverous.jsonl")["source"]["format"] == "feverous"


@pytest.mark.parametrize("line, message", [
    ('{"id": 2, "claim": "x", "label": "MAYBE", "evidence": []}', r"x.jsonl:2: label 'MAYBE' is not SUPPORTS"),
    ('{"id": 2, "claim": "", "label": "SUPPORTS"}', r"x.jsonl:2: field 'claim' is missing or empty"),
    ('{"id": 2, "claim": "x", "label": "SUPPORTS", "evidence": [[["a", "b"]]]}', r"x.jsonl:2: evidence item"),
    ('{"id": 1, "claim": "x", "label": "SUPPORTS"}', r"x.jsonl:2: id '1' appears twice"),
    ('{"id": 2, "claim": "x", ', r"x.jsonl:2: not JSON"),
    ('{"id": 2, "claim": "x", "label": "SUPPORTS", "evidence": [{"content": ["nonsense"]}]}',
     r"x.jsonl:2: 'nonsense' is not a FEVEROUS element id"),
])
def test_a_bad_line_is_named(tmp_path, line, message):
    path = tmp_path / "x.jsonl"
    path.write_text('{"id": 1, "claim": "A claim.", "label": "SUPPORTS", "evidence": []}\n' + line + "\n")
    with pytest.raises(ClaimsError, match=message):
        read_claims(path)
    done = subprocess.run([sys.executable, "-m", "factforge", "audit", str(path)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1 and done.stderr.startswith("factforge: error: ")
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_audit_on_the_command_line(tmp_path):
    biased = write_jsonl(tmp_path / "biased.jsonl", records(claims(negate_refutes=True)))
    balanced = write_jsonl(tmp_path / "balanced.jsonl", records(claims()))
    flagged = subprocess.run([sys.executable, "-m", "factforge", "audit", str(biased)], capture_output=True,
                             text=True, timeout=300)
    assert flagged.returncode == 3, flagged.stderr
    assert flagged.stdout.startswith("FLAGGED: 300 claims") and "reason: [en] the claim-only baseline" in flagged.stdout
    passed = subprocess.run([sys.executable, "-m", "factforge", "audit", str(balanced), "--json", "--seed", "4"],
                            capture_output=True, text=True, timeout=300)
    assert passed.returncode == 0, passed.stderr
    report = json.loads(passed.stdout)
    assert report["kind"] == "claims" and not report["flagged"] and report["seed"] == 4
    wrong = subprocess.run([sys.executable, "-m", "factforge", "audit", str(balanced), "--auroc-threshold", "0.7"],
                           capture_output=True, text=True, timeout=300)
    assert wrong.returncode == 1 and wrong.stderr.startswith("factforge: error: --auroc-threshold:")


def test_thresholds_are_checked():
    with pytest.raises(ValueError, match="lift_threshold: 2 is not between 0 and 1"):
        audit_claims([], lift_threshold=2)


def paired(pairs=150, seed=0, same_label=False):
    """Two claims a subject, as the claims of a subject's true and false fact are: a SUPPORTS and a
    REFUTES claim, or two NOT ENOUGH INFO ones (a third of the subjects); ``same_label``: both of
    one label. Objects drawn alike for every label; the answers name subject and object."""
    rng = random.Random(seed)
    rows, answers = [], {}
    for k in range(pairs):
        first = LABELS[k % 3] if same_label else (NEI if k % 3 == 2 else SUPPORTS)
        second = first if same_label or first == NEI else REFUTES
        for label in (first, second):
            i, city = len(rows), f"City{rng.randrange(60)}"
            rows.append({"id": f"c{i}", "claim": f"Person{k} was born in {city}.", "label": label, "lang": "en",
                         "evidence": [[[i, None, None, None]]] if label == NEI else [[[i, 0, f"Person{k}", 0]]]})
            answers[f"c{i}"] = {"subject": f"Person{k}", "object": city, "template": "born"}
    return rows, answers


def test_matched_pairs_of_one_subject_give_chance_not_below(tmp_path):
    """Folds that split a subject's two claims teach the model the subject with its partner's label
    (right for two NOT ENOUGH INFO claims, wrong for a SUPPORTS and a REFUTES one): stratified folds lift
    the entity-only baseline over the majority class on claims whose entities say nothing. Folds grouped
    by subject (as the scenario audit's) give chance."""
    for seed in range(3):
        rows, answers = paired(seed=seed)
        path = write_jsonl(tmp_path / f"pairs{seed}.jsonl", rows)
        (tmp_path / f"answers{seed}.json").write_text(json.dumps({"answers": answers}))
        report = audit_file(path, answers_path=tmp_path / f"answers{seed}.json", seed=seed)
        en = report["languages"]["en"]
        for name in ("claim_only", "entity_only"):
            baseline = en["baselines"][name]
            assert baseline["folds_grouped_by"] == "subject" and abs(baseline["lift"]) <= LIFT_THRESHOLD, (seed, name, baseline)
        assert en["subjects"]["same_label"] == pytest.approx(1 / 3, abs=0.01)
        assert not report["flagged"], report["reasons"]


def matched(pairs=150, seed=0, cities=6, binary=False, across_kinds=False):
    """``paired`` claims whose objects are a few popular cities, each as often in a subject's first claim
    as in its second: the second takes the first claim's city of another subject of its kind (as a false
    fact takes a true one's object; ``across_kinds``: of any subject, so a city's SUPPORTS and REFUTES
    claims need not balance, only its first and second ones). ``binary``: SUPPORTS and REFUTES pairs
    only. No entity says anything about the label."""
    rng = random.Random(seed)
    kinds = [NEI if k % 3 == 2 and not binary else SUPPORTS for k in range(pairs)]
    own = [f"City{rng.randrange(cities)}" for _ in range(pairs)]
    donor = {}
    for kind in ((SUPPORTS, NEI),) if across_kinds else ((SUPPORTS,), (NEI,)):
        subjects = [k for k in range(pairs) if kinds[k] in kind]
        donor.update(zip(subjects, rng.sample(subjects, len(subjects))))
    rows, answers = [], {}
    for k, first in enumerate(kinds):
        for label, city in ((first, own[k]), (NEI if first == NEI else REFUTES, own[donor[k]])):
            i = len(rows)
            rows.append({"id": f"c{i}", "claim": f"Person{k} was born in {city}.", "label": label, "lang": "en",
                         "evidence": [[[i, None, None, None]]] if label == NEI else [[[i, 0, f"Person{k}", 0]]]})
            answers[f"c{i}"] = {"subject": f"Person{k}", "object": city, "template": "born"}
    return records(rows), answers


def test_popular_entities_whose_labels_balance_give_chance_not_below(tmp_path):
    """A fold's held-out claims of a popular city leave its training claims leaning against their labels:
    fit on the rest only, the entity-only and claim-only baselines scored below the majority at nearly
    every seed on claims whose entities say nothing. Each fold's training mirrors its held-out claims
    (``evaluation.scoring.training_for``), so over seeds they average about chance."""
    lifts = {"claim_only": [], "entity_only": []}
    for seed in range(3):
        rows, answers = matched(seed=seed)
        claims_ = read_claims(write_jsonl(tmp_path / f"matched{seed}.jsonl", rows))
        for fold_seed in range(4):
            baselines = audit_claims(claims_, answers=answers, seed=fold_seed)["languages"]["en"]["baselines"]
            for name, found in lifts.items():
                assert baselines[name]["folds_grouped_by"] == "subject"
                found.append(baselines[name]["lift"])
    for name, found in lifts.items():
        assert -0.015 < sum(found) / len(found) < 0.04 and sum(lift < 0 for lift in found) <= 9, (name, found)


def test_flags_claims_of_one_subject_that_share_a_label(tmp_path):
    """What negating one of a subject's two claims made: the grouped folds cannot see it, the
    agreement of a subject's labels does."""
    rows, answers = paired(same_label=True)
    path = write_jsonl(tmp_path / "same.jsonl", rows)
    (tmp_path / "answers.json").write_text(json.dumps({"answers": answers}))
    report = audit_file(path, answers_path=tmp_path / "answers.json")
    subjects = report["languages"]["en"]["subjects"]
    assert subjects["same_label"] == 1.0 and subjects["pairs"] == 150
    assert any("pairs of claims of one subject share a label" in reason for reason in report["reasons"])
    assert "skipped" in audit_file(path)["languages"]["en"]["subjects"]  # no answers: no subjects


def test_flags_a_file_sorted_by_label_and_passes_it_shuffled(tmp_path):
    """Claims listed by label (what listing them in the label plan's order came close to: most NOT ENOUGH
    INFO claims first) are flagged by the record-order check, whatever their words; the same claims
    shuffled pass it."""
    rows = records(claims())
    ordered = sorted(rows, key=lambda row: LABELS.index(row["label"]))
    report = audit_file(write_jsonl(tmp_path / "sorted.jsonl", ordered))
    order = report["languages"]["en"]["record_order"]
    assert order["by_label"][SUPPORTS]["auroc"] == 0.0 and order["by_label"][NEI]["auroc"] == 1.0
    assert any("record order" in reason and NEI in reason for reason in report["reasons"]), report["reasons"]
    assert report["thresholds"]["record_order"]
    random.Random(0).shuffle(ordered)
    shuffled = audit_file(write_jsonl(tmp_path / "shuffled.jsonl", ordered))
    assert not any("record order" in reason for reason in shuffled["reasons"]), shuffled["reasons"]
    assert not shuffled["flagged"], shuffled["reasons"]
    for row in shuffled["languages"]["en"]["record_order"]["by_label"].values():
        assert abs(row["auroc"] - 0.5) <= 3 * row["standard_error"]


def test_the_record_order_check_is_per_language(tmp_path):
    """Records grouped by language (as ours are) are not a record-order leak: each language is checked
    on its own positions."""
    rows = records(claims(n=150))
    random.Random(1).shuffle(rows)
    both = rows + [{**row, "id": row["id"] + "de", "lang": "de"} for row in rows]
    report = audit_file(write_jsonl(tmp_path / "two.jsonl", both))
    assert not any("record order" in reason for reason in report["reasons"]), report["reasons"]
    assert report["languages"]["en"]["record_order"] == report["languages"]["de"]["record_order"]


@pytest.mark.parametrize("biased", [True, False], ids=["kind-goes-with-label-per-predicate", "balanced-per-predicate"])
def test_flags_kinds_that_go_with_one_label_within_each_predicate(tmp_path, biased):
    """Three predicates with 30 negated claims each, 30 of each label over the whole file: negation
    cues say nothing overall, but when each predicate negates claims of one label only, the predicate
    and "not" together tell it. Only the per-predicate kind check sees that."""
    rows = claims(n=900)
    answers, negated = {}, Counter()
    for i, row in enumerate(rows):
        predicate = ("birthPlace", "deathPlace", "residence")[i // 300]
        wanted = LABELS[i // 300] if biased else row["label"]
        kind = "one-hop"
        if row["label"] == wanted and negated[(predicate, row["label"])] < (30 if biased else 10):
            negated[(predicate, row["label"])] += 1
            kind = "negation"
        answers[row["id"]] = {"predicate": f"http://dbpedia.org/ontology/{predicate}", "kind": kind}
    assert Counter(label for (_, label), n in negated.items() for _ in range(n)) == dict.fromkeys(LABELS, 30)
    report = audit_claims(read_claims(write_jsonl(tmp_path / "kinds.jsonl", records(rows))), answers=answers)
    kinds = report["languages"]["en"]["kinds"]
    assert report["thresholds"]["kinds_p_value"] == 0.001
    flagged = [r for r in report["reasons"] if "claim kinds go with labels within predicates" in r]
    if biased:
        assert kinds["p_value"] < 0.001 and kinds["strongest"]["kind"] == "negation" and flagged
    else:
        assert kinds["chi2"] == 0 and not flagged


def prize_claims(copies: int):
    """``copies`` times the same 30 claims: 14 name a "Prize in" award, 11 of them NOT ENOUGH INFO, as
    the demo KB's award claims did at one seed: chance at 30 claims, a lean at 300."""
    rows = []
    for copy in range(copies):
        for k in range(30):
            prize = k < 14
            label = (NEI if k < 11 else SUPPORTS) if prize else (SUPPORTS if k < 25 else NEI)
            i = len(rows)
            award = f"Nobel Prize in Field{k}" if prize else f"Medal{k} Award"
            rows.append({"id": f"c{i}", "claim": f"Person{copy}x{k} received the {award}.", "label": label,
                         "lang": "en", "evidence": [[[i, None, None, None]]] if label == NEI else [[[i, 0, "P", 0]]]})
    return rows


def test_an_ngram_flag_needs_more_than_chance_at_the_claims_count(tmp_path):
    """The n-gram and baseline flags, as the others, need a difference beyond three standard errors:
    27 demo award claims flagged 'prize in' by chance at some seeds (both labels, by seed)."""
    small = audit_file(write_jsonl(tmp_path / "small.jsonl", prize_claims(1)))
    row = small["languages"]["en"]["ngrams"]["2"]["strongest"][0]
    assert row["ngram"] in ("nobel prize", "prize in") and row["npmi"] > NPMI_THRESHOLD  # strong, but 14 claims
    assert not small["flagged"], small["reasons"]
    large = audit_file(write_jsonl(tmp_path / "large.jsonl", prize_claims(10)))
    assert any("2-gram 'nobel prize'" in r or "2-gram 'prize in'" in r for r in large["reasons"]), large["reasons"]


@pytest.mark.parametrize("tokens", [[], ["one"], ["the", "capital", "of", "x"], ["巴黎", "是", "法国", "的", "首都"],
                                    ["a", "", "b"]])
def test_ngrams_are_the_words_joined_n_at_a_time(tokens):
    """Each n-gram is n consecutive words joined by a space, in order (the 1- and 2-grams, which the
    audit counts, made without a slice each)."""
    for n in (1, 2, 3):
        assert audit_text.ngrams(tokens, n) == [" ".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]
    grams = audit_text.ngrams(tokens, 1)
    grams.append("x")
    assert "x" not in tokens or tokens.count("x") == 1  # a new list, not the words themselves


def test_chinese_words_are_jiebas_cut_of_the_whole_text_each_piece_cut_once():
    """The audit cuts a Chinese claim piece by piece (jieba's runs of Han characters, letters and digits,
    and what lies between), each distinct piece once: the words are jieba's cut of the whole text,
    with Latin names, digits, dates, spaces and punctuation beside the Chinese."""
    import jieba

    texts = ["艾倫·圖靈出生於倫敦。", "Barack Obama出生于Honolulu。", "e_12345的出生地是e-678。",
             "图灵于1912年6月23日出生，不是在巴黎。", "C++和C#是语言 3.5% ", "", "   ", "《红楼梦》的作者是曹雪芹？",
             "Jean-Paul Sartre (1905–1980) 出生于巴黎第16区", "东京塔位于东京都港区芝公园", "ｅ１２全角字母出生于北京"]
    audit_text._cut.cache_clear()
    audit_text._cut_piece.cache_clear()
    for text in texts:
        assert list(audit_text._cut(text)) == jieba.lcut(text), text
    before = audit_text._cut_piece.cache_info()
    for name in ("人物甲", "人物乙", "人物丙"):
        assert list(audit_text._cut(f"{name}出生于北京。")) == jieba.lcut(f"{name}出生于北京。")
    after = audit_text._cut_piece.cache_info()
    # the three claims share their template's pieces: "。" after the first, and "出生于北京" is its
    # name's run, so each claim cuts one new piece and finds its "。" already cut
    assert after.misses - before.misses == 3 and after.hits - before.hits == 3


def test_languages_with_the_same_claims_share_their_folds_and_entity_baseline(monkeypatch):
    """A claims set says each claim in every language: the same labels, subjects and entities in the same
    order. The audit then draws the folds once for all its languages, and fits the entity-only baseline
    (its features are the entities, not the words) once; each language's report is the one it gets
    audited alone."""
    import sklearn.linear_model

    from factforge.evaluation import folds as folds_module
    from factforge.claims.fever_io import claims_of

    rows, answers = matched(seed=2)
    both, both_answers = [], {}
    for lang, said in (("en", "{} was born in {}."), ("de", "{} wurde in {} geboren.")):
        for row in rows:
            number = len(both) + 1
            answer = answers[row["id"]]
            both.append({**row, "id": number, "lang": lang, "claim": said.format(answer["subject"], answer["object"])})
            both_answers[str(number)] = {**answer, "template": f"{lang}:born"}
    claims = claims_of(enumerate(both, 1), "both.jsonl")
    alone = {lang: audit_claims([c for c in claims if c.lang == lang], answers=both_answers, seed=4)
             for lang in ("en", "de")}
    calls = Counter()
    split, fit = folds_module.group_split, sklearn.linear_model.SGDClassifier.fit

    def counted_split(*args, **kwargs):
        calls["group_split"] += 1
        return split(*args, **kwargs)

    def counted_fit(self, *args, **kwargs):
        calls["fit"] += 1
        return fit(self, *args, **kwargs)

    monkeypatch.setattr(folds_module, "group_split", counted_split)
    monkeypatch.setattr(sklearn.linear_model.SGDClassifier, "fit", counted_fit)
    report = audit_claims(claims, answers=both_answers, seed=4)
    for lang in ("en", "de"):
        assert report["languages"][lang] == alone[lang]["languages"][lang]
        assert report["languages"][lang]["baselines"]["entity_only"]["folds"] == 5
    assert calls == {"group_split": 1, "fit": 5 * (2 + 2 + 1)}  # claim-only and template-only per language
