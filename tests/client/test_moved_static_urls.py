"""Static files that moved into their game's folder (the server names no game: Crisp's card art,
shuffle check and rules pages in crisp/static/games/crisp/, Crisps!'s rules pages in games/crisps/,
the rules pages' shared style sheet in games/): every old URL still works, by a permanent redirect
(308) to the new one, which is served; a bookmarked rules page keeps its query."""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import Any

import pytest
from paths import ROOT
from serverproc import ServerProcess

from crisp.server.http.pages import MOVED

STATIC = ROOT / "crisp" / "static"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # the redirect itself is what these tests look at


def _status(url: str) -> tuple[int, str | None]:
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(url, timeout=10) as resp:
            return resp.status, None
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get("location")


@pytest.fixture(scope="module")
def server(tmp_path_factory: Any) -> Any:
    with ServerProcess(tmp_path_factory.mktemp("moved")) as srv:
        yield srv


def test_every_old_url_redirects_permanently_to_a_file_that_is_there(server: Any) -> None:
    assert len(MOVED) == 9
    for old, new in MOVED.items():
        assert not (STATIC / old.removeprefix("/static/")).exists(), f"{old} is still there"
        assert (STATIC / new.removeprefix("/static/")).is_file(), f"{new} is missing"
        assert _status(server.base + old) == (308, new), old
        assert _status(server.base + new) == (200, None), new


def test_the_redirect_keeps_the_query(server: Any) -> None:
    assert _status(f"{server.base}/static/rules/fr.html?from=menu") == (
        308,
        "/static/games/crisp/rules/fr.html?from=menu",
    )


def test_a_file_that_never_was_is_still_not_found(server: Any) -> None:
    assert _status(f"{server.base}/static/rules/de.html")[0] == 404
