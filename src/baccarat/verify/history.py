"""Played rounds against their shoes: a ``baccarat play --json`` transcript or a player's history
exported by the table server.  Each round's cards, hands, result, wager events and payouts are
recomputed from the shoe; the balances are followed from round to round (a transcript) or through
the wallet's movements (an export)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from baccarat.verify import definitions
from baccarat.verify.rules import (
    FIRST_DEAL_WAGERS,
    VOID,
    WAGERS,
    Dealt,
    callouts,
    fee,
    game_key,
    settle,
    total,
    unknown_game,
    winnings,
)
from baccarat.verify.shoe import DealtRound, RecordError, ShoeVerdict, said, verify_shoe
from baccarat.verify.strikes import MULTIPLIED, factor

#: The ``format`` of the table server's history export (``GET /api/history/export``).
EXPORT_FORMAT = "baccarat history export/1"
_PUNTO_BANCO = ("player_cards", "banker_cards", "player_total", "banker_total", "result")
_LUCKY_DRAW = ("seat_cards", "dealer_cards", "seat_total", "dealer_total", "result")


@dataclass
class Report:
    """Everything checked in one file: the shoes, the rounds played on them, what could not be checked yet."""

    kind: str  #: "records", "transcript" or "export"
    shoes: list[ShoeVerdict]
    rounds: int = 0  #: played rounds recomputed from their shoe
    proven: int = 0  #: of them, rounds of a shoe in play proven against its Merkle root (algorithm 3)
    pending: list[str] = field(default_factory=list)  #: rounds whose shoe is still in play
    problems: list[str] = field(default_factory=list)  #: every mismatch, the shoes' included

    @property
    def ok(self) -> bool:
        return not self.problems


def _int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _bets(claim: dict[str, Any], game: str, where: str) -> dict[str, int]:
    bets = claim.get("bets")
    if not isinstance(bets, dict) or not all(isinstance(k, str) and _int(v) and v > 0 for k, v in bets.items()):
        raise RecordError(f"{where}: 'bets' is wager code -> amount in cents")
    unknown = sorted(set(bets) - set(WAGERS[game]))
    if unknown:
        raise RecordError(f"{where}: {', '.join(unknown)} is not a wager of {game}")
    return bets


def check_round(where: str, game: str, claim: dict[str, Any], derived: DealtRound, seat: str,
                problems: list[str]) -> int:
    """Compare what the record says of one played round with the round the seed deals; returns
    the net result of its bets as the seed gives it (what the balance moves by)."""
    dealt = derived.dealt
    bets = _bets(claim, game, where)
    cards = claim.get("deal_order", claim.get("cards"))
    if cards != dealt.cards and (cards is not None or dealt.cards):  # (none written and none dealt: a void)
        problems.append(said(where, "cards", cards, dealt.cards, derived.source))
    lucky = game.startswith("lucky-draw")
    if lucky and dealt.hands and seat not in dealt.hands:
        problems.append(said(where, "seat", seat, [h for h in dealt.hands if h != "dealer"], "the round's seats are"))
        return sum(-stake for stake in bets.values())
    if dealt.hands and not derived.void:
        if lucky:
            mine, dealer = dealt.hands[seat], dealt.hands["dealer"]
            seed_gives = dict(zip(_LUCKY_DRAW, (mine, dealer, total(mine), total(dealer), dealt.seat_result(seat)),
                                  strict=True))
            drew = seat.split(":")[1] in {str(s) for s in derived.entry.get("drew", [])}
            if ("draw" in bets) != drew:
                problems.append(said(where, "draw", "drew" if "draw" in bets else "stood",
                                     "drew" if drew else "stood", "the shoe's record of the round says"))
        else:
            player, banker = dealt.hands["player"], dealt.hands["banker"]
            seed_gives = dict(zip(_PUNTO_BANCO, (player, banker, total(player), total(banker), dealt.winner()),
                                  strict=True))
        for name, value in seed_gives.items():
            if claim.get(name) != value:  # a field left out is named as well: the record says nothing
                problems.append(said(where, name, claim.get(name), value, derived.source))
    events, nets = claim.get("events", {}), claim.get("net", {})
    if not isinstance(events, dict) or not isinstance(nets, dict):
        raise RecordError(f"{where}: 'events' and 'net' are wager code -> event / cents")
    moved = 0
    block = None
    multiplied = _strike_factor(where, game, claim, derived, problems)
    for code, stake in bets.items():
        if (derived.void and code not in FIRST_DEAL_WAGERS) or not dealt.hands:
            event, net = VOID, 0  # handed back: the round was voided before it was settled
        else:
            event, net = settle(game, code, stake, dealt, seat)
            if multiplied is not None and code in multiplied[0] and net > 0:
                net = winnings(stake, WAGERS[game][code][1][event] * multiplied[1])
        block = event if code == "block_bonus" else block
        if events.get(code) != event:
            problems.append(said(where, f"event of {code}", events.get(code), event, derived.source))
        if nets.get(code) != net:
            problems.append(said(where, f"payout of {code}", nets.get(code), net, derived.source))
        moved += net
    for code in sorted((set(events) | set(nets)) - set(bets)):
        problems.append(said(where, f"settlement of {code}", "a settlement", "no such bet", "the bets show"))
    if "callouts" in claim and dealt.hands and not derived.void and claim["callouts"] != callouts(game, dealt, block):
        problems.append(said(where, "callouts", claim["callouts"], callouts(game, dealt, block), derived.source))
    return moved


def _strike_factor(where: str, game: str, claim: dict[str, Any], derived: DealtRound, problems: list[str]
                   ) -> tuple[tuple[str, ...], int] | None:
    """A game with struck cards: the wagers multiplied and what the coup's strike multiplies their wins by.  The
    strike is the seed's (the record's must be the same); while the seed is not revealed, the record's."""
    game_feature = MULTIPLIED.get(game)
    if game_feature is None or not derived.dealt.hands or derived.void:
        return None
    recorded = claim.get("strike")
    struck = derived.strike
    if struck is None:  # the shoe is in play: the strike is checked when its seed is revealed
        if not isinstance(recorded, list) or not all(isinstance(s, dict) and set(s) == {"card", "multiplier"}
                                                     for s in recorded):
            raise RecordError(f"{where}: 'strike' is a list of {{card, multiplier}}")
        struck = recorded
    elif recorded != struck:
        problems.append(said(where, "struck cards", recorded, struck, derived.source))
    return game_feature.wagers, factor(struck, derived.dealt.hands, derived.dealt.winner(), game_feature.cap)


