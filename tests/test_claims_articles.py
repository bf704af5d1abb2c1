"""Claims read as a native speaker writes them: English "the", German genitives, French elision and
plural agreement, each with the real labels of FactBench and DBpedia50 that came out wrong."""
from __future__ import annotations

import re

import pytest

from factforge.claims import articles
from factforge.claims.verbalize import say
from factforge.generators.facts import Fact

from test_claims_text import DBO, real_names

DBR = "http://dbpedia.org/resource/"


def dbpedia50(*lines: str):
    """DBpedia50's facts named by ``lines`` (head TAB relation TAB tail), checked to be in the data set."""
    from conftest import DATA, need

    held = {line for name in ("train.txt", "valid.txt", "test.txt")
            for line in need(DATA / "dbpedia50" / name).read_text(encoding="utf-8").splitlines()}
    assert set(lines) <= held, set(lines) - held
    return [Fact(DBR + s, DBO + p, DBR + o) for s, p, o in (line.split("\t") for line in lines)]


def said(fact, lang, slot, names=None, negated=False, hop=None) -> str:
    return say(fact, lang, names or real_names()[0], seed=0, negated=negated, allowed=("day",), slot=slot,
               hop=hop).text


@pytest.mark.parametrize("line,slot,text", [
    ("Olga_Levina_(draughts_player)\tbirthPlace\tSoviet_Union", 0,
     "Olga Levina (draughts player) was born in the Soviet Union."),
    ("Erich_Schröter\tdeathPlace\tSoviet_Union", 0, "Erich Schröter died in the Soviet Union."),
    ("Zhang_Fakui\tcountry\tRepublic_of_China_(1912–49)", 0, "Zhang Fakui is in the Republic of China (1912–49)."),
    ("Stjepan_Mesić\tbirthPlace\tKingdom_of_Yugoslavia", 0, "Stjepan Mesić was born in the Kingdom of Yugoslavia."),
    # an apposition keeps the bare name: "the country the Republic of China" is not English
    ("Zhang_Fakui\tcountry\tRepublic_of_China_(1912–49)", 1,
     "Zhang Fakui is located in the country Republic of China (1912–49)."),
])
def test_english_names_of_states_and_unions_take_the(line, slot, text):
    """"was born in Soviet Union", "is in Republic of China" before: DBpedia50's local names."""
    (fact,) = dbpedia50(line)
    assert said(fact, "en", slot) == text


def test_factbench_united_states_takes_the_in_english_also_in_a_path():
    names, facts = real_names()
    assert said(facts["us"], "en", 0) == "Company was founded in the United States of America."
    capital = Fact(facts["us"].o, DBO + "capital", "http://ex/Washington")
    names.main[("http://ex/Town", "en")] = ("Town", "kb")
    assert said(capital, "en", 0, names, hop=(DBO + "largestCity", "http://ex/Town")) == \
        "The largest city of the capital of the United States of America is Town."


def test_a_name_that_opens_a_conjunct_keeps_its_article_lower_case():
    names, facts = real_names()
    us = facts["us"].o
    part = say(Fact(us, DBO + "isPartOf", "http://ex/America"), "en", names, seed=0, negated=False,
               allowed=("day",), slot=0)
    assert part.text.startswith("The United States of America is part of ")
    assert part.body.startswith("the United States of America is part of ")


def test_german_path_of_a_name_with_an_article_or_a_sibilant_names_it_after_the_head():
    """"Vereinigte Staaten von Amerikas Hauptstadt", "Friedrich-Wilhelm von Chappuis’ Geburtsort"
    before: a name that cannot take the -s genitive is named after the path's head noun, which takes
    its article in the slot's case (and joins a preposition: "vom Geburtsort")."""
    names, facts = real_names()
    names.main[("http://ex/Town", "de")] = ("Stadt", "kb")
    capital = Fact(facts["us"].o, DBO + "capital", "http://ex/Washington")
    assert said(capital, "de", 0, names, hop=(DBO + "largestCity", "http://ex/Town")) == \
        "Die größte Stadt von der Hauptstadt der Vereinigten Staaten von Amerika ist Stadt."
    born, = dbpedia50("Friedrich-Wilhelm_von_Chappuis\tbirthPlace\tSzubin")
    assert said(born, "de", 0, hop=(DBO + "country", DBR + "Poland")) == \
        "Der Geburtsort von Friedrich-Wilhelm von Chappuis liegt in Poland."
    assert said(born, "de", 0, hop=(DBO + "largestCity", DBR + "Poland")) == \
        "Die größte Stadt vom Geburtsort von Friedrich-Wilhelm von Chappuis ist Poland."
    language, = dbpedia50("Iran\tlanguage\tArmenian_language")
    assert said(language, "de", 1, hop=(DBO + "officialLanguage", DBR + "Armenian")).startswith(
        "Armenian ist Amtssprache in der Sprache des Irans")
    # a name that takes the -s genitive keeps it
    emel, = dbpedia50("Emel_Emin\tbirthPlace\tDobruja")
    assert said(emel, "de", 0, hop=(DBO + "country", DBR + "Bulgaria")) == "Emel Emins Geburtsort liegt in Bulgaria."


