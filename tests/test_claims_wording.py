"""Claims read as written (issue 15): one full stop, a grammatical fallback for a predicate without a
template, French and German labels that carry their own article, English names in German text,
French gender of people, with the real labels of FactBench, DBpedia50 and the DBpedia ontology."""
from __future__ import annotations

import pytest
import rdflib

from factforge.claims.names import Names, kb_names
from factforge.claims.verbalize import conjoin, say
from factforge.generators.facts import Fact

from conftest import DATA, FACTBENCH, need, store_from_text
from test_claims_articles import DBR, dbpedia50, said
from test_claims_text import DBO

FB = "http://rdf.freebase.com/ns/"


def model_names(*paths: str) -> Names:
    """The rdfs:label names FactBench train's models give their entities, by language."""
    names = Names()
    for path in paths:
        model = rdflib.Graph().parse(need(FACTBENCH / path))
        for entity, label in model.subject_objects(rdflib.RDFS.label):
            names.main[(str(entity), label.language)] = (str(label), "kb")
    return names


def say_it(fact, lang, names, slot=0, negated=False, hop=None):
    return say(fact, lang, names, seed=0, negated=negated, allowed=("day",), slot=slot, hop=hop)


# 1. one full stop


def test_a_name_that_ends_a_sentence_with_its_own_stop_gets_no_second_one():
    """"IBM owns Tivoli Systems, Inc.." and "... a subsidiary of Yahoo!." before (FactBench subsidiary)."""
    names = model_names("correct/subsidiary/subsidiary_00072.ttl", "correct/subsidiary/subsidiary_00088.ttl")
    tivoli = Fact(FB + "m.03sc8", DBO + "subsidiary", FB + "m.09rpsc")
    egroups = Fact(FB + "m.019rl6", DBO + "subsidiary", FB + "m.03jzfv")
    assert say_it(tivoli, "en", names, slot=1).text == "IBM owns Tivoli Systems, Inc."
    assert say_it(tivoli, "en", names, slot=1, negated=True).text == "IBM does not own Tivoli Systems, Inc."
    yahoo = say_it(egroups, "en", names, slot=0)
    assert yahoo.text.endswith("is a subsidiary of Yahoo!")
    # a conjunction whose first part ends in the name's stop keeps it, and ends once
    joined = conjoin(say_it(tivoli, "en", names, slot=1), yahoo, "en")
    assert joined == "IBM owns Tivoli Systems, Inc., and eGroups is a subsidiary of Yahoo!"
    # a sentence that ends otherwise still gets its stop
    assert say_it(egroups, "en", names, slot=1).text == "Yahoo! owns eGroups."


def test_a_question_mark_title_ends_the_sentence_in_french_too():
    names = model_names("correct/publicationDate/publicationDate_00002.ttl")
    book = next(e for (e, lang), (n, _) in names.main.items() if lang == "fr" and n.endswith("?"))
    names.main[("http://ex/pkd", "fr")] = ("Philip K. Dick", "kb")
    text = say_it(Fact("http://ex/pkd", DBO + "author", book), "fr", names, slot=1).text
    assert text.endswith("électriques ?") and not text.endswith("?.")


# 2. the generic wording of a predicate without a template


def ontology_labels(*local: str) -> Names:
    """The DBpedia ontology's own labels of ``local`` predicates, in every language it gives."""
    graph = rdflib.Graph().parse(need(DATA / "dbpedia-ontology" / "dbo-2018.12.28.ttl"))
    names = Names()
    for name in local:
        for label in graph.objects(rdflib.URIRef(DBO + name), rdflib.RDFS.label):
            names.main[(DBO + name, label.language)] = (str(label), "kb")
    return names


@pytest.fixture(scope="module")
def ontology():
    names = ontology_labels("knownFor", "closeTo", "owningCompany", "locatedInArea", "influencedBy",
                            "isPartOfMilitaryConflict")
    for lang in ("en", "de", "fr", "zh"):
        names.main[("http://ex/a", lang)] = ("Ann", "kb")
        names.main[("http://ex/b", lang)] = ("Bea", "kb")
    return names


def generic(names, predicate, lang, slot=0, negated=False, **label):
    return say_it(Fact("http://ex/a", predicate, "http://ex/b"), lang, names, slot, negated).text


@pytest.mark.parametrize("local,lang,negated,texts", [
    # a relation phrase (a participle or noun with its preposition): "X is <label> Y"
    ("knownFor", "en", False, {"Ann is known for Bea."}),
    ("knownFor", "en", True, {"Ann is not known for Bea."}),
    ("closeTo", "en", False, {"Ann is close to Bea."}),  # the label's own "is" is not said twice
    ("locatedInArea", "en", False, {"Ann is located in area Bea."}),
    ("influencedBy", "en", True, {"Ann is not influenced by Bea."}),
    ("knownFor", "de", False, {"Ann ist bekannt für Bea."}),
    ("influencedBy", "de", False, {"Ann ist beeinflusst durch Bea."}),
    # a label that says its own copula and no preposition: the object after a colon
    ("isPartOfMilitaryConflict", "en", False, {"Ann is part of military conflict: Bea."}),
    ("isPartOfMilitaryConflict", "de", True, {"Ann ist nicht Teil des militärischen Konflikts: Bea."}),
    ("knownFor", "de", True, {"Ann ist nicht bekannt für Bea."}),
    # a noun: "the <label> of X is Y"
    ("owningCompany", "en", False, {"The owning company of Ann is Bea.", "Ann has Bea as owning company."}),
    ("owningCompany", "de", False, {"Besitzerfirma von Ann: Bea.", "Ann hat als Besitzerfirma Bea."}),
    # French labels of relations ("connu pour", "à côté de") are named, not conjugated
    ("knownFor", "fr", False, {"La relation « connu pour » relie Ann à Bea."}),
    ("closeTo", "fr", True, {"La relation « à côté de » ne relie pas Ann à Bea."}),
    # no label in the language: the local name in words, named as a relation
    ("locatedInArea", "de", False, {"Ann steht in der Beziehung „located in area“ zu Bea."}),
    ("locatedInArea", "fr", False, {"La relation « located in area » relie Ann à Bea."}),
    ("knownFor", "zh", False, {"Ann与Bea之间存在“known for”关系。"}),
    ("knownFor", "zh", True, {"Ann与Bea之间不存在“known for”关系。"}),
])
def test_a_predicate_without_a_template_is_said_grammatically(ontology, local, lang, negated, texts):
    """"The known for of Ann is Bea" before."""
    said_in = {generic(ontology, DBO + local, lang, slot, negated) for slot in range(4)}
    assert said_in == texts