def verify_transcript(doc: dict[str, Any]) -> Report:
    """A ``baccarat play --json`` transcript: its shoes, then every round against them, the round
    numbers, the balance after each round and the final balance."""
    game = game_key(doc.get("game"), doc.get("paytable"))
    records, rounds = doc.get("shoes"), doc.get("rounds")
    if "game" not in doc or not isinstance(records, list) or not isinstance(rounds, list):
        raise RecordError("a transcript has 'game', 'rounds' and 'shoes'")
    if game is None:
        raise RecordError(unknown_game(doc.get("game"), doc.get("paytable")))
    report = Report("transcript", [])
    verdicts: dict[object, ShoeVerdict] = {}
    if game.startswith("lucky-draw"):
        records = _one_seat(records, rounds)
    for index, record in enumerate(records, start=1):
        verdict = verify_shoe(record, game=doc.get("game"), paytable=doc.get("paytable"),
                              your_seed=doc.get("client_seed"))
        report.shoes.append(verdict)
        if record.get("shoe") != index:
            report.problems.append(said(f"shoe {verdict.shoe}", "shoe number", record.get("shoe"), index,
                                        "the order of the shoes gives"))
        verdicts[record.get("shoe")] = verdict
    problems = report.problems
    if "bankroll" in doc and not (_int(doc["bankroll"]) and doc["bankroll"] >= 0):
        raise RecordError("'bankroll' is the starting balance in whole minor units (cents)")
    balance = doc.get("bankroll")  # (None: a transcript from before it was written)
    # After a wrong balance, the record may go on from its own figure (a removed round, a forged win:
    # one mismatch, not one per round after it) or from the right one (one figure edited): both are followed.
    theirs: int | None = None
    expected_round = 1
    seen: set[tuple[object, int]] = set()
    for claim in rounds:
        if not isinstance(claim, dict):
            raise RecordError("each round is a JSON object")
        if "rejected" in claim:  # a refused line changes nothing
            if balance is not None and claim.get("balance") not in _either(balance, theirs):
                problems.append(said(f"after round {expected_round - 1}", "balance of a refused line",
                                     claim.get("balance"), balance, "the rounds before give"))
            continue
        number, shoe = claim.get("round"), claim.get("shoe")
        if not isinstance(number, int) or isinstance(number, bool):
            raise RecordError("each round played has its 'round' number")
        where = f"shoe {shoe}, round {number}"
        if number != expected_round:
            problems.append(said(where, "round number", number, expected_round, "the count of rounds gives"))
        expected_round = number + 1
        in_shoe = verdicts.get(shoe)
        derived = None if in_shoe is None else in_shoe.dealt.get(number)
        if derived is None:
            problems.append(f"{where}: not in {'any shoe record' if in_shoe is None else f'the record of shoe {shoe}'}")
            continue
        seen.add((shoe, number))
        net = check_round(where, game, claim, derived, "seat:1", problems)
        report.rounds += 1
        report.proven += in_shoe is not None and in_shoe.proven
        if balance is None and _int(claim.get("balance")):
            balance = claim["balance"] - net  # no bankroll written (an old transcript): start from here
        if balance is not None:
            staked, before = sum(claim["bets"].values()), max(_either(balance, theirs))
            if staked > before:  # play refuses such a line: no bet (nor Draw) beyond the balance
                problems.append(said(where, "stakes", staked, f"at most {before}",
                                     "the balance before the round allows"))
            balance += net
            theirs = None if theirs is None else theirs + net
            if theirs is not None and claim.get("balance") == theirs:
                balance = theirs  # the record goes on from its own figure: named once, where it went wrong
            elif claim.get("balance") != balance:
                problems.append(said(where, "balance", claim.get("balance"), balance))
                theirs = claim["balance"] if _int(claim.get("balance")) else None
            else:
                theirs = None
    for shoe, verdict in verdicts.items():
        for number in verdict.dealt:
            if (shoe, number) not in seen:
                problems.append(f"shoe {shoe}, round {number}: in the shoe's record but not among the rounds")
    if balance is not None and doc.get("final_balance") not in _either(balance, theirs):
        problems.append(said("the session", "final balance", doc.get("final_balance"), balance))
    report.problems = [p for v in report.shoes for p in v.problems] + problems
    return report


