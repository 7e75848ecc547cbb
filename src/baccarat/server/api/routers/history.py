"""Your rounds: the recent ones with their cards and results, and the export ``baccarat verify`` checks."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from baccarat.server.api.deps import REFUSALS, Token, look, me
from baccarat.server.api.text import Text
from baccarat.server.house import export_signature
from baccarat.server.playing import history as played
from baccarat.server.playing import scoreboards, shapes

router = APIRouter(tags=["history"], responses=REFUSALS)


@router.get("/api/history", response_model=list[shapes.RecallEntry])
def history(request: Request, token: Token,
            table: Annotated[int | None, Query(ge=1, le=2**31 - 1, description="only this table's rounds")] = None,
            before: Annotated[Text | None, Query(max_length=32, description=(
                "the `cursor` of the last round you have: the rounds dealt before it"))] = None,
            limit: Annotated[int, Query(ge=1, le=scoreboards.MOST_RECALL_ROUNDS, description="how many rounds")]
            = scoreboards.RECALL_ROUNDS) -> list[shapes.RecallEntry]:
    """Your last rounds whose results are shown, the newest dealt first (page on with `before`): cards in deal
    order, bets, results, balances, and in Lucky Draw the seat you played from."""
    account = me(request, token)
    return look(request, lambda s: scoreboards.recall(s, account.id, limit, table_id=table, before=before))


@router.get("/api/history/export", response_model=played.HistoryExport)
def history_export(request: Request, token: Token, limit: Annotated[int, Query(
        ge=1, le=played.MOST_ROUNDS, description="how many of your last rounds")] = played.DEFAULT_ROUNDS,
        ) -> played.HistoryExport:
    """Your last rounds with their bets, settlements and balances, your wallet's movements since,
    and the records of their shoes once revealed, signed by the house (its key: `GET /api/fairness/key`): check it
    with `baccarat verify FILE --key KEY`."""
    account = me(request, token)
    answer = look(request, lambda s: played.export(s, account.id, limit))
    answer["signature"] = export_signature.signature(answer, request.app.state.signing_key)
    return answer