def test_a_local_name_is_split_at_its_camel_case_and_said_by_its_kind():
    names = Names()
    for entity, name in (("http://ex/a", "Ann"), ("http://ex/b", "Bea")):
        names.main[(entity, "en")] = (name, "kb")
    assert generic(names, "http://ex/knownFor", "en") == "Ann is known for Bea."
    assert {generic(names, "http://ex/hasChild", "en", slot) for slot in (0, 1)} == \
        {"The child of Ann is Bea.", "Ann has Bea as child."}


def test_the_generic_wording_is_chosen_alike_for_a_true_and_a_false_fact(ontology):
    for n in range(20):
        true = Fact(f"http://ex/s{n}", DBO + "knownFor", "http://ex/b")
        false = Fact(f"http://ex/s{n}", DBO + "knownFor", "http://ex/a")
        for lang in ("en", "de", "fr", "zh"):
            a = say(true, lang, ontology, seed=5, negated=False, allowed=("day",))
            b = say(false, lang, ontology, seed=5, negated=False, allowed=("day",))
            assert a.template == b.template and a.generic


# 3. labels that carry their own article


@pytest.mark.parametrize("path,label,lang,slot,text", [
    ("wrong/date/publicationDate/publicationDate_00038.ttl", "Le Facteur", "fr", 0, "Ann est l'auteur du Facteur."),
    ("wrong/date/publicationDate/publicationDate_00000.ttl", "Les Cavernes d'acier", "fr", 0,
     "Ann est l'auteur des Cavernes d'acier."),
    ("wrong/date/publicationDate/publicationDate_00092.ttl", "Der Ewige Krieg", "de", 0,
     "Ann ist der Autor vom Ewigen Krieg."),
    ("wrong/date/publicationDate/publicationDate_00092.ttl", "Der Ewige Krieg", "de", 1, "Ann schrieb den Ewigen Krieg."),
])
def test_a_title_with_its_own_article_joins_the_preposition(path, label, lang, slot, text):
    """"l'auteur de Le Facteur", "der Autor von Der Ewige Krieg" before (FactBench's own labels)."""
    names = model_names(path)
    book = next(e for (e, code), (n, _) in names.main.items() if code == lang and n == label)
    names.main[("http://ex/a", lang)] = ("Ann", "kb")
    assert say_it(Fact("http://ex/a", DBO + "author", book), lang, names, slot).text == text


def test_a_french_city_with_its_own_article_keeps_it_capitalised_where_it_is_not_joined():
    names = Names()
    names.main[("http://ex/a", "fr")] = ("Ann", "kb")
    names.main[("http://ex/lm", "fr")] = ("Le Mans", "kb")
    born = Fact("http://ex/a", DBO + "birthPlace", "http://ex/lm")
    assert say_it(born, "fr", names, 1).text == "Le lieu de naissance d'Ann est Le Mans."
    names.genders = {"http://ex/a": "f"}
    assert say_it(born, "fr", names, 0).text == "Ann est née au Mans."
    names.main[("http://ex/fr", "fr")] = ("France", "kb")
    assert say_it(Fact("http://ex/lm", DBO + "country", "http://ex/fr"), "fr", names, 0).text == \
        "Le Mans se trouve en France."


@pytest.mark.parametrize("fact,slot,hop,text", [
    (("a", "author", "oz"), 0, None, "Ann ist der Autor von „Die Smaragdstadt“."),
    (("oz", "birthPlace", "b"), 1, None, "Der Geburtsort von „Die Smaragdstadt“ ist Bea."),
    # where "die" stays "die" (nominative, accusative) the title is said as written
    (("a", "author", "oz"), 1, None, "Ann schrieb Die Smaragdstadt."),
    (("oz", "birthPlace", "b"), 0, None, "Die Smaragdstadt wurde in Bea geboren."),
    # a path's subject: no -s genitive on a title ("Die Smaragdstadts Geburtsort"), named after the head
    (("oz", "birthPlace", "m"), 0, ("capital", "b"), "Die Hauptstadt vom Geburtsort von „Die Smaragdstadt“ ist Bea."),
])
def test_a_german_title_whose_article_could_be_plural_is_quoted_whole_where_the_article_would_change(
        fact, slot, hop, text):
    """"Die" is feminine or plural ("Die Smaragdstadt", "Die Ärzte"): the dative is "der" or "den", so
    declined it would be wrong half the time, and "von Die Smaragdstadt" (before) is wrong always. The
    title is kept whole in quotation marks, as German usage allows for a title left undeclined (Duden
    Grammatik §810: "mit „Der Richter und sein Henker“"; canoo/leo: "der Autor von „Der Steppenwolf“")."""
    names = Names()
    for entity, name in (("a", "Ann"), ("b", "Bea"), ("oz", "Die Smaragdstadt")):
        names.main[("http://ex/" + entity, "de")] = (name, "kb")
    s, p, o = fact
    path = (DBO + hop[0], "http://ex/" + hop[1]) if hop else None
    assert say(Fact("http://ex/" + s, DBO + p, "http://ex/" + o), "de", names, seed=0, negated=False,
               allowed=("day",), slot=slot, hop=path).text == text


def test_a_german_label_die_before_a_name_that_takes_the_article_is_declined_not_quoted():
    from factforge.claims.articles import load

    assert [load("de").phrase("Die Niederlande", case) for case in ("nom", "dat", "gen")] == \
        ["die Niederlande", "den Niederlanden", "der Niederlande"]


# 4. English names in German text


