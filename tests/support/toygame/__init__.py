"""High Card: a toy game that exists only in the test suite, to prove that the server's game seam
carries a game the server has never heard of. It is laid out as a third game would be (see
docs/server.md, "Adding a game"), one module for each layer's folder:

- ``engine.py``: the rules (``crisp/engine/<game>/``): pure, no server, no clock;
- ``bots.py``: its bot (``crisp/bots/<game>/``);
- ``game.py``: its adapter to the seam (``crisp/games/<game>/``): moves, options, the match and
  its log, the ``GameSpec``, built on ``crisp.games.common``;
- no client (``crisp/static/games/<game>/``): the tests play it over the protocol.

It is registered by its spec's path, ``toygame:SPEC`` (or ``Registry([toygame.SPEC])``), as a
real game is by its line in ``crisp.games.DEFAULT_GAMES`` or ``CRISP_GAMES``.
"""

from toygame.game import SPEC, HighCardSpec

__all__ = ["SPEC", "HighCardSpec"]
