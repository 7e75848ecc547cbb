"""The server's words, by code: one catalogue of English templates for every refusal, every reason
a hand drew or stood, and every piece of table news.

Codes travel, words stay home: a refusal sends its stable ``code`` (``area.what`` in lower snake
case) and its ``params`` (machine values: amounts in integer minor units, wager and game *codes*,
seconds as numbers, times in ISO 8601), and each language's catalogue turns them into words.  This
module is the English one, used for the ``message`` the server sends beside the code, for the
command line and for logs; the page's catalogues (``static/i18n/*.js``) hold a key for every code here.

A template is :meth:`str.format` text with named fields.  A field's format spec says how its machine
value reads in English:

``money``
    minor units as currency units (:func:`format_amount`): ``1250`` reads ``12.50``
``name``
    the English name given for that field (a wager's or a game's name, from its registry record)
``a_name``
    the same name after ``a`` or ``an`` ("an Enter", "a Banker")
``seconds``
    ``1 second``, ``5 seconds``
``utc``
    an ISO 8601 time as ``YYYY-MM-DD HH:MM`` (the time is in UTC), rounded up to the minute: an end time
    (a break's) is never shown as a minute it still runs; the page's ``dateTime`` rounds the same way
``list`` / ``or_list``
    the items joined by ``,`` or by ``or``
``word``
    the catalogue's ``word.<field>.<value>``: a machine value ("day") in English words ("24 hours")

Any other spec (``g``, or the conversion ``!r``) is Python's own.

>>> render("bet.above_maximum", {"wager": "banker", "amount": 999999, "maximum": 500000},
...        names={"wager": "Banker"})
'Banker bet 9999.99 is above its maximum of 5000.00'
>>> render("rate.limited", {"seconds": 1, "rule": "username"})
'too many failed sign-ins for this username; try again in 1 second'
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from datetime import datetime, timedelta

#: A parameter as it travels: JSON's own values.
Param = str | int | float | bool | None | list[str] | list[int]

#: Minor units (cents) per currency unit (:data:`baccarat.core.money.MINOR_UNITS` is this one).
MINOR_UNITS = 100

_USERNAME_RULE = "use 3 to 32 of the letters A-Z (without accents), the digits 0-9 and . _ -"
_BLOCKED = ("runs until {until:utc} UTC: you can see your balance and history, and play again after that. "
            "Help: {help_phone}, {help_site}")
_LIMIT = "this bet of {stake:money} would pass your {kind:word} limit of {limit:money} per {period:word}: " \
         "{left:money} is left; "
_THIRD = "with the Player's third card {third} (draws when it is "

#: Code -> English template.  The words must stay as they are: players, logs and tests read them.
CATALOGUE: dict[str, str] = {
    # --- families: an error raised with words only carries its family's code and no params
    "error.refused": "the request was refused",
    "amount.invalid": "the amount is not valid",
    "wager.invalid": "that wager is not offered here",
    "bet.limit": "the bet is outside the table's limits",
    "funds.insufficient": "the balance is too low for this",
    "bet.prerequisite": "this wager needs another wager first",
    "action.not_allowed": "that is not allowed now",
    "protection.refused": "your safer-play settings refuse this",
    "lookup.not_found": "nothing was found by that number",
    "card.invalid": "a card is written like 9h, Td or As",
    "shoe.problem": "the shoe cannot do that",
    "configuration.invalid": "a setting is not valid",
    "rules.invalid": "the rules file is not valid",
    "script.invalid": "the script is not valid",
    "replay.invalid": "the event log does not replay",
    "auth.required": "log in first",
    "auth.forbidden": "you may not do this",
    "request.conflict": "the request conflicts with what is stored",
    "rate.too_many": "too many attempts; try again later",
    "service.unavailable": "a service this command needs cannot be reached",
    # --- amounts
    "amount.not_text": "amount must be text such as '10' or '12.50', got {amount!r}",
    "amount.not_decimal": "amount {amount!r} is not a number of currency units with at most two decimals",
    "amount.not_whole": "amount must be a whole number of minor units, got {amount!r}",
    "amount.not_positive": "amount must be positive, got {amount:money}",
    "amount.too_large": "amount {amount:money} is larger than any table allows",
    # --- games and wagers
    "game.unknown": "unknown game {game!r}; games are: {games:list}",
    "game.paytable": "DrawWin pay table must be 1 or 2, got {paytable!r}",
    "wager.unknown": "unknown wager {wager!r} in {game:name}; wagers are: {wagers:list}",
    "limits.minimum": "table minimum must be a positive amount, got {minimum!r}",
    "limits.maximum_below_minimum": "maximum for {wager} must be at least the table minimum",
    "limits.not_at_betting": "{wager!r} is not placed at the betting stage in {game:name}",
    "strategy.no_draw": "{game:name} has no Draw decision",
    "roads.none": "{game:name} has no Banker and Player scoreboards",
    # --- tables and seats
    "table.unknown": "no table {table}",
    "table.closed": "the table is closed",
    "table.full": "the table is full",
    "table.busy": "the table is busy; try again",
    "table.name_taken": "there is already a table called {name!r}",
    "table.window": "the {window:word} window is 0.1 to 600 seconds",
    "table.pause": "the {pause:word} pause is 0 to {most} seconds",
    "seat.out_of_range": "seat must be a number from 1 to {seats}",
    "seat.not_a_seat": "seat must be a number from 1 to {seats}, got {seat!r}",
    "seat.taken": "seat {seat} is taken",
    "seat.taken_by": "seat {seat} is taken by {player}",
    "seat.needs_name": "a player needs a name to sit down",
    "seat.empty": "nobody sits at seat {seat}",
    "seat.has_bets": "seat {seat} has bets in play; leave after the round",
    "seat.leave_with_bets": "your bets are on the layout: you can leave once this round is settled",
    "seat.stand_with_bets": "the player at seat {seat} has bets in play: stand them up once this round is settled",
    # --- betting
    "bet.malformed": "bets are wager code -> amount in minor units",
    "bet.no_wager": "no wager given",
    "bet.betting_over": "no more bets: betting is not open",
    "bet.betting_not_opened": "betting has not opened yet",
    "bet.round_over": "no more bets: wait for the next round to open",
    "bet.opens_in": "betting opens in {seconds} s: round {round} takes bets then",
    "bet.closed": "no more bets: betting closed for round {round}; bet on the next round",
    "bet.round_not_open": "round {round} is not open for bets yet",
    "bet.round_not_open_other": "round {round} is not open for bets yet: round {open} is",
    "bet.round_closed": "no more bets: betting closed for round {round}",
    "bet.round_closed_other": "no more bets: betting closed for round {round}; round {open} is open",
    "bet.sit_first": "take a seat at the table first: in Lucky Draw each seat plays its own hand",
    "bet.draw_at_decision": "the {wager:name} wager is placed by choosing to draw, not while betting",
    "bet.needs_base": "{wager:name} needs {base:a_name} wager on the same seat",
    "bet.balance": "bets of {amount:money} exceed the balance of {balance:money}",
    "bet.balance_used_up": "your balance is used up: {amount:money} cannot be staked until you add funds",
    "bet.below_minimum": "{wager:name} bet {amount:money} is below the table minimum of {minimum:money}",
    "bet.at_maximum": "{wager:name} is at its maximum of {maximum:money}: nothing more can be added",
    "bet.room_left": "the most you can add on {wager:name} is {amount:money} (its maximum is {maximum:money})",
    "bet.above_maximum": "{wager:name} bet {amount:money} is above its maximum of {maximum:money}",
    "bet.take_back_closed": "bets can be taken back only while betting is open",
    "bet.nothing_to_take_back": "seat {seat} has no {wager} bet to take back",
    "bet.take_back_side_first": "take back the {wager:name} bet first: it needs this one",
    "wallet.short": "{amount:money} is more than the balance of {balance:money}",
    # --- rounds and decisions
    "round.unknown": "no round {round} at table {table}",
    "round.in_progress": "a round is already in progress ({phase})",
    "round.betting_not_open": "betting is not open",
    "round.deal_after_betting": "cards are dealt after betting closes",
    "round.cannot_deal": "cannot deal now ({phase})",
    "round.void_reason": "say why the round is voided",
    "round.not_in_play": "round {round} is already {status:word}: only a round in play can be voided",
    "round.seats_exceeded": "more players have bets on this round than the table has seats ({seats})",
    "decision.none_awaited": "no Lucky Draw decision is awaited now",
    "squeeze.not_now": "no card of yours is being squeezed now: wait for your side's card to be put down",
    "squeeze.not_yours": ("this card is squeezed by the player with the largest stake on its side: watch its corner "
                          "lift, or bet more on that side next round"),
    "squeeze.card": "say which card you squeeze: its place in the deal (0 for the first card)",
    "squeeze.lift": "a card's corner lifts from 0 (flat) to 1 (turned)",
    "table.squeeze": "a squeeze table gives each squeezer 1 to {most:g} seconds a card (0: no squeeze)",
    "table.squeeze_game": "{game:name} has no squeeze: only Player and Banker cards are squeezed",
    "decision.not_awaited": "no decision is awaited at this table now",
    "decision.round_over": "no decision is awaited at this table for round {round}: its decisions are over",
    "decision.other_round": "your decision was for round {round}, whose decisions are over: round {current} "
                            "awaits yours now; decide again if you want to",
    "decision.action": "a decision is 'draw' or 'stand'",
    "decision.unknown_action": "a decision is 'draw' or 'stand', got {action!r}",
    "decision.not_your_turn": "it is seat {turn}'s turn, not seat {seat}'s",
    "decision.still_dealing": "the cards are still being dealt: decide in {seconds} s",
    "decision.no_enter": "you have no Enter wager in this round",
    "decision.already_made": "you have already decided this round",
    "decision.draw_balance": "the Draw wager must equal Enter ({enter:money}); the balance is {balance:money}",
    # --- shoes, fairness and history
    "shoe.unknown": "no shoe {shoe} at table {table}",
    "shoe.in_play": "the shoe is still in play: its seed is revealed when it ends",
    "fairness.client_seed": "a client seed is 1 to 64 letters, digits or punctuation marks, without spaces",
    "history.still_dealing": "a round of yours is still being dealt: export again in {seconds} s",
    # --- accounts and sessions
    "account.unknown": "no account {account}",
    "account.username_not_text": "a username is text: " + _USERNAME_RULE,
    "account.username_length": "the username {username!r} has {length} characters; " + _USERNAME_RULE,
    "account.username_space": "a username may not contain a space; " + _USERNAME_RULE,
    "account.username_character": "a username may not contain {character!r} ({unicode}); " + _USERNAME_RULE,
    "account.username_invisible": "a username may not contain the invisible character {unicode}; "
                                  + _USERNAME_RULE,
    "account.username_taken": "the username {username!r} is taken (names that differ only in case are the "
                              "same name); choose another",
    "account.password_length": "a password is 8 to 128 characters; a few words you will remember make a good one",
    "account.password_unstorable": "the password has characters that cannot be stored; choose another",
    "account.password_blank": "a password of spaces only is guessed at once; choose a few words or characters "
                              "you will remember",
    "account.password_is_username": "the password must not be the username; choose something only you know, "
                                    "such as a few unrelated words",
    "account.password_common": "that password is one of the most common ones, which are tried first; choose "
                                "another, such as three or four unrelated words",
    "account.role": "role must be one of {roles:list}",
    "auth.wrong_password": "wrong username or password",
    "auth.log_in_first": "log in first: send 'Authorization: Bearer <token>'",
    "auth.session_expired": "the session token is unknown or expired; log in again",
    "auth.account_gone": "the account no longer exists",
    "auth.operator_only": "only an operator may {action:word}",
    # --- player protection
    "protection.timeout": "your time-out " + _BLOCKED,
    "protection.self_exclusion": "your self-exclusion " + _BLOCKED,
    "protection.limit_left": _LIMIT + "bet at most {left:money}",
    "protection.limit_reached": _LIMIT + "you can bet again as earlier play leaves the rolling window",
    "protection.limit_kind": "a limit is on {kinds:or_list}, not {kind!r}",
    "protection.limit_period": "a limit is per {periods:list}, not {period!r}",
    "protection.limit_amount": "a limit is a whole number of cents from 1 to {most}",
    "protection.reality_minutes": "a reality check comes every {low} to {high} minutes",
    "protection.break_choice": "choose a time-out in hours or a self-exclusion in months",
    "protection.timeout_length": "a time-out lasts {low} hours to {weeks} weeks ({high} hours)",
    "protection.exclusion_length": "self-exclusion lasts {low} months to {years} years ({high} months)",
    # --- operators
    "operator.account_unknown": "no account {account}: look the player up by name first",
    "report.last_day": "choose a last day before {latest}",
    "report.first_day_needed": "choose a first day too: the 30 days before {last} are not all in the calendar",
    "report.days_swapped": "the first day comes after the last: swap them",
    "report.too_long": "a report covers at most {days} days: choose a shorter span",
    # --- rates, requests and the server
    "rate.limited": "{rule:word}; try again in {seconds:seconds}",
    "rate.busy": "too many sign-ins at once; try again in a few seconds",
    "request.idempotency_key_missing": "money-moving requests need an Idempotency-Key header",
    "request.idempotency_key": "an idempotency key is 8 to 128 characters",
    "request.idempotency_key_reused": "this idempotency key was used for a different request",
    "request.unreadable": "the request could not be read: send a JSON body encoded in UTF-8",
    "request.not_found": "there is nothing at this address",
    "request.method_not_allowed": "this address does not answer {method}; it answers {allowed}",
    "request.method_refused": "this address does not answer that method",
    "request.too_large": "request bodies are at most {limit} bytes",
    "request.invalid": "{field}: {problem}",
    "request.bad_text": "{field}: holds a character that cannot be stored (NUL, U+0000, or half of a surrogate "
                        "pair, U+D800 to U+DFFF): remove it",
    "request.refused": "the request was refused ({status})",
    "server.unavailable": "the table server cannot save right now; try again in a moment",
    "server.error": "something went wrong on the server: try again",
    "server.busy": "the table server has all the connections it can hold; try again in a few seconds",
    "server.too_many_connections": "your address holds {limit} connections to the table server, the most it may; "
                                   "close other casino pages on your network, then try again",
    # --- readiness (GET /ready): why the service cannot take bets and deal now
    "ready.database": "the database does not answer: nothing can be bet or dealt until it does (the server's log "
                      "says why)",
    "ready.migrations": "the database's schema is at {database:list}, this server's at {expected:list}: start the "
                        "server again (it migrates an older schema at start), or run the version that made the "
                        "newer one",
    "ready.no_dealer": "no process of this service holds the dealer's lock, so no round is dealt; a server takes it "
                       "within a second of starting",
    "frame.binary": "malformed frame: frames are JSON text, not binary",
    "frame.too_deep": "malformed frame: nested too deep",
    "frame.not_json": "malformed frame: not JSON",
    "command.not_object": "a command is a JSON object",
    "command.key_missing": "a command needs a 'key' (idempotency key)",
    "command.action": "'action' is 'draw' or 'stand'",
    "command.unknown": "unknown command: 'type' is 'bet' or 'decision'",
    "command.bets": "'bets' is wager code -> amount in minor units",
    "command.bets_round": "'round' is the number of the round the bets are meant for",
    "command.decision_round": "'round' is the number of the round the decision is meant for",
    # --- why each hand drew or stood (the tableau)
    "reason.natural": "Natural: neither hand draws",
    "reason.player_draws": "Player draws on {total} (0-5 draws)",
    "reason.player_stands": "Player stands on {total} (6-7 stands)",
    "reason.banker_draws_player_stood": "Banker draws on {total}: the Player stood (Banker draws 0-5, stands 6-7)",
    "reason.banker_stands_player_stood": "Banker stands on {total}: the Player stood (Banker draws 0-5, stands 6-7)",
    "reason.banker_draws_third": "Banker draws on {total} " + _THIRD + "{draws_on:list})",
    "reason.banker_stands_third": "Banker stands on {total} " + _THIRD + "{draws_on:list})",
    "reason.banker_draws_third_always": "Banker draws on {total} " + _THIRD + "0, 1, 2, 3, 4, 5, 6, 7, 8, 9)",
    "reason.banker_stands_third_always": "Banker stands on {total} " + _THIRD + "none)",
    # --- table news
    "news.seated": "{name} sits down at seat {seat}",
    "news.left": "{name} leaves seat {seat}",
    "news.seat_freed": "{name}'s seat {seat} is free: disconnected for more than {seconds:g} s",
    "news.stood_up": "{name} is stood up from seat {seat}: no bet in {rounds} rounds",
    "news.operator_stood": "{name} is stood up from seat {seat} by the house",
    "news.new_shoe": "New shoe: shoe {shoe}, the scoreboards start again",
    "news.squeeze_player": "{name} squeezes the Player's cards",
    "news.squeeze_banker": "{name} squeezes the Banker's cards",
    # --- what a player is told about their own seat (the ``notice`` of their state at the table)
    "notice.stood_up": "You were stood up from seat {seat}: no bet in {rounds} rounds in a row. Sit down again to play",
    "notice.seat_freed": ("Your seat {seat} was freed: you were away for more than {seconds:g} s. "
                          "Sit down again to play"),
    "notice.operator_stood": "The house stood you up from seat {seat}. Sit down again to play",
    "news.other": "Table news",
    # --- words for machine values (the ``word`` spec)
    "word.rule.username": "too many failed sign-ins for this username",
    "word.rule.address": "too many failed sign-ins from your address",
    "word.rule.registrations": "too many new accounts from your address",
    "word.kind.loss": "loss",
    "word.kind.stake": "stake",
    "word.period.day": "24 hours",
    "word.period.week": "7 days",
    "word.period.month": "30 days",
    "word.status.settled": "settled",
    "word.status.void": "void",
    "word.status.no_action": "no action",
    "word.status.refunded": "refunded",
    "word.window.betting": "betting",
    "word.window.decision": "decision",
    "word.pause.no_more_bets": "no more bets",
    "word.pause.card": "card",
    "word.pause.results": "results",
    "word.action.open_tables": "open tables",
    "word.action.close_tables": "close tables",
    "word.action.change_limits": "change table limits",
    "word.action.void_rounds": "void rounds",
    "word.action.stand_players": "stand players up",
    "word.action.move_money": "credit or debit wallets",
    "word.action.console": "use the operator console, its reports and the audit trail",
}

_FORMATTER = string.Formatter()


def format_amount(minor: int) -> str:
    """Minor units as currency units with two decimals (re-exported by :mod:`baccarat.core.money`).

    It lives here, below the errors, because every refusal that names an amount is worded with it
    and :mod:`baccarat.core.money` itself raises errors.

    >>> format_amount(-250)
    '-2.50'
    """
    sign = "-" if minor < 0 else ""
    whole, cents = divmod(abs(minor), MINOR_UNITS)
    return f"{sign}{whole}.{cents:02d}"


def article(word: str) -> str:
    """``a`` or ``an`` before ``word`` ("an Enter wager", "a Banker wager").

    >>> article("Enter"), article("Banker")
    ('an', 'a')
    """
    return "an" if word[:1].lower() in "aeiou" else "a"


def fields(code: str) -> set[str]:
    """The named fields of ``code``'s template: exactly the params a refusal with that code carries.

    >>> sorted(fields("bet.below_minimum"))
    ['amount', 'minimum', 'wager']
    """
    return {field for _, field, _, _ in _FORMATTER.parse(CATALOGUE[code]) if field}


def plain(value: object) -> Param:
    """``value`` as a parameter travels (JSON): a tuple becomes a list, anything that is not a JSON
    value its ``repr`` (a client that sent an object where a number belongs gets its words back)."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return [str(item) for item in value]
    if isinstance(value, list | tuple) and all(isinstance(item, int) and not isinstance(item, bool)
                                               for item in value):
        return [int(item) for item in value]
    return repr(value)