@pytest.mark.parametrize("line,slot,text", [
    ("Olga_Levina_(draughts_player)\tbirthPlace\tSoviet_Union", 0,
     "Olga Levina (draughts player) wurde in der Soviet Union geboren."),
    ("Stjepan_Mesić\tbirthPlace\tKingdom_of_Yugoslavia", 0, "Stjepan Mesić wurde im Kingdom of Yugoslavia geboren."),
    ("Zhang_Fakui\tcountry\tRepublic_of_China_(1912–49)", 0, "Zhang Fakui liegt in der Republic of China (1912–49)."),
    # a country or a city takes none in German either
    ("Friedrich-Wilhelm_von_Chappuis\tbirthPlace\tSzubin", 0, "Friedrich-Wilhelm von Chappuis wurde in Szubin geboren."),
])
def test_an_english_name_in_german_text_takes_the_article_german_needs(line, slot, text):
    """DBpedia50 has no German labels: its English local names were said without the article German
    needs ("wurde in Soviet Union geboren")."""
    (fact,) = dbpedia50(line)
    assert said(fact, "de", slot) == text


# 5. French gender of people


GENDERS = """
    @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
    @prefix foaf: <http://xmlns.com/foaf/0.1/> .
    @prefix dbo: <http://dbpedia.org/ontology/> .
    @prefix wdt: <http://www.wikidata.org/prop/direct/> .
    @prefix wd: <http://www.wikidata.org/entity/> .
    <http://ex/ann> rdfs:label "Ann"@fr ; foaf:gender "female"@en .
    <http://ex/bob> rdfs:label "Bob"@fr ; dbo:gender <http://dbpedia.org/resource/Male> .
    <http://ex/cleo> rdfs:label "Cléo"@fr ; wdt:P21 wd:Q6581072 .
    <http://ex/dom> rdfs:label "Dom"@fr .
    <http://ex/paris> rdfs:label "Paris"@fr .
"""


@pytest.mark.parametrize("person,predicate,slot,negated,text", [
    ("ann", "birthPlace", 0, False, "Ann est née à Paris."),
    ("ann", "birthPlace", 0, True, "Ann n'est pas née à Paris."),
    ("bob", "birthPlace", 0, False, "Bob est né à Paris."),
    ("cleo", "deathPlace", 0, False, "Cléo est morte à Paris."),
    ("cleo", "spouse", 0, False, "Cléo a été mariée à Bob."),
    # no gender in the KB: a wording that agrees with none, never a guess from the name
    ("dom", "birthPlace", 0, False, "Dom a vu le jour à Paris."),
    ("dom", "birthPlace", 0, True, "Dom n'a pas vu le jour à Paris."),
    ("dom", "deathPlace", 0, False, "Le décès de Dom a eu lieu à Paris."),
    ("dom", "spouse", 0, True, "Il n'y a pas eu de mariage entre Dom et Bob."),
    # "Cléo est diplômé", "Ann a été employé" before: the masculine whatever the KB said
    ("cleo", "almaMater", 1, False, "Cléo est diplômée de Bob."),
    ("dom", "almaMater", 1, True, "Dom n'a pas obtenu de diplôme de Bob."),
    ("cleo", "award", 1, False, "Cléo a été récompensée par la distinction Bob."),
    ("dom", "award", 1, False, "Dom a obtenu la distinction Bob."),
    ("ann", "employer", 1, True, "Ann n'a pas été employée par Bob."),
    ("dom", "employer", 1, False, "Dom a eu pour employeur Bob."),
    ("ann", "associatedBand", 0, False, "Ann est associée au groupe Bob."),
    ("dom", "associatedBand", 0, True, "Dom n'a pas de lien avec le groupe Bob."),
    ("ann", "associatedBand", 1, False, "Ann s'est produite avec Bob."),
    ("dom", "associatedBand", 1, False, "Dom a joué avec Bob."),
    ("cleo", "associatedMusicalArtist", 1, False, "Cléo est associée au musicien Bob."),
    ("dom", "associatedMusicalArtist", 1, False, "Dom a un lien avec le musicien Bob."),
])
def test_french_participles_agree_with_the_gender_the_kb_gives(tmp_path, person, predicate, slot, negated, text):
    store = store_from_text(tmp_path, "kb.ttl", GENDERS)
    people = [f"http://ex/{p}" for p in ("ann", "bob", "cleo", "dom", "paris")]
    names = kb_names(store, people, ["fr"])
    fact = Fact(f"http://ex/{person}", DBO + predicate,
                "http://ex/" + ("paris" if predicate in ("birthPlace", "deathPlace") else "bob"))
    assert say_it(fact, "fr", names, slot, negated).text == text


def test_a_template_that_agrees_with_a_gender_needs_neutral_forms_and_kinds_need_templates():
    from factforge.claims.templates import TemplateFileError, _label_kinds, _templates

    entry = {"id": "born.1", "text": "{s} est {s?né|née} à {o}", "negated": "{s} n'est pas {s?né|née} à {o}"}
    with pytest.raises(TemplateFileError, match="fr.json: born.1: .* needs a neutral form that does not"):
        _templates("fr.json", "x", [entry], ("s", "o"))
    with pytest.raises(TemplateFileError, match="fr.json: born.1: negated_neutral must use the slots and cases"):
        _templates("fr.json", "x", [dict(entry, neutral="{s} a vu le jour à {o}", negated_neutral="{s} n'a pas vu le jour")],
                   ("s", "o"))
    made = _templates("fr.json", "x", [dict(entry, neutral="{s} a vu le jour à {o}",
                                            negated_neutral="{s} n'a pas vu le jour à {o}")], ("s", "o"))[0]
    assert made.fill(negated=False, gender="f", s="Ann", o="Paris") == "Ann est née à Paris"
    assert made.fill(negated=True, s="Dom", o="Paris") == "Dom n'a pas vu le jour à Paris"
    with pytest.raises(TemplateFileError, match=r"en.json: label kinds \['verb'\] have no generic_kinds entry"):
        _label_kinds("en.json", {"label_kinds": [["verb", "^(?P<p>.+s)$"]]}, {"noun"})


# 6. the middle of a path through a predicate without a template, by the kind of its label


