"""The operator's commands: ``crisp backup``, ``crisp restore`` and ``crisp rooms``."""
