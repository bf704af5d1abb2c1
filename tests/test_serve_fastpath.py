"""The WSGI fast path for finished scenarios (server/fastpath.py) answers exactly what the Flask route
answers: two real servers over the same scenario folder, one with the fast path and one without,
asked the same things over HTTP."""
from __future__ import annotations

import email.utils

import pytest
import requests

from conftest import settled
from test_http_api import MEDIA, SPEC, made


@pytest.fixture(scope="module")
def servers(demo_kb_store, tmp_path_factory):
    """(fast path server, Flask-only server, their apps, a made scenario id with a train split)."""
    from factforge.server.app import create_app
    from factforge.server.serve import BackgroundServer

    folder = tmp_path_factory.mktemp("fastpath") / "scenarios"
    fast = create_app(demo_kb_store, {"SCENARIO_DIR": folder})
    plain = create_app(demo_kb_store, {"SCENARIO_DIR": folder, "FAST_PATH": False})
    with BackgroundServer(fast) as a, BackgroundServer(plain) as b:
        scenario_id = made(b.url, {**SPEC, "seed": 11, "train_size": 20})["id"]
        yield a.url, b.url, fast, plain, scenario_id


def _hits(app) -> int:
    return app.extensions["factforge.fastpaths"]["scenarios"].hits


def _same(fast: requests.Response, plain: requests.Response) -> None:
    assert fast.status_code == plain.status_code
    assert fast.content == plain.content
    # Every header is Flask's, in Flask's order; Date is "now" on both (checked to be a valid date).
    strip = [(k, v) for k, v in fast.headers.items() if k != "Date"]
    assert strip == [(k, v) for k, v in plain.headers.items() if k != "Date"]
    if "Date" in plain.headers:
        assert email.utils.parsedate_to_datetime(fast.headers["Date"])


def _both(servers, path: str, **kwargs) -> tuple[requests.Response, requests.Response, int]:
    """The same GET to both servers (twice on the fast one: the first fills its cache); hits it made."""
    fast_url, plain_url, fast_app, _plain_app, _id = servers
    requests.get(fast_url + path, timeout=10, **kwargs)
    before = _hits(fast_app)
    fast = requests.get(fast_url + path, timeout=10, **kwargs)
    plain = requests.get(plain_url + path, timeout=10, **kwargs)
    return fast, plain, _hits(fast_app) - before


@pytest.mark.parametrize("split", ["test", "train"])
@pytest.mark.parametrize("name", sorted(MEDIA))
def test_every_format_by_name_and_by_accept_is_flasks_answer(servers, name, split):
    scenario_id = servers[4]
    path = f"/api/scenarios/{scenario_id}"
    for asked in ({"params": {"format": name, "split": split}},
                  {"params": {"split": split}, "headers": {"Accept": MEDIA[name]}},
                  {"params": {"format": MEDIA[name], "split": split}}):
        fast, plain, hits = _both(servers, path, **asked)
        assert fast.status_code == 200 and hits == 1, asked
        _same(fast, plain)


@pytest.mark.parametrize("accept", ["", "*/*"])  # an empty Accept is no preference, like */*
def test_no_preference_is_json_like_flask(servers, accept):
    fast, plain, hits = _both(servers, f"/api/scenarios/{servers[4]}", headers={"Accept": accept})
    assert hits == 1 and fast.headers["Content-Type"].startswith("application/json")
    _same(fast, plain)


def test_if_none_match_with_the_etag_is_a_304_like_flask(servers):
    path = f"/api/scenarios/{servers[4]}?format=tsv"
    etag = requests.get(servers[0] + path, timeout=10).headers["ETag"]
    fast, plain, hits = _both(servers, path, headers={"If-None-Match": etag})
    assert fast.status_code == 304 and fast.content == b"" and hits == 1
    _same(fast, plain)


@pytest.mark.parametrize("path, headers", [
    ("?format=xlsx", {}),                                             # 406 by name
    ("", {"Accept": "image/png"}),                                    # 406 by Accept
    ("", {"Accept": "text/csv;q=0.5, text/turtle"}),                  # a list: Flask negotiates
    ("", {"Accept": "text/*"}),                                       # a wildcard type
    ("?split=dev", {}),                                               # 400
    ("?format=tsv&format=csv", {}),                                   # repeated parameter
    ("?format=tsv&extra=1", {}),                                      # unknown parameter
    ("?format=text+csv", {}),                                         # a space in a value
    ("?format=%FF", {}),                                              # not UTF-8
    ("?format=tsv", {"If-None-Match": '"not-the-etag"'}),            # another ETag: Flask decides
    ("?format=tsv", {"If-None-Match": "*"}),
    ("?format=tsv", {"Range": "bytes=0-10"}),
    ("?format=tsv", {"If-Modified-Since": "Sat, 01 Jan 2000 00:00:00 GMT"}),
    ("/answers", {}),                                                 # another route under the id
    ("/", {}),
])
def test_what_it_does_not_recognise_goes_to_flask(servers, path, headers):
    fast, plain, hits = _both(servers, f"/api/scenarios/{servers[4]}{path}", headers=headers)
    assert hits == 0
    _same(fast, plain)