@pytest.mark.parametrize("local,lang,slot,text", [
    # a noun: "the <label> of X" (a label "has X" says its noun)
    ("owningCompany", "en", 0, "The capital of the owning company of Ann is Bea."),
    # a relation phrase or a finite verb: a relative clause
    ("knownFor", "en", 0, "The capital of what Ann is known for is Bea."),
    ("influencedBy", "en", 1, "Bea is the capital of what Ann is influenced by."),
    ("owns", "en", 0, "The capital of what Ann owns is Bea."),
    # a label with its own copula and a noun after its preposition: the noun, then a relative clause
    # ("the object of “Ann is part of military conflict”" before)
    ("isPartOfMilitaryConflict", "en", 0, "The capital of the military conflict Ann is part of is Bea."),
    ("owningCompany", "de", 0, "Die Hauptstadt von Anns Besitzerfirma ist Bea."),
    ("knownFor", "de", 0, "Die Hauptstadt von dem, wozu Ann in der Beziehung „bekannt für“ steht, ist Bea."),
    # the relative clause's closing comma is not said before the sentence's end
    ("knownFor", "de", 1, "Bea ist die Hauptstadt von dem, wozu Ann in der Beziehung „bekannt für“ steht."),
    ("owns", "de", 0, "Die Hauptstadt von dem, wozu Ann in der Beziehung „owns“ steht, ist Bea."),
    ("knownFor", "fr", 0, "La capitale de l'entité à laquelle la relation « connu pour » relie Ann est Bea."),
    ("knownFor", "zh", 0, "与Ann存在“known for”关系的实体的首都是Bea。"),
])
def test_a_path_through_a_predicate_without_a_template_says_its_middle_by_the_kind_of_its_label(
        ontology, local, lang, slot, text):
    """"The capital of the known for of Ann" before, in every language."""
    fact = Fact("http://ex/a", DBO + local, "http://ex/m")
    said_it = say(fact, lang, ontology, seed=0, negated=False, allowed=("day",), slot=slot,
                  hop=(DBO + "capital", "http://ex/b"))
    assert said_it.text == text and said_it.generic


def test_a_copula_label_without_a_noun_after_a_preposition_names_the_statement():
    """A copula label that cannot be split into a relation and its noun is named whole."""
    names = Names()
    for entity, name in (("http://ex/a", "Ann"), ("http://ex/b", "Bea"), (DBO + "peerReviewed", "is peer reviewed")):
        names.main[(entity, "en")] = (name, "kb")
    fact = Fact("http://ex/a", DBO + "peerReviewed", "http://ex/m")
    said_it = say(fact, "en", names, seed=0, negated=False, allowed=("day",), slot=0,
                  hop=(DBO + "capital", "http://ex/b"))
    assert said_it.text == "The capital of the object of “Ann is peer reviewed” is Bea."


def test_a_path_split_phrase_uses_the_subject_and_its_expressions_groups():
    from factforge.claims.templates import TemplateFileError, _split

    split = "^(?P<relation>.+ of) (?P<thing>.+)$"
    pattern, _ = _split("en.json", "copula", [split, "the {thing} {s} is {relation}"])
    assert pattern.search("part of military conflict").groupdict() == \
        {"relation": "part of", "thing": "military conflict"}
    with pytest.raises(TemplateFileError, match="copula: the phrase uses {s} and the expression's groups"):
        _split("en.json", "copula", [split, "the {thing} {s} is {p}"])
    with pytest.raises(TemplateFileError, match=r"copula: expected \[regular expression, phrase\]"):
        _split("en.json", "copula", "the {p} of {s}")


def test_a_path_clause_agrees_with_a_plural_subject(ontology):
    names = Names(main=dict(ontology.main), articles={"de": {"Niederlande": "pl"}})
    names.main[("http://ex/nl", "de")] = ("Niederlande", "kb")
    fact = Fact("http://ex/nl", DBO + "knownFor", "http://ex/m")
    assert say(fact, "de", names, seed=0, negated=False, allowed=("day",), slot=0,
               hop=(DBO + "capital", "http://ex/b")).text == \
        "Die Hauptstadt von dem, wozu die Niederlande in der Beziehung „bekannt für“ stehen, ist Bea."


# 7. English finite verbs


@pytest.mark.parametrize("negated,text", [(False, "Ann owns Bea."), (True, "Ann does not own Bea.")])
def test_an_english_label_that_is_a_finite_verb_is_said_as_a_verb(ontology, negated, text):
    """"The owns of Ann is Bea" and "Ann has Bea as owns" before."""
    assert {generic(ontology, DBO + "owns", "en", slot, negated) for slot in range(4)} == {text}


@pytest.mark.parametrize("local,negated,text", [
    ("employs", False, "Ann employs Bea."), ("employs", True, "Ann does not employ Bea."),
    ("crosses", True, "Ann does not cross Bea."), ("supplies", True, "Ann does not supply Bea."),
])
def test_a_local_name_that_is_a_finite_verb_is_said_as_one(local, negated, text):
    names = Names()
    for entity, name in (("http://ex/a", "Ann"), ("http://ex/b", "Bea")):
        names.main[(entity, "en")] = (name, "kb")
    assert generic(names, "http://ex/" + local, "en", 0, negated) == text


# 8. English names in German text keep their English form


@pytest.mark.parametrize("name,case,phrase", [
    ("Ottoman Empire", "gen", "des Ottoman Empire"),
    ("Kingdom of Yugoslavia", "gen", "des Kingdom of Yugoslavia"),
    ("Middle East", "dat", "dem Middle East"),
    ("Free State of Prussia", "dat", "dem Free State of Prussia"),
    # a German name is still declined
    ("Osmanisches Reich", "gen", "des Osmanischen Reichs"),
    ("Vereinigte Staaten", "dat", "den Vereinigten Staaten"),
])
def test_an_english_name_standing_for_a_german_one_takes_the_article_but_no_german_ending(name, case, phrase):
    """"des Ottoman Empires", "dem Middlen East" before: the -s genitive and the weak adjective ending
    belong to German words."""
    from factforge.claims.articles import load

    assert load("de").phrase(name, case) == phrase


