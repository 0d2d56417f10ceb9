"""How deep a JSON text nests, found before parsing it: the guard that keeps a hostile text
(``[`` × 100,000) from the recursive parser. Used for a client's messages
(``crisp.server.wire.safejson``) and for record files (``crisp.engine.common.recordfile``)."""

from __future__ import annotations

import re

# A string (to its closing quote, or to the end if it has none) or a bracket. Possessive, and it
# always matches where it starts: linear in the text (no retry from each quote of an unclosed one).
_TOKEN = re.compile(r'"(?:[^"\\]++|\\.)*+"?|[\[\]{}]', re.DOTALL)


def depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text`` (strings skipped; an unclosed string
    counts its brackets, which only makes the answer larger)."""
    deepest = level = 0
    for token in _TOKEN.finditer(text):  # one token at a time: no list of them all
        bracket = token.group()
        if bracket[0] == '"':
            continue
        if bracket in "[{":
            level += 1
            deepest = max(deepest, level)
        else:
            level -= 1
    return deepest
