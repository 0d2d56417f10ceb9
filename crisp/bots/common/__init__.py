"""What every game's bots share: the bot base (``base``: ``SeatBotBase``, ``Intent``), the driver
that plays any game's bots against its engine (``arena``), the win-rate lab and its report
(``lab``) and ``crisp simulate --bots`` (``simulate``)."""