def test_an_english_name_in_a_german_path_takes_no_genitive_s():
    (fact,) = dbpedia50("Kingdom_of_Hanover\tcapital\tHanover")
    assert said(fact, "de", 0, hop=(DBO + "country", DBR + "Germany")) == \
        "Die Hauptstadt des Kingdom of Hanover liegt in Germany."


# 9. an initial Le/Les that is not the label's own article


FRENCH_PEOPLE = GENDERS + """
    <http://ex/les> rdfs:label "Les Paul"@fr ; foaf:gender "male"@en .
    <http://ex/book> rdfs:label "Les Cavernes d'acier"@fr .
"""


@pytest.mark.parametrize("fact,slot,text", [
    # a person (the KB gives a gender): "Les" is a given name, no article to join
    (("cleo", "spouse", "les"), 0, "Cléo a été mariée à Les Paul."),
    (("les", "birthPlace", "paris"), 1, "Le lieu de naissance de Les Paul est Paris."),
    # a French title with its article joins the preposition, as French typography has it (Le Robert:
    # "une adaptation des Misérables", not "de Les Misérables")
    (("ann", "author", "book"), 0, "Ann est l'auteur des Cavernes d'acier."),
])
def test_a_french_les_joins_a_preposition_only_as_a_labels_own_article(tmp_path, fact, slot, text):
    """"mariée aux Paul" before."""
    store = store_from_text(tmp_path, "kb.ttl", FRENCH_PEOPLE)
    names = kb_names(store, [f"http://ex/{p}" for p in ("ann", "cleo", "les", "paris", "book")], ["fr"])
    s, p, o = fact
    assert say_it(Fact("http://ex/" + s, DBO + p, "http://ex/" + o), "fr", names, slot).text == text


@pytest.mark.parametrize("line,lang,slot,text", [
    # no label in the language: the English local name is no French or German label with its own article
    ("Les_Mutrie\tbirthPlace\tNewcastle_upon_Tyne", "fr", 1, "Le lieu de naissance de Les Mutrie est Newcastle upon Tyne."),
    ("Das_Damen\trecordLabel\tCity_Slang", "de", 1, "Das Plattenlabel von Das Damen ist City Slang."),
])
def test_a_local_name_fallback_takes_no_article_of_its_own(line, lang, slot, text):
    (fact,) = dbpedia50(line)
    assert said(fact, lang, slot) == text


# 10. French agreement with a name whose gender or number is given


@pytest.mark.parametrize("label,cls,slot,negated,text", [
    ("Société Générale", "f", 0, False, "La Société Générale a été fondée à Paris."),
    ("Société Générale", "f", 0, True, "La Société Générale n'a pas été fondée à Paris."),
    # no class given: the first form, never a guess from the name
    ("Renault", None, 0, False, "Renault a été fondé à Paris."),
])
def test_a_french_participle_agrees_with_a_name_whose_class_is_given(label, cls, slot, negated, text):
    """"La Société Générale a été fondé" before: the label file gave the name's gender and the article
    followed it, the participle did not."""
    names = Names(articles={"fr": {label: cls}} if cls else {})
    names.main[("http://ex/co", "fr")] = (label, "kb")
    names.main[("http://ex/paris", "fr")] = ("Paris", "kb")
    assert say_it(Fact("http://ex/co", DBO + "foundationPlace", "http://ex/paris"), "fr", names, slot,
                  negated).text == text


# 11. a German generic path whose subject cannot take the -s genitive


@pytest.mark.parametrize("subject,articles,slot,text", [
    # a name with an article: "von der Schweiz Besitzerfirma" before
    ("Schweiz", {"Schweiz": "f"}, 0, "Die Hauptstadt von dem, was die Schweiz als Besitzerfirma hat, ist Bea."),
    ("Schweiz", {"Schweiz": "f"}, 1, "Bea ist die Hauptstadt von dem, was die Schweiz als Besitzerfirma hat."),
    ("Niederlande", {"Niederlande": "pl"}, 0,
     "Die Hauptstadt von dem, was die Niederlande als Besitzerfirma haben, ist Bea."),
    # a title said whole: "von Die Smaragdstadts Besitzerfirma" before
    ("Die Smaragdstadt", {}, 0, "Die Hauptstadt von dem, was Die Smaragdstadt als Besitzerfirma hat, ist Bea."),
    # a name that takes the -s genitive keeps it
    ("Ann", {}, 0, "Die Hauptstadt von Anns Besitzerfirma ist Bea."),
])
def test_a_german_generic_path_names_a_subject_without_the_s_genitive_in_a_clause(
        ontology, subject, articles, slot, text):
    """The label gives no gender of its noun, so "der Besitzerfirma der Schweiz" would guess its
    article: a relative clause names the subject in the nominative, whose article the lists give."""
    names = Names(main=dict(ontology.main), articles={"de": articles})
    names.main[("http://ex/s", "de")] = (subject, "kb")
    said_it = say(Fact("http://ex/s", DBO + "owningCompany", "http://ex/m"), "de", names, seed=0, negated=False,
                  allowed=("day",), slot=slot, hop=(DBO + "capital", "http://ex/b"))
    assert said_it.text == text
    # the answers name the clause as the path's template
    assert said_it.template.endswith("<path.clause") == (subject != "Ann")


# 12. a local name's initial Le/Les is its own article where the KB types a place or a work


TYPED = """
    @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
    @prefix foaf: <http://xmlns.com/foaf/0.1/> .
    @prefix dbo: <http://dbpedia.org/ontology/> .
    @prefix dbr: <http://dbpedia.org/resource/> .
    <http://ex/ann> rdfs:label "Ann"@fr ; foaf:gender "female"@en .
    dbr:Le_Mans a dbo:City .
    dbr:Les_%C3%89boulements a dbo:Location , dbo:Town .
    dbr:Le_Chat_Bleu a dbo:Album .
    dbr:Le_Freak a dbo:MusicalArtist , dbo:Single .
    dbr:Les_Mutrie a dbo:SoccerPlayer .
    dbr:Der_Regen_f%C3%A4llt a dbo:Single .
    dbr:Le_Gl%C3%A8be a dbo:Location , dbo:Settlement .
"""


