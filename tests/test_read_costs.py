"""A hub run's draws or the run whole: the reader keeps to draws unless the store has shown that a
draw (a sort of the run) costs far more than reading the run (issue 17: Oxigraph at 10M)."""
from factforge.sparql.read_costs import SLOW_SORT, TIMED_LINKS, ReadCosts


def test_nothing_is_known_until_both_kinds_of_answer_were_timed():
    costs = ReadCosts()
    assert not costs.sorts_slowly
    costs.drew(TIMED_LINKS * 10, 30.0)
    assert not costs.sorts_slowly  # no read to compare with
    costs.read(TIMED_LINKS, 0.001)
    assert costs.sorts_slowly


def test_a_store_whose_draws_cost_about_a_read_keeps_its_draws():
    costs = ReadCosts()
    # Virtuoso at 1M: a draw from a 14,000-link run 0.1 s, the run whole 0.07 s
    costs.drew(14_000, 0.10)
    costs.read(14_000, 0.07)
    assert not costs.sorts_slowly
    # Oxigraph at 1M: the same draw 3.7 s, the run whole 0.26 s
    costs.drew(14_000, 3.7)
    costs.read(14_000, 0.26)
    assert costs.draw_per_link == 0.10 / 14_000  # the least seen: this store drew fast once
    assert not costs.sorts_slowly


def test_the_threshold_and_small_answers():
    costs = ReadCosts()
    costs.read(10_000, 1.0)
    costs.drew(10_000, SLOW_SORT * 1.0)
    assert not costs.sorts_slowly  # at the threshold, not over it
    costs.drew(TIMED_LINKS - 1, 1e6)  # too small to say anything of sorting: not timed
    assert not costs.sorts_slowly
    slow = ReadCosts()
    slow.read(10_000, 1.0)
    slow.drew(10_000, SLOW_SORT * 1.5)
    assert slow.sorts_slowly
    slow.read(TIMED_LINKS - 1, 1e-9)  # a small answer's fast read is not timed either
    assert slow.read_per_row == 1.0 / 10_000


def test_a_draw_is_unweighed_while_no_read_of_as_many_links_was_timed():
    costs = ReadCosts()
    assert costs.unweighed(TIMED_LINKS) and not costs.unweighed(TIMED_LINKS - 1)  # a short run's draw is not timed
    costs.read(TIMED_LINKS - 1, 0.001)  # too small to be timed
    assert costs.unweighed(TIMED_LINKS)
    costs.read(TIMED_LINKS, 0.001)
    assert not costs.unweighed(TIMED_LINKS * 10)
