"""Crisps!, the second game: a 2-player climbing card game (docs/rules-crisps.md)."""
