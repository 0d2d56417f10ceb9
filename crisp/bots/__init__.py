"""Bots that play fair, one package a game (``crisp``, ``crisps``): each is a client of its seat,
seeing only that seat's messages. What they share is in ``common``."""