@pytest.mark.parametrize("line,slot,hop,text", [
    ("Emel_Emin\tbirthPlace\tDobruja", 1, None, "Le lieu de naissance d'Emel Emin est Dobruja."),
    ("Erich_Schröter\tbirthPlace\tGermany", 1, ("largestCity", "Capital_city"),
     "Capital city est la plus grande ville du lieu de naissance d'Erich Schröter."),
    ("Iran\tlanguage\tArmenian_language", 0, None, "La langue de l'Iran est Armenian language."),
])
def test_french_de_elides_before_a_vowel(line, slot, hop, text):
    """"de Emel Emin", "de Erich Schröter" before."""
    (fact,) = dbpedia50(line)
    assert said(fact, "fr", slot, hop=hop and (DBO + hop[0], DBR + hop[1])) == text


def test_french_path_gives_its_subject_the_article_joined_to_de():
    """"la capitale de États-Unis" before: the path's subject had no article."""
    names, facts = real_names()
    names.main[("http://ex/Town", "fr")] = ("Ville", "kb")
    capital = Fact(facts["us"].o, DBO + "capital", "http://ex/Washington")
    assert said(capital, "fr", 0, names, hop=(DBO + "largestCity", "http://ex/Town")) == \
        "La plus grande ville de la capitale des États-Unis est Ville."


def test_french_h_and_y_of_listed_names_do_not_elide_the_article():
    """Hongrie, Honduras and Yémen begin with an h aspiré or a consonant y: "la Hongrie", not "l'Hongrie"."""
    fr = articles.load("fr")
    assert [fr.phrase(n, "nom") for n in ("Hongrie", "Honduras", "Yémen", "Iran", "Équateur")] == \
        ["la Hongrie", "le Honduras", "le Yémen", "l'Iran", "l'Équateur"]


@pytest.mark.parametrize("lang,key,slot,negated,text", [
    ("de", "us", 1, False, "Der Gründungsort von Company sind die Vereinigten Staaten von Amerika."),
    ("de", "us", 1, True, "Der Gründungsort von Company sind nicht die Vereinigten Staaten von Amerika."),
])
def test_a_german_copula_agrees_with_a_plural_name(lang, key, slot, negated, text):
    """"Der Gründungsort von Palm ist die Vereinigten Staaten von Amerika" before (FactBench, German)."""
    names, facts = real_names()
    assert said(facts[key], lang, slot, names, negated) == text


@pytest.mark.parametrize("lang,slot,text", [
    ("de", 1, "Die Vereinigten Staaten von Amerika gehören zu Amerika."),
    ("fr", 0, "Les États-Unis font partie d'Amérique."),
    ("en", 0, "The United States of America is part of America."),
])
def test_a_verb_after_a_plural_subject_agrees(lang, slot, text):
    names, facts = real_names()
    for code, name in (("de", "Amerika"), ("fr", "Amérique"), ("en", "America")):
        names.main[("http://ex/America", code)] = (name, "kb")
    assert said(Fact(facts["us"].o, DBO + "isPartOf", "http://ex/America"), lang, slot, names) == text


@pytest.mark.parametrize("lang,label,text", [
    ("en", "Netherlands, The", "Barend Biesheuvel held the office of the Netherlands."),
    ("en", "The Netherlands", "Barend Biesheuvel held the office of the Netherlands."),
    ("en", "Hague, The", "Barend Biesheuvel held the office of the Hague."),  # FactBench's, of The Hague
    ("fr", "Les Pays-Bas", "Barend Biesheuvel a occupé la fonction des Pays-Bas."),
    ("en", "The Beatles", "Barend Biesheuvel held the office of The Beatles."),  # a title keeps its own
])
def test_a_label_with_its_own_article_is_said_with_the_slots_one(lang, label, text):
    """FactBench's aliases of the Netherlands (dbr:Netherlands in its leader models) carry the article
    ("Netherlands, The", "The Netherlands", "Les Pays-Bas"): "held the office of Netherlands, The"
    before. An inverted one ("X, The") always takes it; one in front only where the rest is a name that
    takes it, so a title ("The Beatles") is kept as it is."""
    from conftest import FACTBENCH, need
    import rdflib

    model = rdflib.Graph().parse(need(FACTBENCH / "wrong" / "date" / "leader" / "leader_00038.ttl"))
    netherlands = rdflib.URIRef(DBR + "Netherlands")
    real = {(str(alias), alias.language) for alias in model.objects(netherlands, rdflib.SKOS.altLabel)}
    assert {("Netherlands, The", "en"), ("The Netherlands", "en"), ("Les Pays-Bas", "fr")} <= real
    names = real_names()[0]
    names.main[(DBR + "Barend_Biesheuvel", lang)] = ("Barend Biesheuvel", "kb")
    names.main[(str(netherlands), lang)] = (label, "kb")
    assert said(Fact(DBR + "Barend_Biesheuvel", DBO + "office", str(netherlands)), lang, 0, names) == text


