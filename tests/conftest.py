import sys
from pathlib import Path

# Test helper modules (roomkit, stacking, engine_helpers, leakcheck, ...) live in tests/support/;
# the repository's tools (tools/protocol_doc.py) at its root.
sys.path.insert(0, str(Path(__file__).parent / "support"))
sys.path.insert(1, str(Path(__file__).parent.parent))


import pytest


@pytest.fixture(scope="session")
def pg_server():  # type: ignore[no-untyped-def]
    """One real PostgreSQL server per test worker (tests/support/pgserver.py); each test that needs
    a
    database makes its own with ``pg_server.new_database()``."""
    from pgserver import PgServer

    server = PgServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module", autouse=True)
def network_for_containers(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """A module marked ``containers`` holds the machine's network alone for its whole life, its
    images and stacks included (tests/support/netlock.py): no browser test runs meanwhile."""
    if request.node.get_closest_marker("containers") is None:
        yield
        return
    from netlock import network

    with network(alone=True):
        yield