@pytest.mark.parametrize("scenario_id", ["sc-00000000000000000000", "sc-ABCDEF0000000000000a", "nonsense"])
def test_unknown_scenarios_go_to_flask(servers, scenario_id):
    fast, plain, hits = _both(servers, f"/api/scenarios/{scenario_id}?format=tsv")
    assert hits == 0 and fast.status_code == 404
    _same(fast, plain)


def test_head_and_post_go_to_flask(servers):
    fast_url, plain_url, fast_app, _plain_app, scenario_id = servers
    before = _hits(fast_app)
    fast = requests.head(f"{fast_url}/api/scenarios/{scenario_id}?format=tsv", timeout=10)
    plain = requests.head(f"{plain_url}/api/scenarios/{scenario_id}?format=tsv", timeout=10)
    assert fast.status_code == plain.status_code == 200
    assert fast.headers["ETag"] == plain.headers["ETag"]
    posted = requests.post(f"{fast_url}/api/scenarios/{scenario_id}", timeout=10)
    assert posted.status_code == 405 and _hits(fast_app) == before


def test_a_scenario_removed_from_disk_is_no_longer_served(demo_kb_store, tmp_path):
    """The fast path checks the disk on every request, as the route does; its copy is not a second truth."""
    import shutil

    from factforge.server.app import create_app
    from factforge.server.serve import BackgroundServer

    app = create_app(demo_kb_store, {"SCENARIO_DIR": tmp_path / "sc"})
    with BackgroundServer(app) as server:
        scenario_id = made(server.url, {**SPEC, "seed": 12})["id"]
        url = f"{server.url}/api/scenarios/{scenario_id}?format=csv"
        assert requests.get(url, timeout=10).status_code == 200
        assert requests.get(url, timeout=10).status_code == 200 and _hits(app) >= 1
        shutil.rmtree(tmp_path / "sc" / scenario_id)
        gone = requests.get(url, timeout=10)
        assert gone.status_code == 404 and gone.json()["field"] == "id"


def _app_with_scenario(store, tmp_path, *, seed: int):
    """An app in-process (werkzeug's test client), one finished scenario, and the WSGI app behind the fast path."""
    from werkzeug.test import Client

    from factforge.server.app import create_app

    app = create_app(store, {"SCENARIO_DIR": tmp_path / "sc"})
    client = Client(app)
    response = settled(lambda: client.post("/api/scenarios", json={**SPEC, "seed": seed}))
    return app, client, response.get_json()["id"], app.extensions["factforge.fastpaths"]["scenarios"].app


def test_the_memory_budget_evicts_the_oldest(demo_kb_store, tmp_path):
    """With room for one answer only, the cache keeps the latest and still answers every request right."""
    from factforge.server.fastpath import ScenarioFastPath

    app, client, scenario_id, inner = _app_with_scenario(demo_kb_store, tmp_path, seed=13)
    sizes = {name: len(client.get(f"/api/scenarios/{scenario_id}?format={name}").data) for name in ("tsv", "csv")}
    app.wsgi_app = small = ScenarioFastPath(inner, app.extensions["factforge"].scenarios,
                                            [("text/tab-separated-values", "tsv"), ("text/csv", "csv")], "tsv",
                                            max_item=1 << 20, max_total=max(sizes.values()))
    for name in ("tsv", "csv", "tsv", "csv"):
        answer = client.get(f"/api/scenarios/{scenario_id}?format={name}")
        assert answer.status_code == 200 and len(answer.data) == sizes[name]
    assert len(small._cache) == 1 and small.hits == 4


def test_an_answer_too_big_to_keep_is_left_to_flask(demo_kb_store, tmp_path):
    """Over the per-item limit, the answer is Flask's every time (same bytes), the fast path keeps
    nothing, and after the first request it no longer asks Flask twice."""
    from werkzeug.test import Client

    from factforge.server.fastpath import ScenarioFastPath

    app, client, scenario_id, inner = _app_with_scenario(demo_kb_store, tmp_path, seed=14)
    calls = []

    def counting(environ, start_response):
        calls.append(environ.get("PATH_INFO"))
        return inner(environ, start_response)

    expected = Client(inner).get(f"/api/scenarios/{scenario_id}?format=tsv").data
    app.wsgi_app = small = ScenarioFastPath(counting, app.extensions["factforge"].scenarios,
                                            [("text/tab-separated-values", "tsv")], "tsv",
                                            max_item=len(expected) - 1, max_total=1 << 20)
    for _ in range(3):
        answer = client.get(f"/api/scenarios/{scenario_id}?format=tsv")
        assert answer.status_code == 200 and answer.data == expected
    assert small.hits == 0 and not small._cache
    assert len(calls) == 4  # the first request asked Flask twice (to measure, then to answer); later ones once
