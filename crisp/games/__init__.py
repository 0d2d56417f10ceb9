"""The games this server hosts, each plugged in through the server's game seam
(``crisp.server.seam``): one package a game (``crisp.games.crisp``, ``crisp.games.crisps``), what
their adapters share in ``crisp.games.common``, and the default list of games below (the server's
``games`` setting, ``CRISP_GAMES``, replaces it). A third game adds its line here."""

#: The games a server hosts unless ``CRISP_GAMES`` says otherwise, as ``module:attribute`` of
#: each game's ``GameSpec``; the first is the default. Importing this list imports no game.
DEFAULT_GAMES: tuple[str, ...] = ("crisp.games.crisp:SPEC", "crisp.games.crisps:SPEC")
