"""True facts whose objects the false side can match (``generators.object_room``): on a KB where
most subjects hold one object, the ranking's head names it more often than the set's subjects can
take it as a false fact, so its count would tell the labels; later facts take the place of the
last-ranked ones naming it, and what cannot be matched is counted."""
from __future__ import annotations

from conftest import store_from_text
from factforge.generators.facts import Fact
from factforge.generators.negatives import NegativeContext
from factforge.generators.object_room import matchable
from factforge.generators.spec import ScenarioSpec
from factforge.sparql import profiles
from factforge.sparql.adjacency import adjacency

EX = "http://example.org/"
SPEAKS = EX + "speaks"
# nine of twelve people speak English and nothing else; three speak one other language each
KB = "@prefix ex: <http://example.org/> .\n" + "".join(
    f"ex:p{i} a ex:Person ; ex:speaks ex:{lang} .\n"
    for i, lang in enumerate(["english"] * 9 + ["french", "german", "italian"])) + \
    "ex:english a ex:Language . ex:french a ex:Language . ex:german a ex:Language . ex:italian a ex:Language .\n"


def _context(tmp_path):
    store = store_from_text(tmp_path, "speakers.ttl", KB)
    pairs = set(profiles.predicate_facts(store, SPEAKS))
    return NegativeContext.build(store, ScenarioSpec(SPEAKS, size=12, seed=0), adjacency(store), pairs)


def _facts(*people: int) -> list[Fact]:
    langs = ["english"] * 9 + ["french", "german", "italian"]
    return [Fact(f"{EX}p{i}", SPEAKS, f"{EX}{langs[i]}") for i in people]


def _room(context, chosen: list[Fact], o: str) -> int:
    """Subjects of ``chosen`` that the shared checks and the type check let take ``o``."""
    return sum(context.acceptable(Fact(s, SPEAKS, o)) and any(context.types.type_consistent(f.o, o) for f in chosen if f.s == s)
               for s in {f.s for f in chosen})


def test_an_object_over_its_room_gives_way_to_later_facts(tmp_path):
    """Six English speakers head the ranking: no subject of the set can take English as a false
    fact. The last three give way to the three speakers of other languages, which gives English a
    room of three, as many as its true facts."""
    context = _context(tmp_path)
    ranked = _facts(*range(12))
    head = ranked[:6]
    assert _room(context, head, EX + "english") == 0
    matched = matchable(context, iter(ranked), 6, 6)
    assert matched.facts == _facts(0, 1, 2, 9, 10, 11)
    assert matched.swapped == 3 and matched.unmatched == {}
    for o in {f.o for f in matched.facts}:
        assert sum(f.o == o for f in matched.facts) <= _room(context, matched.facts, o)


def test_a_set_whose_objects_fit_is_the_rankings_head(tmp_path):
    context = _context(tmp_path)
    ranked = _facts(9, 0, 10, 1, 11, 2, 3, 4)
    matched = matchable(context, iter(ranked), 4, 4)
    assert matched.facts == ranked[:4] and matched.swapped == 0 and matched.unmatched == {}


def test_what_cannot_be_matched_is_counted_with_its_figures(tmp_path):
    """Only one other speaker in the ranking: two English true facts of five cannot be given room."""
    context = _context(tmp_path)
    matched = matchable(context, iter(_facts(0, 1, 2, 3, 4, 9)), 5, 5)
    english = sum(f.o == EX + "english" for f in matched.facts)
    assert matched.unmatched == {EX + "english": (float(english), _room(context, matched.facts, EX + "english"))}
    assert english > _room(context, matched.facts, EX + "english")