@pytest.mark.parametrize("fact,slot,text", [
    # a place (City, Town under dbo:Place in the ontology): "à Le Mans" before, "au Mans" before l3
    (("ann", "birthPlace", "Le_Mans"), 0, "Ann est née au Mans."),
    (("ann", "birthPlace", "Les_%C3%89boulements"), 0, "Ann est née aux Éboulements."),
    (("Le_Mans", "birthPlace", "France"), 1, "Le lieu de naissance du Mans est la France."),
    (("Le_Mans", "country", "France"), 0, "Le Mans se trouve en France."),  # kept where it does not change
    # a work (Album under dbo:Work)
    (("Le_Chat_Bleu", "recordLabel", "Capitol_Records"), 1, "Le label du Chat Bleu est Capitol Records."),
    # untyped, typed as an agent too, or a person: as written
    (("ann", "birthPlace", "Le_Sueur,_Minnesota"), 0, "Ann est née à Le Sueur, Minnesota."),
    (("Le_Freak", "recordLabel", "Capitol_Records"), 1, "Le label de Le Freak est Capitol Records."),
    (("Les_Mutrie", "birthPlace", "Paris"), 1, "Le lieu de naissance de Les Mutrie est Paris."),
    # German declines a place's own article, but a work's title may be a sentence (DBpedia50's song
    # "Der Regen fällt": "Das Vorgängerwerk vom Regen fällt" is wrong): said whole in quotation marks
    # where the case would change its article ("von Der Regen fällt" before)
    (("Der_Regen_f%C3%A4llt", "previousWork", "Scheiss_Liebe"), 1,
     "Das Vorgängerwerk von „Der Regen fällt“ ist Scheiss Liebe."),
    (("ann", "birthPlace", "Le_Gl%C3%A8be"), 0, "Ann est née au Glèbe."),
])
def test_a_local_names_le_is_its_own_article_where_the_kb_types_a_place_or_a_work(tmp_path, fact, slot, text):
    from factforge.sparql.loading import load_files

    store = store_from_text(tmp_path, "kb.ttl", TYPED)
    load_files(store, [need(DATA / "dbpedia-ontology" / "dbo-2018.12.28.ttl")], progress=False)
    s, p, o = fact
    subject, obj = ("http://ex/ann" if e == "ann" else DBR + e for e in (s, o))
    lang = "de" if text.startswith("Das") else "fr"
    names = kb_names(store, [subject, obj], [lang])
    assert say_it(Fact(subject, DBO + p, obj), lang, names, slot).text == text


# 13. a German work's title that begins with "Der" or "Das" is said whole, never declined


TITLES = """
    @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
    @prefix dbo: <http://dbpedia.org/ontology/> .
    <http://ex/ann> rdfs:label "Ann"@de .
    <http://ex/liebe> rdfs:label "Scheiss Liebe"@de .
    <http://ex/regen> a dbo:Single ; rdfs:label "Der Regen fällt"@de .
    <http://ex/spiegel> a dbo:Magazine ; rdfs:label "Der Spiegel"@de .
    <http://ex/boot> a dbo:Film ; rdfs:label "Das Boot"@de .
    <http://ex/haag> a dbo:City ; rdfs:label "Der Haag"@de .
"""


@pytest.mark.parametrize("fact,slot,text", [
    # a sentence: "vom Regen fällt" before
    (("regen", "previousWork", "liebe"), 1, "Das Vorgängerwerk von „Der Regen fällt“ ist Scheiss Liebe."),
    (("liebe", "previousWork", "regen"), 0, "Vor Scheiss Liebe erschien Der Regen fällt."),  # nominative: as written
    # a noun group is a title too, and the type does not tell the two apart: "vom Spiegel", "den Spiegel"
    # before; said whole as German usage allows a title left undeclined ("von „Der Spiegel“")
    (("ann", "author", "spiegel"), 0, "Ann ist der Autor von „Der Spiegel“."),
    (("ann", "author", "spiegel"), 1, "Ann schrieb „Der Spiegel“."),
    (("ann", "author", "boot"), 0, "Ann ist der Autor von „Das Boot“."),
    (("ann", "author", "boot"), 1, "Ann schrieb Das Boot."),  # "das" stays "das" in the accusative
    # a place keeps its article declined, as a place's name is ("im Haag", the older German name)
    (("ann", "birthPlace", "haag"), 0, "Ann wurde im Haag geboren."),
])
def test_a_german_works_title_with_der_or_das_is_quoted_whole_where_the_article_would_change(
        tmp_path, fact, slot, text):
    """Only the KB's type (a work, through rdfs:subClassOf) tells a title from a place; whether the
    words after the article are a sentence ("Der Regen fällt") or a noun group ("Der Spiegel") nothing
    in the KB tells, and a sentence declined is wrong always, a noun group said whole never."""
    from factforge.sparql.loading import load_files

    store = store_from_text(tmp_path, "kb.ttl", TITLES)
    load_files(store, [need(DATA / "dbpedia-ontology" / "dbo-2018.12.28.ttl")], progress=False)
    entities = [f"http://ex/{e}" for e in ("ann", "liebe", "regen", "spiegel", "boot", "haag")]
    names = kb_names(store, entities, ["de"])
    s, p, o = fact
    assert say_it(Fact("http://ex/" + s, DBO + p, "http://ex/" + o), "de", names, slot).text == text


# 14. an English verb agrees with a name the article list gives as plural


def plural_names(ontology, subject: str) -> Names:
    names = Names(main=dict(ontology.main), aliases=dict(ontology.aliases))
    names.main[("http://ex/s", "en")] = (subject, "kb")
    return names


