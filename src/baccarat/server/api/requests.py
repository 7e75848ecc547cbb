"""Request bodies: what each route accepts, strictly (unknown fields and wrong JSON types refused).

Answers are in :mod:`baccarat.server.api.responses`; both appear in ``/openapi.json``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError

from baccarat.core.fair import CLIENT_SEED, CLIENT_SEED_RULE
from baccarat.core.money import MAX_AMOUNT
from baccarat.server.api.known_games import GameCode


class Strict(BaseModel):
    """Request bodies refuse unknown fields and take every value as the JSON type it is declared
    as: no ``"8"`` for 8 decks, no ``true`` for seat 1 (pydantic's default, lax mode, converts them)."""

    model_config = ConfigDict(extra="forbid", strict=True)


def json_integer(words: str, *, optional: bool = False) -> BeforeValidator:
    """Refuse anything but a JSON integer (or, if ``optional``, null), with ``words`` as the message.
    Even strict pydantic takes ``true`` and ``1.0`` for ``Literal[1, 2]`` (they compare equal to 1), and
    lax mode took ``"100"``, ``"1_000"``, ``1e3`` and ``true`` as amounts; the WebSocket never did."""

    def check(value: object) -> object:
        if optional and value is None:
            return value
        if type(value) is not int:  # bool is a subclass of int, and not a number here
            raise PydanticCustomError("int_type", words)
        return value

    return BeforeValidator(check)


#: An amount in a request body: a JSON integer of minor units (cents), as on the WebSocket.
Amount = Annotated[int, json_integer(
    "amounts are whole numbers of minor units (cents) written as JSON integers, e.g. 1050 for 10.50")]


class Credentials(Strict):
    username: str = Field(min_length=3, max_length=32)
    password: str = Field(min_length=8, max_length=128)


class Movement(Strict):
    amount: Amount = Field(gt=0, le=MAX_AMOUNT, description="minor units")
    memo: str = Field(default="", max_length=200)


class BetsBody(Strict):
    bets: dict[str, Amount] = Field(description="wager code -> amount in minor units")
    round: int | None = Field(default=None, ge=1, le=2**31 - 1, description=(
        "the round the bets are meant for: refused if its betting has closed (without it, the open round)"))


class TableBody(Strict):
    name: str = Field(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9][A-Za-z0-9 _.-]*$")
    game: GameCode
    paytable: Annotated[Literal[1, 2], json_integer("the pay table is 1 or 2")] | None = Field(
        default=None, description="Lucky Draw's DrawWin pay table")
    decks: int = Field(default=8, ge=1, le=16)
    cut_card: int = Field(default=14, ge=0, le=832, description="cards behind the cut card")
    betting_seconds: float = Field(default=15.0, ge=0.1, le=600)
    decision_seconds: float = Field(default=10.0, ge=0.1, le=600)
    no_more_bets_seconds: float = Field(default=1.0, ge=0, le=10,
                                        description="from the close of betting to the first card")
    card_seconds: float = Field(default=0.6, ge=0, le=5, description="between two cards shown")
    results_seconds: float = Field(default=4.0, ge=0, le=60, description="the results pause before the next window")


class LimitsBody(Strict):
    minimum: Amount = Field(gt=0, le=MAX_AMOUNT, description="minor units; every wager must meet it")
    maximums: dict[str, Annotated[Amount, Field(gt=0, le=MAX_AMOUNT)]] = Field(
        default_factory=dict, description="wager code -> maximum in minor units")


class VoidBody(Strict):
    reason: str = Field(min_length=1, max_length=200, description="why the round is voided (kept with the round)")


class DecisionBody(Strict):
    action: Literal["draw", "stand"]
    round: int | None = Field(default=None, ge=1, le=2**31 - 1, description=(
        "the round the decision is meant for: refused once that round's decisions are over (without it, "
        "the round awaiting decisions)"))


def _client_seed(value: object) -> object:
    """A client seed as :mod:`baccarat.core.fair` takes it, refused in the player's words (not a regex)."""
    if not isinstance(value, str) or not CLIENT_SEED.fullmatch(value):
        raise PydanticCustomError("client_seed", CLIENT_SEED_RULE)
    return value


class ClientSeedBody(Strict):
    seed: Annotated[str, BeforeValidator(_client_seed)] = Field(pattern=r"^[\x21-\x7e]{1,64}$",
                                                                description=CLIENT_SEED_RULE)


class SeatBody(Strict):
    seat: int | None = Field(default=None, ge=1, le=7)
