"""A table socket's command, once its frame is read and its player known: a bet, chips taken back, a Lucky Draw
decision, or a squeeze's peel or turn, carried out in the caller's transaction (one command alone, or one of a
group commit's: :mod:`baccarat.server.playing.bulk_bets` places a batch's plain bets together, with the same
outcomes).

Money-moving commands carry an idempotency key (:func:`baccarat.server.house.wallet.idempotent`): a command sent
again gets the answer stored for it.  The transport (:mod:`baccarat.server.live.sockets`) parses frames and checks
the session's token; it writes no row itself."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from baccarat.core.errors import ConfigurationError
from baccarat.server.house import wallet
from baccarat.server.playing import betting, dealing, squeeze
from baccarat.server.playing.betting import BetAnswer, TakeBackAnswer
from baccarat.server.playing.bulk_bets import CommandFrame, bet_frame, frame_round
from baccarat.server.playing.dealing import DecisionAnswer
from baccarat.server.storage.models import now as _now

#: A command's answer: bets placed, a Lucky Draw decision taken, or the peel on show.
CommandAnswer = BetAnswer | TakeBackAnswer | DecisionAnswer | squeeze.Peel


def run(s: Session, table_id: int, account_id: int, frame: CommandFrame, received: datetime | None = None
        ) -> CommandAnswer:
    """Carry out the command ``frame`` of the player ``account_id`` at ``table_id``, which arrived at ``received``
    (a bet is on time if it arrived before the close); refused in the player's words when it is not one."""
    kind, key = frame.get("type"), frame.get("key")
    if kind == "squeeze":  # the peel on show: no key (a resent peel shows the same lift), no money moves
        return squeeze.peel(s, table_id, account_id, frame.get("card"), frame.get("lift"), _now(),
                            frame.get("edge", "corner"))
    if kind == "turn":
        return squeeze.turn(s, table_id, account_id, frame.get("card"), _now())
    if not isinstance(key, str):
        raise ConfigurationError.coded("command.key_missing")
    if kind == "bet":
        bets, number = bet_frame(frame)
        return wallet.idempotent(s, account_id, key, betting.bet_request(table_id, bets, number),
                                 lambda: betting.place_bets(s, table_id, account_id, bets, received,
                                                           round_number=number))
    if kind == "take_back":
        bets, number = bet_frame(frame)
        return wallet.idempotent(s, account_id, key, betting.take_back_request(table_id, bets, number),
                                 lambda: betting.take_back(s, table_id, account_id, bets, received,
                                                           round_number=number))
    if kind == "decision":
        action = frame.get("action")
        if action not in ("draw", "stand"):
            raise ConfigurationError.coded("command.action")
        number = frame_round(frame, "command.decision_round")
        return wallet.idempotent(s, account_id, key, betting.decision_request(table_id, action, number),
                                 lambda: dealing.decide(s, table_id, account_id, action, round_number=number))
    raise ConfigurationError.coded("command.unknown")