@pytest.mark.parametrize("subject,local,hop,negated,text", [
    # a mountain range or a group of islands that is not one state is plural ("the Alps is" before)
    ("Alps", "knownFor", None, False, "The Alps are known for Bea."),
    ("Alps", "knownFor", None, True, "The Alps are not known for Bea."),
    ("Balkans", "isPartOfMilitaryConflict", None, False, "The Balkans are part of military conflict: Bea."),
    ("Canary Islands", "isPartOf", None, False, "The Canary Islands are part of Bea."),
    ("Canary Islands", "isPartOf", None, True, "The Canary Islands are not part of Bea."),
    ("Alps", "owns", None, False, "The Alps own Bea."),
    ("Alps", "owns", None, True, "The Alps do not own Bea."),
    # in a path's clause too
    ("Balkans", "isPartOfMilitaryConflict", "capital", False,
     "The capital of the military conflict the Balkans are part of is Bea."),
    ("Alps", "knownFor", "capital", False, "The capital of what the Alps are known for is Bea."),
    ("Alps", "owns", "capital", False, "The capital of what the Alps own is Bea."),
    ("Canary Islands", "isPartOf", "capital", False, "The capital of the place the Canary Islands are part of is Bea."),
    # a state whose name is plural in form takes the singular, as English has it ("the United States is")
    ("Netherlands", "knownFor", None, False, "The Netherlands is known for Bea."),
    ("Philippines", "isPartOfMilitaryConflict", "capital", False,
     "The capital of the military conflict the Philippines is part of is Bea."),
    # a name the lists do not give (a band, a title) keeps the singular: nothing tells its number
    ("The Beatles", "knownFor", None, False, "The Beatles is known for Bea."),
])
def test_an_english_verb_agrees_with_a_plural_name(ontology, subject, local, hop, negated, text):
    names = plural_names(ontology, subject)
    names.main[(DBO + "owns", "en")] = ("owns", "kb")
    names.main[("http://ex/b", "en")] = ("Bea", "kb")
    fact = Fact("http://ex/s", DBO + local, "http://ex/m" if hop else "http://ex/b")
    assert say_it(fact, "en", names, 0, negated, (DBO + hop, "http://ex/b") if hop else None).text == text


def test_an_english_label_file_gives_a_name_plural_verbs(ontology, tmp_path):
    """The fourth column of ``--labels`` (``pl``) makes a name of the user's plural."""
    names = plural_names(ontology, "Pyrenees")
    names.articles = {"en": {"Pyrenees": "pl"}}
    assert say_it(Fact("http://ex/s", DBO + "knownFor", "http://ex/b"), "en", names).text == \
        "The Pyrenees are known for Bea."


# 15. an English label with its own copula, split into its relation and the noun of its object


@pytest.mark.parametrize("local,middle", [
    # every copula label of the DBpedia ontology (2018.12.28)
    ("isPartOfMilitaryConflict", "the military conflict Ann is part of"),
    ("isPartOfWineRegion", "the wine region Ann is part of"),
    ("isPartOfAnatomicalStructure", "the anatomical structure Ann is part of"),
    # DBpedia's note of a literal's property is no noun: "the (literal) Ann is part of" before
    ("isPartOfName", "the object of “Ann is part of (literal)”"),
    ("isCityState", "the object of “Ann is a city state”"),
    ("isPeerReviewed", "the object of “Ann is peer reviewed”"),
    ("isRouteStop", "the object of “Ann is route stop”"),
])
def test_an_ontology_copula_label_is_split_where_a_noun_follows_its_relation(local, middle):
    names = ontology_labels(local)
    for entity, name in (("http://ex/a", "Ann"), ("http://ex/b", "Bea")):
        names.main[(entity, "en")] = (name, "kb")
    assert names.main[(DBO + local, "en")][0].startswith("is ")
    said_it = say_it(Fact("http://ex/a", DBO + local, "http://ex/m"), "en", names, hop=(DBO + "capital", "http://ex/b"))
    assert said_it.text == f"The capital of {middle} is Bea."


@pytest.mark.parametrize("label,middle", [
    # the relation ends at its first preposition: the object's noun may have one of its own ("the
    # directors Ann is member of board of" before)
    ("is member of board of directors", "the board of directors Ann is member of"),
    ("is a member of board of directors", "the board of directors Ann is a member of"),
    ("is part of military conflict in Europe", "the military conflict in Europe Ann is part of"),
    # the object's noun with its own article takes no second one ("the a wine region" before)
    ("is part of a wine region", "the wine region Ann is part of"),
    ("is part of the wine region", "the wine region Ann is part of"),
])
def test_a_copula_label_splits_at_its_first_preposition(label, middle):
    names = Names()
    for entity, name in (("http://ex/a", "Ann"), ("http://ex/b", "Bea"), ("http://ex/rel", label)):
        names.main[(entity, "en")] = (name, "kb")
    said_it = say_it(Fact("http://ex/a", "http://ex/rel", "http://ex/m"), "en", names,
                     hop=(DBO + "capital", "http://ex/b"))
    assert said_it.text == f"The capital of {middle} is Bea."


# 16. a French plural name, whose gender nothing gives, said without a participle that would show it


@pytest.mark.parametrize("subject,local,slot,negated,text", [
    # a label's own "Les" tells the number, not the gender ("Les Éditions de Minuit ont été fondés" before)
    ("Les Éditions de Minuit", "foundationPlace", 0, False, "Les Éditions de Minuit ont vu le jour à Paris."),
    ("Les Éditions de Minuit", "foundationPlace", 0, True, "Les Éditions de Minuit n'ont pas vu le jour à Paris."),
    ("Les Andelys", "city", 0, False, "Les Andelys se trouvent à Paris."),
    ("Les Andelys", "city", 0, True, "Les Andelys ne se trouvent pas à Paris."),
    # the lists give plural names without a gender either ("Les Philippines sont situés" before)
    ("Philippines", "country", 1, False, "Les Philippines se trouvent dans le pays Paris."),
    ("Philippines", "country", 1, True, "Les Philippines ne se trouvent pas dans le pays Paris."),
    # a singular name's gender still shows where the lists give it
    ("France", "country", 1, False, "La France est située dans le pays Paris."),
    ("Canada", "city", 0, True, "Le Canada n'est pas situé à Paris."),
    ("Renault", "foundationPlace", 0, False, "Renault a été fondé à Paris."),
])
def test_a_french_plural_subject_takes_a_wording_without_a_gendered_participle(subject, local, slot, negated, text):
    names = Names()
    names.main[("http://ex/s", "fr")] = (subject, "kb")
    names.main[("http://ex/paris", "fr")] = ("Paris", "kb")
    assert say_it(Fact("http://ex/s", DBO + local, "http://ex/paris"), "fr", names, slot, negated).text == text


