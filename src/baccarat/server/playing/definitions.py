"""Rules-file games kept with the data: a game's definition is stored when a server is first given its file
(``serve --rules``), and every server process, however started and however many, serves the game from the
stored definition (:func:`load_stored`, at each process's start), so that a table of that game keeps its rules
whatever a later start passes.  One definition per game code: a file that changes a stored game's rules is
refused, naming both digests (a change of rules is a new game, never a silent edit of a live table's).

The digest is the SHA-256 of the file's canonical content (:func:`baccarat.core.rulesfile.canonical`); the
tables and shoes of the game name it (``game_tables.definition``, ``shoes.definition``).
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session
from typing_extensions import TypedDict

from baccarat.core.errors import UnknownSeatError
from baccarat.core.games import Game
from baccarat.core.registry import register
from baccarat.core.rulesfile import RulesError, canonical, parse_rules
from baccarat.server.storage.models import GameDefinition


class Definition(TypedDict):
    """A rules-file game's stored definition, for a verifier: ``content`` is what ``digest`` is the SHA-256 of."""

    digest: str
    """the SHA-256 (hex) of ``content``, as the game's shoe records name it"""
    code: str
    """the game's code"""
    content: str
    """the file's canonical content: its TOML as JSON, keys sorted, no spaces"""
    text: str
    """the rules file as it was given"""


def store(s: Session, text: str, *, origin: str = "rules file") -> Game:
    """Store the definition a rules file's ``text`` gives (checked as :func:`~baccarat.core.rulesfile.parse_rules`
    checks it) unless it is stored already, and serve its game in this process.  A different definition stored
    for the same game code is refused (:class:`~baccarat.core.rulesfile.RulesError`), and nothing is stored."""
    game = _parse(text, origin)
    digest = canonical(text)[1]
    stored = s.scalar(select(GameDefinition).where(GameDefinition.code == game.code))
    if stored is None:
        s.add(GameDefinition(digest=digest, code=game.code, text=text))
        s.flush()
    elif stored.digest != digest:
        raise RulesError(f"{origin}: the game {game.code!r} is stored with the definition {stored.digest[:16]}, and "
                         f"this file's is {digest[:16]}: its tables keep the stored rules. A change of rules is a "
                         "new game: give the file another game code")
    register(game, replace=True)
    return game


def load_stored(s: Session) -> list[Game]:
    """Serve, in this process, every game whose definition is stored (in order of code); the games."""
    games = []
    for row in s.scalars(select(GameDefinition).order_by(GameDefinition.code)):
        game = _parse(row.text, f"the stored definition {row.digest[:16]} of {row.code!r}")
        register(game, replace=True)
        games.append(game)
    return games


def _parse(text: str, origin: str) -> Game:
    """The game ``text`` defines; a refusal names ``origin`` (the file, or the stored definition) first."""
    try:
        return parse_rules(text, origin=origin)
    except RulesError as error:
        if str(error).startswith(origin):
            raise
        raise RulesError(f"{origin}: {error}") from error


def digest_of(s: Session, code: str) -> str | None:
    """The digest of the stored definition of the game ``code``; None for a built-in game (or one not stored)."""
    return s.scalar(select(GameDefinition.digest).where(GameDefinition.code == code))


def definition(s: Session, digest: str) -> Definition:
    """``GET /api/games/definition?digest=``: the stored definition with that digest, for the page's Verify."""
    row = s.get(GameDefinition, digest)
    if row is None:
        raise UnknownSeatError.coded("definition.unknown", digest=digest)  # 64 hexadecimal digits (the route's)
    return {"digest": row.digest, "code": row.code, "content": canonical(row.text)[0], "text": row.text}
