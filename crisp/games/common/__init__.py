"""What every game's adapter shares: a match rebuilt from its log (``logged.py``), the spec that
delegates to a game's parts (``spec.py``), the strict models of moves and options
(``fields.py``) and of the wire (``wire.py``), and a game's bot at a server's seat
(``seatbot.py``)."""
