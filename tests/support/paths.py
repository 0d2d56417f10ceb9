"""Where things are: the repository's root and the tests' folder (its data: fixtures, scenarios,
js, vendor, card_sheet, artifacts), for tests and helpers at any depth."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
ROOT = TESTS.parent
