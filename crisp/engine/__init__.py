"""The pure rules engines, one package a game (``crisp``, ``crisps``), and what they share
(``common``): no asyncio, no web, no wall clock; time is an argument, and a game is deterministic
from its seeds (or decks) and its actions."""