def test_a_names_class_is_kept_apart_from_a_label_files_and_the_kept_names_stay_few(monkeypatch):
    """``Articles._named`` keeps what it found of a name said without a label file's classes: a class a
    label file gives the same name is not taken from what was kept, nor put in it, and past
    ``KEPT_NAMES`` names the kept ones are let go (a server says names of many KBs)."""
    de = articles.load("de")
    monkeypatch.setattr(articles, "KEPT_NAMES", 3)
    de._kept.clear()
    assert de.phrase("Schweiz", "dat") == "der Schweiz"
    assert de.phrase("Kanada", "dat") is None
    assert de.phrase("Kanada", "dat", {"Kanada": "n"}) == "dem Kanada"  # a label file's class, this call only
    assert de.phrase("Kanada", "dat") is None and de.kind("Kanada") is None
    assert set(de._kept) == {"Schweiz", "Kanada"}
    for name in ("Irak", "Iran", "Jemen"):
        de.kind(name)
    assert len(de._kept) <= 3
    assert de.phrase("Schweiz", "gen") == "der Schweiz"


def plain_join(text, slot, phrase, contractions, elisions=(), own=()):
    """``articles.join`` trying every contraction, as it did before it tried only those a phrase's first
    character leaves (``articles._may_contract``)."""
    for preposition, article, joined in contractions:
        spaced = phrase.startswith(article + " ") or (phrase.startswith(article.capitalize() + " ")
                                                      and article.capitalize() in own)
        if (spaced or (article.endswith("'") and phrase.startswith(article))) and f"{preposition} {slot}" in text:
            return text.replace(f"{preposition} {slot}", f"{joined} {phrase[len(article) + spaced:]}", 1)
    return articles.join(text, slot, phrase, (), elisions, own)


def test_join_tries_only_the_contractions_a_phrase_may_take_and_joins_as_trying_all():
    """Each language's contractions, with names that take each article, its capitalised form (a label's
    own article, where listed as one and where not), an elided one, a word that merely begins like an
    article, no article, and an empty name, in every slot position of the contractions' prepositions:
    the same text as trying every contraction."""
    slot = "\x02"
    for lang in ("de", "fr"):
        said = articles.load(lang)
        words = {w for c in said.contractions for w in c[:2]} | {"l'", "la", "Le", "Les", "Der", "Das", "dem"}
        phrases = [""] + [f"{w}{gap}{rest}" for w in sorted(words) for gap in (" ", "")
                          for rest in ("Mans", "Irak", "Émirats", "")] + ["Anna", "Der", "E516671", "île"]
        texts = [f"{p} {slot} x" for p, _, _ in said.contractions] + [f"x {slot}", f"{slot} y", f"de {slot}"]
        cases = [(contractions, own) for contractions in (said.contractions, (("in", "", "i"),) + said.contractions)
                 for own in ((), said.own or (), tuple(said.own or ()) + ("La",))]
        for contractions, own in cases:
            for text in texts:
                for phrase in phrases:
                    assert articles.join(text, slot, phrase, contractions, said.elisions, own) == \
                        plain_join(text, slot, phrase, contractions, said.elisions, own), (lang, text, phrase, own)
        assert articles._may_contract(said.contractions, "E") == ()  # a name taking no article tries none


# the entity kinds of an article file (``own_typed``, ``titled``): a malformed file is one clear error


def article_file(tmp_path, **changed):
    """The package's German article file with ``changed`` keys (None: the key left out), written to a folder."""
    import json
    from importlib import resources

    data = json.loads((resources.files("factforge.claims") / "articles" / "de.json").read_text("utf-8"))
    for key, value in changed.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    path = tmp_path / "de.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_the_package_article_files_read_as_the_loader_reads_them(tmp_path):
    """The written copy of the unchanged file reads as the package's own does, so the malformed ones
    below differ from a good file only in the key they change."""
    assert articles.read(article_file(tmp_path), "de") == articles.load("de")


