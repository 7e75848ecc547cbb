"""Text that every database and every reply can hold.

Two kinds of character cannot be stored: NUL (U+0000), which PostgreSQL's ``text`` refuses outright
("cannot contain NUL (0x00) bytes"), and an unpaired surrogate (U+D800 to U+DFFF), which no UTF-8
encoder writes (SQLite's driver, a JSON reply encoded as UTF-8).  JSON lets a client send both
(``"\\u0000"``, ``"\\ud800"``), so the server refuses them where text comes in, naming the field,
before anything tries to store them.  A surrogate *pair* is not refused: the JSON parser joins
``"\\ud83d\\ude00"`` into the one character U+1F600, so any surrogate left in a Python string is unpaired.

>>> storable("Banker 12.50 \\U0001f600")
True
>>> storable("a\\x00b"), storable("\\ud800")
(False, False)
>>> unstorable_field({"type": "bet", "key": "k\\x00", "bets": {"banker": 100}})
'key'
>>> unstorable_field({"bets": {"ban\\udcffker": 100}}), unstorable_field({"notes": ["ok", "\\x00"]})
('bets', 'notes.1')
>>> unstorable_field({"\\x00": 1}, root="frame"), unstorable_field({"ok": [[["fine"]]]}) is None
('frame', True)
"""

from __future__ import annotations

import re

#: What cannot be stored: NUL, and any surrogate code point (in a Python string always an unpaired one).
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def storable(text: str) -> bool:
    """Whether ``text`` holds neither NUL nor an unpaired surrogate (see the module)."""
    return UNSTORABLE.search(text) is None


def unstorable_field(value: object, *, root: str = "value") -> str | None:
    """The first place in a JSON value (as :func:`json.loads` makes it) whose text cannot be stored, as a
    dotted path of its keys and list indexes (``key``, ``bets``, ``notes.1``), or None when all of it can be.

    An object key that cannot be stored is named by the object holding it (``bets`` for a bad wager code), so
    the name never repeats the bad text; ``root`` names the value itself when the problem is there (a bad
    top-level key, or a bad string as the whole value).  Walked with a stack of its own, not by recursion: a
    value nested as deep as the JSON parser allows must not exhaust Python's stack here.
    """
    waiting: list[tuple[object, tuple[str, ...]]] = [(value, ())]
    while waiting:
        item, path = waiting.pop()
        if isinstance(item, str):
            if not storable(item):
                return ".".join(path) or root
        elif isinstance(item, dict):
            if not all(storable(str(key)) for key in item):
                return ".".join(path) or root
            waiting.extend(reversed([(inner, (*path, str(key))) for key, inner in item.items()]))
        elif isinstance(item, list):
            waiting.extend(reversed([(inner, (*path, str(index))) for index, inner in enumerate(item)]))
    return None