def _either(balance: int, theirs: int | None) -> tuple[int, ...]:
    """The balances a record may show: the seed's, and the record's own after an earlier mismatch."""
    return (balance,) if theirs is None else (balance, theirs)


def _one_seat(records: list[Any], rounds: list[Any]) -> list[Any]:
    """Transcripts written before shoe records named their Lucky Draw seats: one seat, seat 1,
    which drew when the round's bets hold a Draw wager."""
    drew = {(r.get("shoe"), r.get("round")): "draw" in r.get("bets", {})
            for r in rounds if isinstance(r, dict) and "rejected" not in r and isinstance(r.get("bets"), dict)}
    filled = []
    for record in records:
        if isinstance(record, dict) and isinstance(record.get("rounds"), list):
            record = {**record, "rounds": [
                {"seats": [1], "drew": [1] if drew.get((record.get("shoe"), entry.get("round"))) else [], **entry}
                if isinstance(entry, dict) else entry for entry in record["rounds"]]}
        filled.append(record)
    return filled


def verify_export(doc: dict[str, Any]) -> Report:
    """A player's history from the table server: the revealed shoes, every round on them, and the
    wallet's movements (stakes and returns of each round, the balance after each movement)."""
    records, rounds, movements = doc.get("shoes"), doc.get("rounds"), doc.get("movements")
    if not isinstance(records, list) or not isinstance(rounds, list) or not isinstance(movements, list):
        raise RecordError("a history export has 'rounds', 'movements' and 'shoes'")
    report = Report("export", [])
    problems: list[str] = []
    unreadable = _read_definitions(doc.get("definitions", {}), problems)
    verdicts: dict[tuple[object, object], ShoeVerdict] = {}
    defined: dict[tuple[object, object], object] = {}  # (table, shoe) -> the definition its record names
    for record in records:
        if not isinstance(record, dict):
            raise RecordError("a shoe record is a JSON object")
        label = f"table {record.get('table')} shoe {record.get('shoe')}"
        defined[(record.get("table_id"), record.get("shoe"))] = record.get("definition")
        if record.get("definition") in unreadable:  # named once, above: its rounds cannot be checked
            continue
        verdict = verify_shoe(record, label=label, your_seed=record.get("your_client_seed"))
        report.shoes.append(verdict)
        verdicts[(record.get("table_id"), record.get("shoe"))] = verdict
    returned = _movements(movements, problems)
    # the shoes the export says are still being dealt (their records not given yet); any other round's shoe must
    # have its record here: one left out is a mismatch, not "not yet" (an export made before this list: not yet)
    still = doc.get("in_play")
    dealing = {(s.get("table_id"), s.get("shoe")) for s in still if isinstance(s, dict)} if isinstance(still, list) \
        else None
    pending: dict[str, int] = {}

    def without_record(claim: dict[str, Any], table: object, shoe: object, where: str) -> None:
        """A round whose shoe has no record here: awaited while the export lists the shoe as still dealt (or lists
        none, an export made before the list), else a mismatch."""
        if dealing is not None and (table, shoe) not in dealing:
            problems.append(f"{where}: the record of its shoe is missing, and the export does not list the shoe as "
                            "still being dealt (an ended shoe's record left out)")
            return
        waiting = f"table {claim.get('table')} shoe {shoe}"
        pending[waiting] = pending.get(waiting, 0) + 1

    last: dict[object, int] = {}
    listed: set[tuple[object, object]] = set()
    for claim in rounds:
        if not isinstance(claim, dict) or not _int(claim.get("round")):
            raise RecordError("each round is a JSON object with its 'round' number")
        table, number, shoe = claim.get("table_id"), claim["round"], claim.get("shoe")
        where = f"table {claim.get('table')} shoe {shoe}, round {number}"
        listed.add((table, number))
        if number <= last.get(table, 0):
            problems.append(said(where, "round number", number, f"a number after {last[table]}",
                                 "the order of the table's rounds needs"))
        last[table] = number
        definition = defined.get((table, shoe))
        if definition in unreadable:
            problems.append(f"{where}: not checked: the definition of its game is not the one its shoe names")
            continue
        game = game_key(claim.get("game"), claim.get("paytable"), definition)
        if claim.get("status") not in ("settled", "void"):
            continue  # still in play: its stakes are in the movements, its results are not in yet
        if game is None and (table, shoe) not in defined:  # a game from a rules file, its shoe's record not here
            without_record(claim, table, shoe, where)
            continue
        if game is None:
            raise RecordError(f"{where}: {unknown_game(claim.get('game'), claim.get('paytable'))}")
        in_shoe = verdicts.get((table, shoe))
        if not claim.get("cards"):  # voided before any card was dealt: every stake handed back
            derived = DealtRound(number, Dealt([], {}), {}, void=True)
        elif in_shoe is None:
            without_record(claim, table, shoe, where)
            continue
        else:
            found = in_shoe.dealt.get(number)
            if found is None:
                problems.append(f"{where}: not in the shoe's record")
                continue
            derived = found
        net = check_round(where, game, claim, derived, str(claim.get("seat", "")), problems)
        report.rounds += 1
        report.proven += in_shoe is not None and in_shoe.proven
        fees = sum(fee(game, code, stake) for code, stake in claim["bets"].items())
        _round_money(where, claim, net, returned.get((table, number)), problems, fees=fees, void=derived.void)
    for key, (first_id, *_rest) in returned.items():
        if key not in listed:
            problems.append(f"movement {first_id}: for table {key[0]} round {key[1]}, which is not among the rounds")
    if movements and doc.get("balance") != movements[-1].get("balance"):
        problems.append(said("your wallet", "balance", doc.get("balance"), movements[-1].get("balance"),
                             "the last movement gives"))
    report.pending = [f"{where}: {n} of your rounds, verifiable when the shoe ends" for where, n in pending.items()]
    report.problems = [p for v in report.shoes for p in v.problems] + problems
    return report