def test_a_french_place_named_with_les_by_its_local_name_is_plural_without_a_gender(tmp_path):
    """DBpedia's Les_Éboulements, typed a place: its "Les" is its own article ("aux Éboulements"), so
    the name is plural, but nothing gives its gender: "Les Éboulements sont situés" was a guess."""
    from factforge.sparql.loading import load_files

    store = store_from_text(tmp_path, "kb.ttl", TYPED)
    load_files(store, [need(DATA / "dbpedia-ontology" / "dbo-2018.12.28.ttl")], progress=False)
    entities = [DBR + "Les_%C3%89boulements", DBR + "France"]
    names = kb_names(store, entities, ["fr"])
    assert say_it(Fact(entities[0], DBO + "country", entities[1]), "fr", names, 1).text == \
        "Les Éboulements se trouvent dans le pays France."


# 17. an untyped German label's own "Der", "Das" before an adjective is declined as before a noun


@pytest.mark.parametrize("path,label,slot,text", [
    # FactBench's untyped titles whose noun follows an adjective: "von Der große Eisenbahnraub" before
    ("wrong/domainrange/publicationDate/publicationDate_00036.ttl", "Der große Eisenbahnraub", 0,
     "Ann ist der Autor vom großen Eisenbahnraub."),
    ("wrong/domainrange/publicationDate/publicationDate_00036.ttl", "Der große Eisenbahnraub", 1,
     "Ann schrieb den großen Eisenbahnraub."),
    ("correct/publicationDate/publicationDate_00086.ttl", "Der seltsame Fall des Dr. Jekyll und Mr. Hyde", 0,
     "Ann ist der Autor vom seltsamen Fall des Dr. Jekyll und Mr. Hyde."),
    ("correct/publicationDate/publicationDate_00144.ttl", "Der jüngste Tag (Film)", 0,
     "Ann ist der Autor vom jüngsten Tag (Film)."),
    # "Die" does not tell feminine from plural: said whole where the case would change it, as "Die Smaragdstadt"
    ("correct/publicationDate/publicationDate_00104.ttl", "Die nächste Begegnung", 0,
     "Ann ist der Autor von „Die nächste Begegnung“."),
    ("correct/publicationDate/publicationDate_00104.ttl", "Die nächste Begegnung", 1,
     "Ann schrieb Die nächste Begegnung."),
])
def test_an_untyped_german_title_whose_noun_follows_an_adjective_is_declined(path, label, slot, text):
    names = model_names(path)
    book = next(e for (e, code), (n, _) in names.main.items() if code == "de" and n == label)
    names.main[("http://ex/a", "de")] = ("Ann", "kb")
    assert say_it(Fact("http://ex/a", DBO + "author", book), "de", names, slot).text == text


@pytest.mark.parametrize("slot,text", [
    (0, "Ann ist der Autor von „Der große Eisenbahnraub“."),  # "von Der große Eisenbahnraub" before
    (1, "Ann schrieb „Der große Eisenbahnraub“."),
])
def test_a_typed_german_work_whose_noun_follows_an_adjective_is_quoted_whole(tmp_path, slot, text):
    from factforge.sparql.loading import load_files

    film = '<http://ex/raub> a dbo:Film ; rdfs:label "Der große Eisenbahnraub"@de .\n'
    store = store_from_text(tmp_path, "kb.ttl", TITLES + film)
    load_files(store, [need(DATA / "dbpedia-ontology" / "dbo-2018.12.28.ttl")], progress=False)
    names = kb_names(store, ["http://ex/ann", "http://ex/raub"], ["de"])
    assert say_it(Fact("http://ex/ann", DBO + "author", "http://ex/raub"), "de", names, slot).text == text


def test_a_german_label_in_lower_case_after_its_article_is_said_as_written():
    """No capitalised noun after the article ("Das glasperlenspiel", a FactBench alias): nothing to decline."""
    from factforge.claims.articles import load

    assert load("de").phrase("Das glasperlenspiel", "dat") is None


# 18. English generic wording of Wikidata's and DBpedia's labels by their kind


@pytest.mark.parametrize("label,text,negated", [
    # a participle that begins a noun phrase is not a relation ("Ann is unmarried partner Bob" before)
    ("unmarried partner", "The unmarried partner of Ann is Bob.", "The unmarried partner of Ann is not Bob."),
    ("associated band", "The associated band of Ann is Bob.", "The associated band of Ann is not Bob."),
    # a participle before its preposition still is one
    ("educated at", "Ann is educated at Bob.", "Ann is not educated at Bob."),
    # finite verbs ("Ann is shares border with Bob", "The studies of Ann is Bob" before)
    ("shares border with", "Ann shares border with Bob.", "Ann does not share border with Bob."),
    ("studies", "Ann studies Bob.", "Ann does not study Bob."),
    # "has" before a relation ending in a preposition ("The junction with of Ann is Bob" before)
    ("has junction with", "Ann has junction with Bob.", "Ann does not have junction with Bob."),
    # "has" before a noun, as before
    ("has child", "The child of Ann is Bob.", "The child of Ann is not Bob."),
    # the subject is the member ("The member of sports team of Ann is Bob", "Ann is member of Bob" before)
    ("member of sports team", "Ann is a member of sports team Bob.", "Ann is not a member of sports team Bob."),
    ("member of", "Ann is a member of Bob.", "Ann is not a member of Bob."),
    # a title is a noun: the object is the member
    ("Member of Parliament", "The Member of Parliament of Ann is Bob.", "The Member of Parliament of Ann is not Bob."),
])
def test_english_generic_wording_follows_the_labels_kind(label, text, negated):
    names = Names()
    names.main[("http://ex/ann", "en")] = ("Ann", "kb")
    names.main[("http://ex/bob", "en")] = ("Bob", "kb")
    names.main[("http://ex/p", "en")] = (label, "kb")
    fact = Fact("http://ex/ann", "http://ex/p", "http://ex/bob")
    assert say_it(fact, "en", names, 0).text == text
    assert say_it(fact, "en", names, 0, negated=True).text == negated
