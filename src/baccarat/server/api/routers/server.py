"""``GET /api/server``: which process answered, whether it deals, and how its table sockets hear of
changes (for an operator running several processes on one PostgreSQL database)."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request
from pydantic import Field

from baccarat.server.api.responses import Answer

router = APIRouter(tags=["server"])


class ServerState(Answer):
    process: int = Field(description="the operating system's id of the process that answered")
    dealer: bool = Field(description="whether this process deals (it holds the dealer's lock)")
    pushes: Literal["notify", "poll"] = Field(
        description="notify: its table sockets are woken by PostgreSQL LISTEN/NOTIFY; poll: they poll")


@router.get("/api/server", response_model=ServerState)
def server_state(request: Request) -> ServerState:
    """This process: its id, whether it is the dealer now, and how it pushes table changes."""
    state = request.app.state
    return ServerState(process=state.process, dealer=state.leadership.leading, pushes=state.pushes)
