"""Random walk's false objects reached by the true fact's own paths (issue 16): ``path_end_rows``
gives every end a walk along each path can reach, ``path_hits`` weighs an object by the paths
that reach it, and the sampler offers every owed object its paths reach, not one walk end each."""
from __future__ import annotations

import numpy as np
from conftest import store_from_text

from factforge.generators.negatives.plausibility import PATH_FRONTIER, path_end_rows, path_hits, path_reached
from factforge.generators.negatives.random_walk import meta_paths, path_ends
from factforge.sparql.adjacency import build

EX = "http://example.org/"
# Ann (Austria) was born in Vienna. Austria's places are Vienna and Graz; her compatriots were born in
# Linz (not listed as Austrian), Graz and Vienna; those who speak her language in Berlin and Vienna.
KB = "".join(f"<{EX}{s}> <{EX}{p}> <{EX}{o}> .\n" for s, p, o in (
    ("Ann", "citizen", "Austria"), ("Ann", "born", "Vienna"), ("Ann", "speaks", "German"),
    ("Vienna", "country", "Austria"), ("Graz", "country", "Austria"), ("Berlin", "country", "Germany"),
    ("Bob", "citizen", "Austria"), ("Bob", "born", "Linz"), ("Cy", "speaks", "German"), ("Cy", "born", "Berlin"),
    ("Dee", "born", "Graz"), ("Dee", "citizen", "Austria"), ("Eve", "born", "Vienna"), ("Eve", "citizen", "Austria"),
    ("Eve", "speaks", "German")))
BORN = f"{EX}born"


def test_path_end_rows_are_every_end_a_walk_can_reach(tmp_path):
    index = build(store_from_text(tmp_path, "kb.nt", KB), use_table=False)
    ann, vienna, p = index.id(f"{EX}Ann"), index.id(f"{EX}Vienna"), index.pindex[BORN]
    paths = meta_paths(index, ann, vienna, 3, p + 1)
    assert paths  # citizen/^country, citizen/^citizen/born, ...
    place, node = path_end_rows(index, ann, paths, vienna)
    for k, path in enumerate(paths):
        # the set-based reference, less the walks through Ann or Vienna (not in the reference KB's paths)
        inner_free = {end for end in path_ends(index, ann, path)
                      if len(path) == 1 or _avoids(index, ann, path, end, {ann, vienna})}
        assert set(node[place == k].tolist()) == inner_free, index.step_name(path[0])


def _avoids(index, start, path, end, avoid) -> bool:
    """Can a walk along ``path`` reach ``end`` from ``start`` with no inner node in ``avoid``?"""
    nodes = {start}
    for k, step in enumerate(path):
        nodes = {int(n) for node in nodes for n in index.follow(node, step).tolist()}
        if k < len(path) - 1:
            nodes -= avoid
    return end in nodes


def test_a_place_of_the_subjects_country_outweighs_one_reached_through_a_language(tmp_path):
    index = build(store_from_text(tmp_path, "kb.nt", KB), use_table=False)
    ann, vienna, p = index.id(f"{EX}Ann"), index.id(f"{EX}Vienna"), index.pindex[BORN]
    paths = meta_paths(index, ann, vienna, 3, p + 1)
    rows = path_end_rows(index, ann, paths, vienna)
    among = np.unique(index.dst[index.pred == p]).astype(np.int64)
    graz, berlin, linz = (index.id(f"{EX}{x}") for x in ("Graz", "Berlin", "Linz"))
    hits = path_hits(rows, len(paths), np.array([graz, berlin, linz, -1]), among)
    # Graz lies in Ann's country and a compatriot was born there; Berlin only where a speaker of her
    # language was born; Linz where a compatriot was, a path that reaches most birthplaces
    assert hits[0] > hits[1] > hits[2] > 0 and hits[3] == 0 and hits.max() <= 1
    objects = np.array(sorted([graz, berlin, linz]))
    first = dict(zip(objects.tolist(), path_reached(rows, objects)))
    assert all(k >= 0 for k in first.values())
    assert index.step_name(paths[first[graz]][0]).endswith("citizen")


def test_a_path_that_spreads_too_wide_has_no_ends(tmp_path):
    many = "".join(f"<{EX}P{i}> <{EX}citizen> <{EX}Austria> .\n<{EX}P{i}> <{EX}born> <{EX}T{i}> .\n"
                   for i in range(PATH_FRONTIER + 1))
    index = build(store_from_text(tmp_path, "kb.nt", KB + many), use_table=False)
    ann, vienna = index.id(f"{EX}Ann"), index.id(f"{EX}Vienna")
    citizen, born = index.pindex[f"{EX}citizen"] + 1, index.pindex[BORN] + 1
    place, node = path_end_rows(index, ann, [(citizen, -citizen, born), (citizen, -index.pindex[f"{EX}country"] - 1)],
                                vienna)
    assert set(place.tolist()) == {1}  # the compatriots' birthplaces spread past the frontier; the country's places do not
