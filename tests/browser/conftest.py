"""Pytest fixtures of the real-browser tests: one Playwright and one headless Chromium per test
module, a factory of emulated phones, and a factory of ``crisp serve`` processes with a fixed seed
and clock speed; everything made is closed at the end of its test. Every test in this folder has
them by name."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import ARGS, CHROMIUM, Phone
from crisps_fake import pages
from netlock import network
from playwright.sync_api import sync_playwright
from serverproc import ServerProcess
from statichost import StaticHost


@pytest.fixture(scope="module")
def playwright() -> Iterator[Any]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright: Any) -> Iterator[Any]:
    b = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
    yield b
    b.close()


@pytest.fixture
def phones(browser: Any, playwright: Any) -> Iterator[Callable[..., Phone]]:
    """A factory of phones (separate browser contexts); all closed at the end of the test."""
    made: list[Phone] = []

    def make(server: ServerProcess, device: str, label: str, **options: Any) -> Phone:
        phone = Phone(browser, playwright, device, server.base, label, **options)
        made.append(phone)
        return phone

    yield make
    for phone in made:
        phone.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    started: list[ServerProcess] = []

    def start(seed: int, clock_speed: float) -> ServerProcess:
        srv = ServerProcess(
            tmp_path, clock_speed=clock_speed, env={"CRISP_FIXED_SEED": str(seed)}
        ).start()
        started.append(srv)
        return srv

    yield start
    for srv in started:
        srv.stop()


@pytest.fixture(autouse=True)
def network_shared() -> Iterator[None]:
    """A browser test shares the machine's network with the others, never with containers
    starting or stopping (tests/support/netlock.py)."""
    with network(alone=False):
        yield


@pytest.fixture(scope="module")
def host() -> Iterator[StaticHost]:
    """The client's files served with a stand-in Crisps! room (tests/support/crisps_fake.py)."""
    with StaticHost(pages()) as h:
        yield h
