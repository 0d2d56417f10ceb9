"""The games a server hosts, by name. Games are named in the settings as import paths
(``package.module:ATTRIBUTE``), so the server never imports a game's code itself."""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator

from crisp.server.movememo import CheckedMoves
from crisp.server.seam import GameSpec


class Registry:
    def __init__(self, specs: Iterable[GameSpec] = ()) -> None:
        self._specs: dict[str, GameSpec] = {}
        self._moves: dict[str, CheckedMoves] = {}  # each game's check of moves, remembered
        self._most_seats = 0  # kept as games are added: asked of every message with a seat
        for spec in specs:
            self.add(spec)

    def add(self, spec: GameSpec) -> None:
        if spec.name in self._specs:
            raise ValueError(f"two games are named {spec.name!r}")
        self._specs[spec.name] = spec
        self._moves[spec.name] = CheckedMoves(spec.check_move)
        self._most_seats = max(self._most_seats, spec.seats[1])

    def get(self, name: str) -> GameSpec | None:
        return self._specs.get(name)

    def __getitem__(self, name: str) -> GameSpec:
        return self._specs[name]

    def check_move(self, name: str) -> CheckedMoves:
        """The game ``name``'s ``check_move``, its answers remembered (``movememo.py``), one
        for all its rooms."""
        return self._moves[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    @property
    def default(self) -> str:
        return next(iter(self._specs))

    @property
    def most_seats(self) -> int:
        """The most players any of the games has (a seat number is below it)."""
        return self._most_seats

    @classmethod
    def load(cls, paths: Iterable[str]) -> Registry:
        """The games at ``paths`` (``module:attribute``), the first one the default."""
        specs = []
        for path in paths:
            module, _, attr = path.partition(":")
            if not attr:
                raise ValueError(f"a game is named module:attribute, not {path!r}")
            specs.append(getattr(importlib.import_module(module), attr))
        return cls(specs)
