"""Request bodies: what each route accepts, strictly (unknown fields and wrong JSON types refused).

Answers are the services' TypedDicts (:mod:`baccarat.server.api.responses`); both appear in ``/openapi.json``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from annotated_types import Ge, Gt, Le
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError

from baccarat.core.fair import CLIENT_SEED, CLIENT_SEED_RULE
from baccarat.core.money import MAX_AMOUNT
from baccarat.server.api.known_games import GameCode
from baccarat.server.api.text import KEYS, STORABLE, Text, TextKey
from baccarat.server.house import roles


class Strict(BaseModel):
    """Request bodies refuse unknown fields and take every value as the JSON type it is declared
    as: no ``"8"`` for 8 decks, no ``true`` for seat 1 (pydantic's default, lax mode, converts them)."""

    model_config = ConfigDict(extra="forbid", strict=True)


def json_integer(words: str, *, optional: bool = False) -> BeforeValidator:
    """Refuse anything but a JSON number that is a whole number (or, if ``optional``, null), with ``words``
    as the message: ``1050`` and ``1050.0`` (JSON Schema's ``integer``, which ``/openapi.json`` promises,
    is any number without a fraction), never ``10.5``, ``"1050"`` or ``true``.  Even strict pydantic takes
    ``true`` for ``Literal[1, 2]`` (it compares equal to 1) and refuses ``329.0`` for an ``int``; lax mode
    took ``"100"``, ``"1_000"`` and ``true`` as amounts."""

    def check(value: object) -> object:
        if optional and value is None:
            return value
        if type(value) is float and value.is_integer():  # no float over 2**53 passes the fields' maximums
            return int(value)
        if type(value) is not int:  # bool is a subclass of int, and not a number here
            raise PydanticCustomError("int_type", words)
        return value

    return BeforeValidator(check)


AMOUNT_WORDS = "amounts are whole numbers of minor units (cents), e.g. 1050 for 10.50"
#: An amount in a request body: a whole number of minor units (cents).
Amount = Annotated[int, json_integer(AMOUNT_WORDS)]
#: A round's number in a request body (a whole number; the bounds come before the check so that
#: ``/openapi.json`` shows them as JSON Schema's ``minimum`` and ``maximum``).
RoundNumber = Annotated[int, Ge(1), Le(2**31 - 1), json_integer("a round's number is a whole number")]


class Credentials(Strict):
    # The pattern is the schema's only: the server also takes what NFKC makes such a name (full-width
    # "Ａｌｉｃｅ" is "Alice"), and refuses anything else naming the character (account.username_character).
    username: Text = Field(min_length=3, max_length=32, json_schema_extra={
        "pattern": r"^[A-Za-z0-9_.-]{3,32}$",
        "description": "3 to 32 of the letters A-Z, the digits 0-9 and . _ - (compared without case)"})
    password: Text = Field(min_length=8, max_length=128)


def _one_of(choices: tuple[str, ...]) -> AfterValidator:
    """A text refused unless it is one of ``choices`` (which the field's schema lists as its ``enum``)."""
    def check(value: str) -> str:
        if value not in choices:
            raise PydanticCustomError("role", "a role here is one of: {roles}", {"roles": ", ".join(choices)})
        return value
    return AfterValidator(check)


#: A role (:mod:`baccarat.server.house.roles`); a staff role.
Role = Annotated[Text, _one_of(roles.ROLES), Field(json_schema_extra={"enum": list(roles.ROLES)})]
StaffRole = Annotated[Text, _one_of(roles.STAFF), Field(json_schema_extra={"enum": list(roles.STAFF)})]


class StaffBody(Credentials):
    role: StaffRole = Field(description="the staff role the new account has")


class RoleBody(Strict):
    role: Role = Field(description="a staff role, or player (no longer staff)")


class Movement(Strict):
    amount: Amount = Field(gt=0, le=MAX_AMOUNT, description="minor units")
    memo: Text = Field(default="", max_length=200)


class BetsBody(Strict):
    bets: dict[TextKey, Amount] = Field(min_length=1, description="wager code -> amount in minor units",
                                        json_schema_extra=KEYS)
    round: RoundNumber | None = Field(default=None, description=(
        "the round the bets are meant for: refused if its betting has closed (without it, the open round)"))


class TableBody(Strict):
    name: Text = Field(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9][A-Za-z0-9 _.-]*$")
    game: GameCode
    paytable: Annotated[Literal[1, 2], json_integer("the pay table is 1 or 2")] | None = Field(
        default=None, description="Lucky Draw's DrawWin pay table")
    decks: Annotated[int, Ge(1), Le(16), json_integer("decks are a whole number")] = 8
    cut_card: Annotated[int, Ge(0), Le(416), json_integer("the cut card's place is a whole number")] = Field(
        default=14, description="cards behind the cut card: at most half the shoe (26 for each deck)")
    betting_seconds: float = Field(default=15.0, ge=0.1, le=600)
    decision_seconds: float = Field(default=10.0, ge=0.1, le=600)
    no_more_bets_seconds: float = Field(default=1.0, ge=0, le=10,
                                        description="from the close of betting to the first card")
    card_seconds: float = Field(default=0.6, ge=0, le=5, description="between two cards shown")
    results_seconds: float = Field(default=4.0, ge=0, le=60, description="the results pause before the next window")
    squeeze_seconds: float = Field(default=0.0, ge=0, le=30, description=(
        "a squeeze table: each side's squeezer's time per card (1 to 30 s); 0: no squeeze"))


class LimitsBody(Strict):
    minimum: Amount = Field(gt=0, le=MAX_AMOUNT, description="minor units; every wager must meet it")
    # the bounds before the check, so that the schema shows them (after it, pydantic wrote "gt" and "le",
    # which are no JSON Schema words, and a client or Schemathesis sent 0 as a valid maximum)
    maximums: dict[TextKey, Annotated[int, Gt(0), Le(MAX_AMOUNT), json_integer(AMOUNT_WORDS)]] = Field(
        default_factory=dict, description="wager code -> maximum in minor units", json_schema_extra=KEYS)


class VoidBody(Strict):
    reason: Text = Field(min_length=1, max_length=200, description="why the round is voided (kept with the round)")


class DecisionBody(Strict):
    action: Literal["draw", "stand"]
    round: RoundNumber | None = Field(default=None, description=(
        "the round the decision is meant for: refused once that round's decisions are over (without it, "
        "the round awaiting decisions)"))


def _client_seed(value: object) -> object:
    """A client seed as :mod:`baccarat.core.fair` takes it, refused in the player's words (not a regex)."""
    if not isinstance(value, str) or not CLIENT_SEED.fullmatch(value):
        raise PydanticCustomError("client_seed", CLIENT_SEED_RULE)
    return value


class ClientSeedBody(Strict):
    seed: Annotated[str, BeforeValidator(_client_seed), STORABLE] = Field(pattern=r"^[\x21-\x7e]{1,64}$",
                                                                description=CLIENT_SEED_RULE)


class SeatBody(Strict):
    seat: Annotated[int, Ge(1), Le(7), json_integer("a seat is a whole number from 1 to 7")] | None = None
