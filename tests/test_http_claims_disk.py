"""Many claims sets of one scenario over HTTP against the scenario folder's bound: each distinct set of
claims knobs is a new set on disk (with its own R dump), so a client varying a knob must not be able
to grow one scenario without bound, and the sets go least recently used first, before their scenario.
Through the real app under waitress over the demo KB."""
from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from test_http_api import made
from test_scenario_disk import MB, folder_bytes, serving

SPEC = {"predicate": "dbo:capital", "size": 40, "ambiguous": "random_walk", "leakage": "pair", "seed": 4}


def fever(url: str, scenario_id: str, negation: float) -> requests.Response:
    return requests.get(f"{url}/api/scenarios/{scenario_id}",
                        params={"format": "fever", "lang": "en", "negation": f"{negation:g}"}, timeout=120)


def sets_of(root, scenario_id: str) -> set[str]:
    claims = root / scenario_id / "claims"
    return {p.name for p in claims.iterdir()} if claims.is_dir() else set()


@pytest.fixture(scope="module")
def sizes(demo_kb_store, tmp_path_factory) -> tuple[int, int]:
    """Bytes of the scenario alone and of one claims set of it: the bounds below are counted in them."""
    folder = tmp_path_factory.mktemp("claims-size")
    with serving(demo_kb_store, folder) as url:
        scenario_id = made(url, SPEC)["id"]
        scenario = folder_bytes(folder / "scenarios" / scenario_id)
        assert fever(url, scenario_id, 0).status_code == 200
        return scenario, folder_bytes(folder / "scenarios" / scenario_id) - scenario


def test_many_claims_sets_of_one_scenario_keep_the_folder_bounded_and_the_server_answering(demo_kb_store, tmp_path,
                                                                                          sizes):
    scenario, one_set = sizes
    root = tmp_path / "scenarios"
    bound = scenario + 3.5 * one_set
    with serving(demo_kb_store, tmp_path, SCENARIO_DISK_MB=bound / MB) as url:
        scenario_id = made(url, SPEC)["id"]
        first = fever(url, scenario_id, 0)
        for step in range(1, 9):  # every negation share a new set: the attack
            response = fever(url, scenario_id, step / 100)
            assert response.status_code == 200, response.text
            assert folder_bytes(root) <= bound, f"after {step + 1} sets"
            assert requests.get(f"{url}/api/kb", timeout=10).status_code == 200
        # The scenario outlives its sets, and a trimmed set is made again with the same bytes.
        assert requests.get(f"{url}/api/scenarios/{scenario_id}", timeout=30).status_code == 200
        assert 1 <= len(sets_of(root, scenario_id)) <= 3
        again = fever(url, scenario_id, 0)
        assert again.status_code == 200 and again.content == first.content


def test_claims_sets_go_least_recently_used_first_and_before_other_scenarios(demo_kb_store, tmp_path, sizes):
    scenario, one_set = sizes
    root = tmp_path / "scenarios"
    with serving(demo_kb_store, tmp_path, SCENARIO_DISK_MB=(2 * scenario + 3.5 * one_set) / MB) as url:
        other = made(url, {**SPEC, "seed": 5})["id"]
        scenario_id = made(url, SPEC)["id"]
        keys = {}
        for share in (0.1, 0.2, 0.3):
            before = sets_of(root, scenario_id)
            assert fever(url, scenario_id, share).status_code == 200
            keys[share] = (sets_of(root, scenario_id) - before).pop()
        assert fever(url, scenario_id, 0.1).status_code == 200  # 0.1 is used again: 0.2 is the oldest now
        assert fever(url, scenario_id, 0.4).status_code == 200
        left = sets_of(root, scenario_id)
        assert keys[0.2] not in left and {keys[0.1], keys[0.3]} <= left
        # the other scenario, older than every set, stayed: sets are trimmed before a scenario goes
        assert (root / other / "manifest.json").is_file() and folder_bytes(root) <= 2 * scenario + 3.5 * one_set


def test_concurrent_requests_for_one_new_set_make_it_once(demo_kb_store, tmp_path, caplog):
    with serving(demo_kb_store, tmp_path) as url:
        scenario_id = made(url, SPEC)["id"]
        with caplog.at_level(logging.INFO, logger="factforge.server"), ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(lambda _i: fever(url, scenario_id, 0.25), range(4)))
        assert [a.status_code for a in answers] == [200] * 4
        assert len({a.content for a in answers}) == 1
        made_lines = [r for r in caplog.records if r.getMessage().startswith("claims set ")]
        assert len(made_lines) == 1, [r.getMessage() for r in made_lines]
