"""Crisp, the first game: its adapter to the server and its wire models (``wire.py``)."""
