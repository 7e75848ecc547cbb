"""The player's own protection (:mod:`baccarat.server.house.protection`): limits, the reality check,
a time-out or self-exclusion.  Any logged-in account may set its own; nobody can shorten a break."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from annotated_types import Ge, Gt, Le
from fastapi import APIRouter, Request
from pydantic import ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema
from sqlalchemy.orm import Session

from baccarat.core.errors import AuthenticationError
from baccarat.core.money import MAX_AMOUNT
from baccarat.server.api.deps import REFUSALS, Caller, Token, look, run
from baccarat.server.api.requests import Strict, json_integer
from baccarat.server.house import accounts, protection
from baccarat.server.playing import seating

router = APIRouter(prefix="/api/protection", tags=["player protection"], responses=REFUSALS)


# The bounds sit on the int itself, before the whole-number check, so that /openapi.json shows them as
# JSON Schema's minimum and maximum (after it, pydantic wrote "ge" and "le", which no client reads).
class LimitBody(Strict):
    kind: Literal["loss", "stake"]
    period: Literal["day", "week", "month"] = Field(description="rolling: 24 hours, 7 days, 30 days")
    amount: Annotated[Annotated[int, Gt(0), Le(MAX_AMOUNT)] | None, json_integer(
        "a limit is a whole number of cents", optional=True)] = Field(
        description="minor units; null removes the limit (after 24 hours); required, so a "
        "forgotten amount never asks for a removal")


class RealityBody(Strict):
    minutes: Annotated[Annotated[int, Ge(protection.REALITY_MINUTES[0]), Le(protection.REALITY_MINUTES[1])] | None,
                       json_integer("minutes are a whole number", optional=True)] = Field(
        description="a reality check every 15 to 60 minutes; null: none (required: leaving it out is no answer)")


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)  # absent is the default; null itself is refused, so the schema must not offer it


class BreakBody(Strict):
    """Exactly one of ``hours`` and ``months``, a whole number (null is refused: leave the other out); the
    schema says so with ``minProperties`` and ``maxProperties``, the server with ``protection.break_choice``."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1, "maxProperties": 1})

    hours: Annotated[Annotated[int, Ge(protection.TIMEOUT_HOURS[0]), Le(protection.TIMEOUT_HOURS[1])]
                     | SkipJsonSchema[None], json_integer("hours are a whole number")] = Field(
        default=None, json_schema_extra=_no_default, description="a time-out: 24 hours to 6 weeks (1008 hours)")
    months: Annotated[Annotated[int, Ge(protection.EXCLUSION_MONTHS[0]), Le(protection.EXCLUSION_MONTHS[1])]
                      | SkipJsonSchema[None], json_integer("months are a whole number")] = Field(
        default=None, json_schema_extra=_no_default, description="self-exclusion: 6 months to 5 years (60 months)")


def _with_session(request: Request, token: str | None, caller_id: int) -> protection.ProtectionStatus:
    def work(s: Session) -> protection.ProtectionStatus:
        answer = protection.status(s, caller_id)
        try:
            answer["session"] = protection.session_result(s, caller_id, accounts.session_started(s, token or ""))
        except AuthenticationError:  # pragma: no cover - the token was checked a moment ago
            answer["session"] = None
        return answer
    return look(request, work)


@router.get("", response_model=protection.ProtectionStatus)
def your_protection(request: Request, caller: Caller, token: Token) -> protection.ProtectionStatus:
    """Your limits (used and left), reality-check interval, any break in force, and this session's
    time played and net result (what the reality check shows)."""
    return _with_session(request, token, caller.id)


@router.put("/limits", response_model=protection.ProtectionStatus)
def set_limit(request: Request, body: LimitBody, caller: Caller, token: Token) -> protection.ProtectionStatus:
    """A loss or stake limit per rolling day, week or month: a lower one at once, a higher one (or
    none) after 24 hours."""
    run(request, lambda s: protection.set_limit(s, caller.id, body.kind, body.period, body.amount))
    return _with_session(request, token, caller.id)


@router.put("/reality-check", response_model=protection.ProtectionStatus)
def set_reality_check(request: Request, body: RealityBody, caller: Caller, token: Token) -> protection.ProtectionStatus:
    run(request, lambda s: protection.set_reality_check(s, caller.id, body.minutes))
    return _with_session(request, token, caller.id)


@router.post("/break", response_model=protection.ProtectionStatus, status_code=201)
def take_break(request: Request, body: BreakBody, caller: Caller, token: Token) -> protection.ProtectionStatus:
    """A time-out (hours) or self-exclusion (months).  It cannot be shortened, by you or anyone."""
    run(request, lambda s: seating.take_break(s, caller.id, hours=body.hours, months=body.months))
    return _with_session(request, token, caller.id)