@pytest.mark.parametrize("key", ["own_typed", "titled"])
@pytest.mark.parametrize("value,why", [
    ("place", "a string, not a list"),
    ({"place": True}, "an object"),
    (["agent"], "a kind of entity the claims do not read"),
    (["Place"], "a kind spelt otherwise"),
    ([1], "not a string"),
    ([["place"]], "a list in the list"),  # unhashable: a TypeError before
    ([{"kind": "place"}], "an object in the list"),
])
def test_a_malformed_entity_kind_list_is_an_error_naming_the_file_and_key(tmp_path, key, value, why):
    path = article_file(tmp_path, **{key: value})
    with pytest.raises(articles.ArticlesError,
                       match=re.escape(f"{path}: {key!r} must list kinds of entity among place and work")):
        articles.read(path, "de")


@pytest.mark.parametrize("key", ["own_typed", "titled"])
def test_entity_kinds_without_an_own_article_are_an_error(tmp_path, key):
    """Both say what a label's own article ("own") is for an entity of a kind: without "own" the key
    would be read and do nothing."""
    path = article_file(tmp_path, own=None, **{key: ["place"], ("titled" if key == "own_typed" else "own_typed"): None})
    with pytest.raises(articles.ArticlesError, match=re.escape(f"{path}: {key!r} needs 'own'")):
        articles.read(path, "de")


def test_a_kind_both_titled_and_own_typed_is_an_error(tmp_path):
    """A titled kind's own article is never declined, an own_typed kind's is: a kind in both says two things."""
    path = article_file(tmp_path, own_typed=["place", "work"], titled=["work"])
    with pytest.raises(articles.ArticlesError,
                       match=re.escape(f"{path}: 'titled' and 'own_typed' both list work: a title's own article "
                                       "is said whole, never declined")):
        articles.read(path, "de")


def test_an_unreadable_article_file_names_it(tmp_path):
    path = tmp_path / "de.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(articles.ArticlesError, match=re.escape(f"{path}: cannot read")):
        articles.read(path, "de")


@pytest.mark.parametrize("label,case,said", [
    # weak and mixed nouns: "des Herrs der Ringe", "des kleinen Prinzs", "dem Name der Rose" before
    ("Der Herr der Ringe", "gen", "des Herrn der Ringe"),
    ("Der Herr der Ringe", "dat", "dem Herrn der Ringe"),
    ("Der kleine Prinz", "gen", "des kleinen Prinzen"),
    ("Der kleine Prinz", "acc", "den kleinen Prinzen"),
    ("Der Name der Rose", "gen", "des Namens der Rose"),
    ("Der Name der Rose", "dat", "dem Namen der Rose"),
    ("Das Herz der Finsternis", "gen", "des Herzens der Finsternis"),
    ("Das Herz der Finsternis", "dat", "dem Herzen der Finsternis"),
    ("Der Seelöwe", "gen", "des Seelöwen"),  # a compound ending in one
    # a comma after the head noun is not part of it: "des Stoff, aus dem ..." before
    ("Der Stoff, aus dem die Träume sind", "gen", "des Stoffs, aus dem die Träume sind"),
    # the strong nouns as before
    ("Der Spiegel", "gen", "des Spiegels"),
    ("Der große Eisenbahnraub", "gen", "des großen Eisenbahnraubs"),
    ("Der Bauernhof", "gen", "des Bauernhofs"),  # "Bauer" begins it, does not end it
])
def test_german_head_nouns_of_the_weak_declension_and_before_a_comma(label, case, said):
    assert articles.load("de").phrase(label, case) == said


@pytest.mark.parametrize("value", [
    ["Herr"], {"Herr": "Herrn"}, {"Herr": {}}, {"Herr": {"gen": ""}}, {"Herr": {"genitive": "Herrn"}}, {"": {"gen": "x"}},
])
def test_a_malformed_weak_noun_list_is_an_error_naming_the_file_and_key(tmp_path, value):
    path = article_file(tmp_path, weak_nouns=value)
    with pytest.raises(articles.ArticlesError, match=re.escape(f"{path}: 'weak_nouns' must map nouns")):
        articles.read(path, "de")


def test_weak_nouns_without_weak_endings_are_an_error(tmp_path):
    path = article_file(tmp_path, weak_en=None)
    with pytest.raises(articles.ArticlesError, match=re.escape(f"{path}: 'weak_nouns' must map nouns")):
        articles.read(path, "de")
