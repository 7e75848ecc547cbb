"""Provably fair: your client seed, taken into each shoe you bet on before its first deal."""

from __future__ import annotations

from fastapi import APIRouter, Request

from baccarat.server.api.deps import REFUSALS, Token, look, me, run
from baccarat.server.api.requests import ClientSeedBody
from baccarat.server.house import export_signature
from baccarat.server.playing import fairness

router = APIRouter(tags=["fairness"], responses=REFUSALS)


@router.get("/api/fairness/client-seed", response_model=fairness.ClientSeed)
def your_client_seed(request: Request, token: Token) -> fairness.ClientSeed:
    """Your client seed (none until you set one) and the shuffling algorithm it feeds."""
    account = me(request, token)
    return look(request, lambda s: fairness.client_seed(s, account.id))


@router.put("/api/fairness/client-seed", response_model=fairness.ClientSeedSet)
def set_client_seed(request: Request, body: ClientSeedBody, token: Token) -> fairness.ClientSeedSet:
    """Your client seed, taken into each shoe you bet on before its first deal."""
    account = me(request, token)
    return run(request, lambda s: fairness.set_client_seed(s, account.id, body.seed))


@router.get("/api/fairness/key", response_model=export_signature.HouseKey)
def house_key(request: Request) -> export_signature.HouseKey:
    """The key the house signs your history exports with (`GET /api/history/export`): check an export with
    `baccarat verify FILE --key KEY.pem`.  Compare its fingerprint with the one the house publishes."""
    return export_signature.house_key(request.app.state.signing_key.public_key())
