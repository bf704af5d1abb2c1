"""A hub run's draws or the run whole: the reader keeps to draws unless the draws a run is expected
to get would cost far more than reading the run (issue 17: Oxigraph at 10M)."""
import pytest

from factforge.sparql.read_costs import SLOW_SORT, TIMED_LINKS, ReadCosts, sort_steps


def test_nothing_is_known_until_both_kinds_of_answer_were_timed():
    costs = ReadCosts()
    assert not costs.reads_whole(100_000, 1_000)
    costs.drew(TIMED_LINKS * 10, 30.0)
    assert not costs.reads_whole(100_000, 1_000)  # no read to compare with
    costs.read(TIMED_LINKS, 0.001)
    assert costs.reads_whole(TIMED_LINKS * 10, 1)


def test_a_store_whose_draws_cost_about_a_read_keeps_a_few_draws():
    costs = ReadCosts()
    # Virtuoso at 1M: a draw from a 14,000-link run 0.1 s, the run whole 0.07 s
    costs.drew(14_000, 0.10)
    costs.read(14_000, 0.07)
    assert not costs.reads_whole(14_000, 1) and not costs.reads_whole(14_000, 2)
    assert costs.reads_whole(14_000, 3)  # three draws cost 0.3 s, more than four reads (0.28 s)
    # Oxigraph at 1M: the same draw 3.7 s, the run whole 0.26 s
    costs.drew(14_000, 3.7)
    costs.read(14_000, 0.26)
    assert costs.draw_per_step == 0.10 / sort_steps(14_000)  # the least seen: this store drew fast once
    assert not costs.reads_whole(14_000, 1)


def test_the_draws_of_a_long_run_are_weighed_as_a_sort_of_that_run():
    """Oxigraph behind a loaded machine at 10M, seed 2 (the draws logged): reads of runs at
    5.76e-5 s a row, a draw from a 6,071-link run 1.2 s. Weighed per link, that draw made every
    later draw look cheap (2.8 reads of its run at most, under SLOW_SORT), and draws of 14-62 s
    followed from runs of 67k-183k links. As a sort, the same two timings call for reading the
    long runs, and keep the draws where a draw truly cost less than four reads."""
    costs = ReadCosts()
    costs.read(9_624, 9_624 * 5.76e-5)
    costs.drew(6_071, 1.2)
    per_link = 1.2 / 6_071
    assert per_link < SLOW_SORT * 5.76e-5  # the old rule's measure: under the threshold
    assert costs.reads_whole(182_819, 1)    # drawn in 62.4 s; read whole in about 10.5 s
    assert costs.reads_whole(127_866, 1)    # drawn in 36.2 s; read in about 7.4 s
    assert costs.reads_whole(67_273, 2)     # two draws, 14.6 s each; read in about 3.9 s
    assert not costs.reads_whole(14_440, 1)  # drawn in 2.9 s; four reads take 3.3 s
    # the model's guesses for those draws are within a factor of two of what they took
    for links, took in [(182_819, 62.4), (127_866, 36.2), (67_273, 14.6), (14_440, 2.9), (4_017, 0.7)]:
        guess = costs.draw_per_step * sort_steps(links)
        assert took / 2 < guess < took * 2, (links, guess, took)


def test_the_threshold_and_small_answers():
    costs = ReadCosts()
    costs.read(10_000, 1.0)
    costs.drew(10_000, SLOW_SORT * 1.0)
    assert not costs.reads_whole(10_000, 1)  # at the threshold, not over it
    assert costs.reads_whole(10_000, 2)
    assert costs.reads_whole(20_000, 1)  # a longer run's sort costs more a link
    costs.drew(TIMED_LINKS - 1, 1e-9)  # too small to say anything of sorting: not timed
    assert costs.draw_per_step == SLOW_SORT / sort_steps(10_000)
    costs.read(TIMED_LINKS - 1, 1e-9)  # a small answer's fast read is not timed either
    assert costs.read_per_row == 1.0 / 10_000


@pytest.mark.parametrize("links", [0, 1, 2])
def test_tiny_runs_are_weighed_without_error(links):
    costs = ReadCosts()
    costs.read(10_000, 1.0)
    costs.drew(10_000, 100.0)  # a store that sorts very slowly: still no run of no link is read
    assert costs.reads_whole(links, 1) is (links >= 1)


def test_a_draw_is_unweighed_while_no_read_of_as_many_links_was_timed():
    costs = ReadCosts()
    assert costs.unweighed(TIMED_LINKS) and not costs.unweighed(TIMED_LINKS - 1)  # a short run's draw is not timed
    costs.read(TIMED_LINKS - 1, 0.001)  # too small to be timed
    assert costs.unweighed(TIMED_LINKS)
    costs.read(TIMED_LINKS, 0.001)
    assert not costs.unweighed(TIMED_LINKS * 10)