def _read_definitions(given: object, problems: list[str]) -> set[object]:
    """Read the export's rules files (digest -> text), each checked against its digest; those that do not match
    it, or cannot be read, are named in ``problems`` and returned (their shoes' rounds are not checked)."""
    if not isinstance(given, dict):
        raise RecordError("'definitions' is digest -> the text of a rules file")
    unreadable: set[object] = set()
    for named, text in given.items():
        if not isinstance(text, str):
            raise RecordError("'definitions' is digest -> the text of a rules file")
        try:
            actual = definitions.digest(text)
            if actual != named:
                unreadable.add(named)
                problems.append(said(f"the rules file {str(named)[:16]}", "definition", f"content of digest "
                                     f"{actual[:16]}", f"the content of digest {str(named)[:16]}",
                                     "the shoe records name"))
                continue
            definitions.read(text)
        except definitions.DefinitionError as error:
            unreadable.add(named)
            problems.append(f"the rules file {str(named)[:16]}: {error}")
    return unreadable


Moved = tuple[int, int, int]


def _movements(movements: list[Any], problems: list[str]) -> dict[tuple[object, object], Moved]:
    """Check that each movement's balance is the one before it plus its amount; per round (table id,
    number): its first movement's id, its stakes and what it paid back."""
    rounds: dict[tuple[object, object], Moved] = {}
    previous: int | None = None
    for movement in movements:
        if not isinstance(movement, dict) or not all(_int(movement.get(k)) for k in ("id", "amount", "balance")):
            raise RecordError("each movement has its 'id', 'amount' and 'balance' in cents")
        amount, balance = movement["amount"], movement["balance"]
        if previous is not None and balance != previous + amount:
            problems.append(said(f"movement {movement['id']}", "balance", balance, previous + amount,
                                 "the movement before it and this amount give"))
        previous = balance
        if movement.get("round") is None:
            continue
        key = (movement.get("table_id"), movement.get("round"))
        first, stakes, returns = rounds.get(key, (movement["id"], 0, 0))
        if movement.get("kind") == "stake":
            stakes += amount
        else:
            returns += amount
        rounds[key] = (first, stakes, returns)
    return rounds


def _round_money(where: str, claim: dict[str, Any], net: int, moved: Moved | None, problems: list[str], *,
                 fees: int = 0, void: bool = False) -> None:
    """A round's stakes (with their fees, for a game that charges them) and what it paid back, in the wallet's
    movements; a void hands the fees back too.  (Its balance before and after are those movements' balances: with
    rounds at several tables under way at once, no other figure is exact.)"""
    staked = sum(claim["bets"].values())
    if moved is None:
        problems.append(f"{where}: no movement of your wallet for this round")
        return
    _first, stakes, returns = moved
    if -stakes != staked + fees:
        problems.append(said(where, "stakes", -stakes, staked + fees,
                             "the bets and their fees come to" if fees else "the bets come to"))
    if returns != staked + net + (fees if void else 0):
        problems.append(said(where, "paid back", returns, staked + net + (fees if void else 0)))
