"""The games a Crisp server can host: each one plugs into the server through the game seam."""