def _english(field: str, value: object, spec: str, names: Mapping[str, str]) -> str:
    """One field's value in English, by its format spec (see the module)."""
    if spec == "money":
        return format_amount(int(value))  # type: ignore[call-overload]  # an amount is an int
    if spec in ("name", "a_name"):
        name = names.get(field, str(value))
        return name if spec == "name" else f"{article(name)} {name}"
    if spec == "seconds":
        return f"{value} second{'s' if value != 1 else ''}"
    if spec == "utc":
        moment = datetime.fromisoformat(str(value))
        if moment.second or moment.microsecond:  # up to the next minute (see the module)
            moment = moment.replace(second=0, microsecond=0) + timedelta(minutes=1)
        return moment.strftime("%Y-%m-%d %H:%M")
    if spec in ("list", "or_list"):
        items = value if isinstance(value, list | tuple) else [value]
        return (", " if spec == "list" else " or ").join(str(item) for item in items)
    if spec == "word":
        return CATALOGUE.get(f"word.{field}.{value}", str(value))
    return format(value, spec)


def render(code: str, params: Mapping[str, object], *, names: Mapping[str, str] | None = None) -> str:
    """The English of ``code`` with ``params``; ``names`` gives the English name of a field that holds a
    code (``{"wager": "Dragon Bonus on Player"}``), for the ``name`` and ``a_name`` specs.

    Raises :class:`KeyError` for a code that is not in :data:`CATALOGUE` or a field not in ``params``:
    a raise site and its template disagree, which the tests catch.

    >>> render("bet.needs_base", {"wager": "draw", "base": "enter"}, names={"wager": "Draw", "base": "Enter"})
    'Draw needs an Enter wager on the same seat'
    """
    words: list[str] = []
    for literal, field, spec, conversion in _FORMATTER.parse(CATALOGUE[code]):
        words.append(literal)
        if field is None:
            continue
        value = params[field]
        if conversion:
            words.append(format(_FORMATTER.convert_field(value, conversion), spec or ""))
        else:
            words.append(_english(field, value, spec or "", names or {}))
    return "".join(words)
