"""What every game's bots share."""
