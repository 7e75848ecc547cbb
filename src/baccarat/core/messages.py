"""The server's words, by code: one catalogue of English templates for every refusal, every reason
a hand drew or stood, and every piece of table news.

Codes travel, words stay home: a refusal sends its stable ``code`` (``area.what`` in lower snake
case) and its ``params`` (machine values: amounts in integer minor units, wager and game *codes*,
seconds as numbers, times in ISO 8601), and each language's catalogue turns them into words.  This
module is the English one, and the only one: the ``message`` the server sends beside the code, the
command line, the logs and the page's English (``static/i18n/codes.en.js``, written from this
catalogue by ``python -m baccarat.server.catalogue_js``) all read these templates.  Other languages
keep their own words for every code (``static/i18n/zh-CN.js``, ``zh-Hant.js``).

The words are a player's: each is a sentence (a capital first letter unless it opens with a value
such as a name, and a final full stop), and a refusal says what to do instead.  The ``word.*``
entries are the exception: pieces of other sentences, in lower case unless they open one.

A template is :meth:`str.format` text with named fields.  A field's format spec says how its machine
value reads; the page reads the same specs (``static/lib.js``), so these are the only ones
(:data:`SPECS`; a template with another, or with a conversion such as ``!r``, fails the tests):

``money``
    minor units as currency units (:func:`format_amount`): ``1250`` reads ``12.50``
``name``
    the English name given for that field (a wager's or a game's name, from its registry record)
``a_name``
    the same name after ``a`` or ``an`` ("an Enter", "a Banker")
``seconds``
    ``1 second``, ``5 seconds``, ``0.5 seconds``
``utc``
    an ISO 8601 time as ``YYYY-MM-DD HH:MM UTC``, rounded up to the minute: an end time (a break's) is
    never shown as a minute it still runs; the page shows the same minute in the player's own time
``list`` / ``or_list``
    the items joined by ``,`` or by ``or``
``word``
    the catalogue's ``word.<field>.<value>``: a machine value ("day") in English words ("24 hours")

A field without a spec reads as its value.

>>> render("bet.above_maximum", {"wager": "banker", "amount": 999999, "maximum": 500000},
...        names={"wager": "Banker"})
'Banker bet 9999.99 is above its maximum of 5000.00: take chips off.'
>>> render("rate.limited", {"seconds": 1, "rule": "username"})
'Too many failed sign-ins for this username: try again in 1 second.'
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from datetime import datetime, timedelta

#: A parameter as it travels: JSON's own values.
Param = str | int | float | bool | None | list[str] | list[int]

#: Minor units (cents) per currency unit (:data:`baccarat.core.money.MINOR_UNITS` is this one).
MINOR_UNITS = 100

#: The format specs a template may use (see the module); the page's ``t`` reads each of them.
SPECS = frozenset({"money", "name", "a_name", "seconds", "utc", "list", "or_list", "word"})

_USERNAME_RULE = "use 3 to 32 of the letters A-Z (without accents), the digits 0-9, dots, underscores and hyphens."
_BLOCKED = ("until {until:utc}: you can see your balance and history, and play again after that. "
            "Help: {help_phone}, {help_site}.")
_LIMIT = "This bet of {stake:money} would pass your {kind:word} limit of {limit:money} per {period:word}: " \
         "{left:money} is left"
_THIRD = "with the Player's third card {third} (draws when it is "
_UNREAD = "The table could not read the last message "

#: Code -> English template.  Players, the command line, logs and tests read these words: a change here
#: changes them everywhere at once (run ``python -m baccarat.server.catalogue_js`` for the page).
CATALOGUE: dict[str, str] = {
    # --- families: an error raised with words only carries its family's code and no params
    "error.refused": "The request was refused: try again.",
    "amount.invalid": "That amount is not valid: write it like 10 or 12.50.",
    "wager.invalid": "That wager is not offered here: pick one of the table's wagers.",
    "bet.limit": "The bet is outside the table's limits: change the amount.",
    "funds.insufficient": "Your balance is too low for this: take chips off.",
    "bet.prerequisite": "This bet needs another bet first: place that one too.",
    "action.not_allowed": "That is not possible at the table now: wait for the next round.",
    "protection.refused": "Your safer-play settings do not allow this.",
    "lookup.not_found": "Nothing was found by that number.",
    "card.invalid": "A card is written like 9h, Td or As.",
    "shoe.problem": "The shoe cannot do that now.",
    "configuration.invalid": "A setting is not valid: check it and try again.",
    "rules.invalid": "The rules file is not valid.",
    "script.invalid": "The script is not valid.",
    "replay.invalid": "The event log does not replay.",
    "auth.required": "Log in first.",
    "auth.forbidden": "You may not do this.",
    "request.conflict": "That conflicts with what is already stored: reload and try again.",
    "rate.too_many": "Too many attempts: try again later.",
    "service.unavailable": "A service this needs cannot be reached: try again later.",
    # --- amounts
    "amount.not_text": "Write the amount as text like 10 or 12.50, not {amount}.",
    "amount.not_decimal": "\"{amount}\" is not an amount: write it like 10 or 12.50 (at most two decimals).",
    "amount.not_whole": "An amount is a whole number of cents: {amount} is not.",
    "amount.not_positive": "The amount must be more than zero, not {amount:money}.",
    "amount.too_large": "{amount:money} is more than any table allows: bet less.",
    # --- games and wagers
    "game.unknown": "There is no game \"{game}\" here: the games are {games:list}.",
    "game.paytable": "The DrawWin pay table is 1 or 2, not {paytable}.",
    "wager.unknown": "{game:name} has no wager \"{wager}\": its wagers are {wagers:list}.",
    "limits.minimum": "The table minimum must be a whole number of cents above zero, not {minimum}.",
    "limits.maximum_below_minimum": "The maximum for {wager:name} must be at least the table minimum.",
    "limits.not_at_betting": "{wager:name} is not placed while betting in {game:name}: it has no table limit to set.",
    "strategy.no_draw": "{game:name} has no Draw decision.",
    "roads.none": "{game:name} has no Banker and Player roads.",
    # --- tables and seats
    "table.unknown": "There is no table {table}: pick one in the lobby.",
    "table.closed": "The table is closed: pick another in the lobby.",
    "table.full": "The table is full: you are number {place} in line for the next seat freed (for {minutes} "
                  "minutes), or pick another table in the lobby.",
    "table.busy": "The table is busy: try again.",
    "table.name_taken": "There is already a table called \"{name}\": choose another name.",
    "table.window": "The {window:word} window is 0.1 to 600 seconds: choose a time in that range.",
    "table.pause": "The {pause:word} pause is 0 to {most} seconds: choose a time in that range.",
    "seat.out_of_range": "Seats are numbered 1 to {seats}: pick one of them.",
    "seat.not_a_seat": "Seats are numbered 1 to {seats}, not {seat}: pick one of them.",
    "seat.taken": "Seat {seat} is taken: pick another.",
    "seat.taken_by": "Seat {seat} is taken by {player}: pick another.",
    "seat.needs_name": "A player needs a name to sit down.",
    "seat.empty": "Nobody sits at seat {seat}.",
    "seat.has_bets": "Seat {seat} has bets in play: leave after the round.",
    "seat.leave_with_bets": "Your bets are on the layout: you can leave once this round is settled.",
    "seat.stand_with_bets": "The player at seat {seat} has bets in play: stand them up once this round is settled.",
    # --- betting
    "bet.malformed": "The bets could not be read (each is a wager code and an amount in cents): place them again.",
    "bet.no_wager": "No wager was given: put chips on a spot first.",
    "bet.betting_over": "No more bets: wait for the next round.",
    "bet.betting_not_opened": "Betting has not opened yet: wait for it to open.",
    "bet.round_over": "No more bets: wait for the next round to open.",
    "bet.opens_in": "Betting opens in {seconds:seconds}: bet on round {round} then.",
    "bet.dealing": "The cards of the round before are being dealt: bet on round {round} once its betting opens.",
    "bet.closed": "No more bets: betting closed for round {round}. Bet on the next round.",
    "bet.round_not_open": "Round {round} is not open for bets yet: wait for betting to open.",
    "bet.round_not_open_other": "Round {round} is not open for bets yet: bet on round {open}, which is.",
    "bet.round_closed": "No more bets: betting closed for round {round}. Bet on the next round.",
    "bet.round_closed_other": "No more bets: betting closed for round {round}. Bet on round {open}, which is open.",
    "bet.sit_first": "Take a seat at the table first: in Lucky Draw each seat plays its own hand.",
    "bet.draw_at_decision": "The {wager:name} wager is placed by choosing to draw after the first deal, not while "
                            "betting.",
    "bet.needs_base": "{wager:name} needs {base:a_name} bet on the same seat: put chips on {base:name} too.",
    "bet.take_back_more": ("You cannot take {amount:money} back: you have {placed:money} on {wager:name}, so take back "
                           "at most that."),
    "bet.balance": "Bets of {amount:money} are more than your balance of {balance:money}: take chips off.",
    "bet.balance_used_up": "Your balance is used up: {amount:money} cannot be staked until you add funds.",
    "bet.below_minimum": "{wager:name} bet {amount:money} is below the table minimum of {minimum:money}: add chips.",
    "bet.at_maximum": "{wager:name} is at its maximum of {maximum:money}: bet on another spot.",
    "bet.room_left": "The most you can add on {wager:name} is {amount:money} (its maximum is {maximum:money}): "
                     "bet less.",
    "bet.above_maximum": "{wager:name} bet {amount:money} is above its maximum of {maximum:money}: take chips off.",
    "bet.take_back_closed": "Bets can be taken back only while betting is open.",
    "bet.nothing_to_take_back": "Seat {seat} has no {wager:name} bet to take back.",
    "bet.take_back_side_first": "Take back the {wager:name} bet first: it needs this one.",
    "wallet.short": "{amount:money} is more than the balance of {balance:money}: use a smaller amount.",
    # --- rounds and decisions
    "round.unknown": "There is no round {round} at table {table}.",
    "round.in_progress": "A round is already in progress ({phase}): wait for it to end.",
    "round.betting_not_open": "Betting is not open now.",
    "round.deal_after_betting": "The cards are dealt after betting closes.",
    "round.cannot_deal": "The cards cannot be dealt now ({phase}).",
    "round.void_reason": "Say why the round is voided.",
    "round.not_in_play": "Round {round} is already {status:word}: only a round in play can be voided.",
    "round.seats_exceeded": "More players have bets on this round than the table has seats ({seats}).",
    "decision.none_awaited": "No Lucky Draw decision is awaited now.",
    "squeeze.not_now": "No card of yours is being squeezed now: wait for your side's card to be put down.",
    "squeeze.not_yours": ("This card is squeezed by the player with the largest stake on its side: watch its corner "
                          "lift, or bet more on that side next round."),
    "squeeze.card": "Say which card you squeeze: its place in the deal (0 for the first card).",
    "squeeze.lift": "A card's corner lifts from 0 (flat) to 1 (turned).",
    "squeeze.edge": "Lift the card from its corner, its short edge or its long edge.",
    "table.squeeze": "A squeeze table gives each squeezer 1 to {most:seconds} a card (0: no squeeze).",
    "table.squeeze_game": "{game:name} has no squeeze: only Player and Banker cards are squeezed.",
    "decision.not_awaited": "No decision is awaited at this table now.",
    "decision.round_over": "The decisions of round {round} are over: wait for the next round.",
    "decision.other_round": "The decisions of round {round} are over: round {current} awaits yours now, so decide "
                            "again if you want to.",
    "decision.action": "Choose draw or stand.",
    "decision.unknown_action": "Choose draw or stand, not \"{action}\".",
    "decision.not_your_turn": "It is seat {turn}'s turn, not seat {seat}'s: wait for yours.",
    "decision.still_dealing": "The cards are still being dealt: decide in {seconds:seconds}.",
    "decision.no_enter": "You have no Enter wager in this round.",
    "decision.already_made": "You have already decided this round.",
    "decision.draw_balance": "Your balance of {balance:money} is below your Enter wager of {enter:money}, which the "
                             "Draw wager must equal: you can only stand.",
    # --- shoes, fairness and history
    "shoe.unknown": "There is no shoe {shoe} at table {table}.",
    "definition.unknown": "There is no rules file with the digest {digest} here: verify with the digest the shoe's "
                          "record names.",
    "shoe.in_play": "The shoe is still in play: its seed is revealed when it ends.",
    "fairness.client_seed": "A client seed is 1 to 64 letters, digits or punctuation marks, without spaces.",
    "history.cursor": "There is no round of your history at \"{cursor}\": load your history from the start again.",
    "history.still_dealing": "A round of yours is still being dealt: export again once its result is shown.",
    # --- accounts and sessions
    "account.unknown": "There is no account {account}.",
    "account.username_not_text": "A username is text: " + _USERNAME_RULE,
    "account.username_length": "The username \"{username}\" has {length} characters: " + _USERNAME_RULE,
    "account.username_space": "A username may not contain a space: " + _USERNAME_RULE,
    "account.username_character": "A username may not contain \"{character}\" ({unicode}): " + _USERNAME_RULE,
    "account.username_invisible": "A username may not contain the invisible character {unicode}: " + _USERNAME_RULE,
    "account.username_taken": "The username \"{username}\" is taken (names that differ only in case are the same "
                              "name): choose another.",
    "account.password_length": "A password has 8 to 128 characters: a few words you will remember make a good one.",
    "account.password_unstorable": "The password has characters that cannot be stored: choose another.",
    "account.password_blank": "A password of spaces only is guessed at once: choose a few words or characters you "
                              "will remember.",
    "account.password_is_username": "The password must not be the username: choose something only you know, such "
                                    "as a few unrelated words.",
    "account.password_common": "That password is one of the most common ones, which are tried first: choose another, "
                               "such as three or four unrelated words.",
    "account.role": "A role is one of {roles:or_list}: choose one of them.",
    "auth.wrong_password": "Wrong username or password.",
    "auth.log_in_first": "Log in first (a program sends the header 'Authorization: Bearer <token>').",
    "auth.session_expired": "Your session has ended: log in again.",
    "auth.account_gone": "This account no longer exists.",
    "auth.staff_only": "Only staff with the role {roles:or_list} may {action:word}: ask one of them.",
    "auth.staff_cannot_play": "Staff accounts do not play: log in with a player's account to sit down or bet.",
    "operator.staff_wallet": "{username} is staff, and a staff wallet holds no money: credit or debit a player's "
                             "wallet.",
    "credit.needs_staff": "A credit above the approval threshold is asked for by a member of staff: use the console.",
    "credit.unknown": "There is no credit request {request}: reload the credits waiting.",
    "credit.decided": "Credit request {request} is already {state:word}: there is nothing more to do.",
    "credit.own_request": "You asked for this credit: another member of staff must approve or reject it.",
    "staff.own_role": "Nobody changes their own role: ask another administrator.",
    "staff.wallet_not_empty": "{username} still has {balance:money} in their wallet: debit it to 0.00 before making "
                              "them staff.",
    "staff.still_playing": "{username} is seated, waiting for a seat or has bets in play: make them staff once they "
                           "have left the tables.",
    # --- player protection
    "protection.timeout": "You are taking a time-out " + _BLOCKED,
    "protection.self_exclusion": "You have excluded yourself " + _BLOCKED,
    "protection.limit_left": _LIMIT + ", so bet at most that.",
    "protection.limit_reached": _LIMIT + ", so you can bet again as earlier play leaves the last {period:word}.",
    "protection.limit_kind": "A limit is on {kinds:or_list}, not \"{kind}\".",
    "protection.limit_period": "A limit is per {periods:or_list}, not \"{period}\".",
    "protection.limit_amount": "A limit is a whole number of cents from 1 to {most}: write it as an amount greater "
                               "than zero.",
    "protection.reality_minutes": "A reality check comes every {low} to {high} minutes: choose a time in that range.",
    "protection.break_choice": "Choose a time-out in hours or a self-exclusion in months.",
    "protection.timeout_length": "A time-out lasts {low} hours to {weeks} weeks ({high} hours): choose a length in "
                                 "that range.",
    "protection.exclusion_length": "Self-exclusion lasts {low} months to {years} years ({high} months): choose a "
                                   "length in that range.",
    # --- operators
    "operator.account_unknown": "There is no account {account}: look the player up by name first.",
    "report.last_day": "Choose a last day before {latest}.",
    "report.first_day_needed": "Choose a first day too: the 30 days before {last} are not all in the calendar.",
    "report.days_swapped": "The first day comes after the last: swap them.",
    "report.too_long": "A report covers at most {days} days: choose a shorter span.",
    # --- rates, requests and the server
    "rate.limited": "{rule:word}: try again in {seconds:seconds}.",
    "rate.busy": "Too many sign-ins at once: try again in a few seconds.",
    "request.idempotency_key_missing": "The request was not sent whole (a request that moves money needs an "
                                       "Idempotency-Key header): try again.",
    "request.idempotency_key": "The request was not sent whole (an idempotency key is 8 to 128 characters): try "
                               "again.",
    "request.idempotency_key_reused": "This request's idempotency key was already used for a different request: send "
                                      "it with a new key.",
    "request.unreadable": "The request could not be read: send a JSON body encoded in UTF-8.",
    "request.not_found": "There is nothing at this address.",
    "request.method_not_allowed": "This address does not answer {method}: it answers {allowed}.",
    "request.method_refused": "This address does not answer that method.",
    "request.too_large": "The request is too large: it may be at most {limit} bytes.",
    "request.invalid": "The request was refused because {field} is not valid ({problem}): correct it and try again.",
    "request.bad_text": "{field}: holds a character that cannot be stored (NUL, U+0000, or half of a surrogate "
                        "pair, U+D800 to U+DFFF): remove it and try again.",
    "request.refused": "The request was refused ({status}): try again.",
    "server.unavailable": "The table server cannot save right now: try again in a moment.",
    "server.error": "Something went wrong on the server: try again.",
    "server.busy": "The table server has all the connections it can hold: try again in a few seconds.",
    "server.too_many_connections": "Your address holds {limit} connections to the table server, the most it may: "
                                   "close other casino pages on your network, then try again.",
    "server.upgrading": "The casino's server is being upgraded: no bet or change is taken for now. Try again in a "
                        "minute.",
    # --- readiness (GET /ready): why the service cannot take bets and deal now
    "ready.database": "The database does not answer: nothing can be bet or dealt until it does (the server's log "
                      "says why).",
    "ready.migrations": "The database's schema is at {database:list}, this server's at {expected:list}: start the "
                        "server again (it migrates an older schema at start), or run the version that made the "
                        "newer one.",
    "ready.no_dealer": "No process of this service holds the dealer's lock, so no round is dealt: a server takes it "
                       "within a second of starting.",
    "frame.binary": _UNREAD + "(a frame is JSON text, not binary): send it again.",
    "frame.too_deep": _UNREAD + "(it is nested too deep): send it again.",
    "frame.not_json": _UNREAD + "(it is not JSON): send it again.",
    "command.not_object": _UNREAD + "(a command is a JSON object): send it again.",
    "command.key_missing": _UNREAD + "(a command needs a 'key', its idempotency key): send it again.",
    "command.action": "Choose draw or stand (a decision's 'action' is 'draw' or 'stand').",
    "command.unknown": _UNREAD + "(a command's 'type' is 'bet' or 'decision'): send it again.",
    "command.bets": "The bets could not be read ('bets' maps each wager code to an amount in cents): place them "
                    "again.",
    "command.bets_round": "The bets could not be read ('round' is the number of the round they are meant for): "
                          "place them again.",
    "command.decision_round": "The decision could not be read ('round' is the number of the round it is meant for): "
                              "decide again.",
    # --- why each hand drew or stood (the tableau)
    "reason.natural": "Natural: neither hand draws.",
    "reason.player_draws": "Player draws on {total} (0-5 draws).",
    "reason.player_stands": "Player stands on {total} (6-7 stands).",
    "reason.banker_draws_player_stood": "Banker draws on {total}: the Player stood (Banker draws 0-5, stands 6-7).",
    "reason.banker_stands_player_stood": "Banker stands on {total}: the Player stood (Banker draws 0-5, stands 6-7).",
    "reason.banker_draws_third": "Banker draws on {total} " + _THIRD + "{draws_on:list}).",
    "reason.banker_stands_third": "Banker stands on {total} " + _THIRD + "{draws_on:list}).",
    "reason.banker_draws_third_always": "Banker draws on {total} whatever the Player's third card (here {third}).",
    "reason.banker_stands_third_always": "Banker stands on {total} whatever the Player's third card (here {third}).",
    # --- table news
    "news.seated": "{name} sits down at seat {seat}.",
    "news.left": "{name} leaves seat {seat}.",
    "news.seat_freed": "Seat {seat} is free: {name} was away for more than {seconds:seconds}.",
    "news.stood_up": "{name} was stood up from seat {seat} after sitting out {rounds} rounds.",
    "news.operator_stood": "{name} was stood up from seat {seat} by the house.",
    "news.new_shoe": "New shoe {shoe}: the roads start again.",
    "news.squeeze_player": "{name} squeezes the Player's cards.",
    "news.squeeze_banker": "{name} squeezes the Banker's cards.",
    # --- what a player is told about their own seat (the ``notice`` of their state at the table)
    "notice.stood_up": ("You were stood up from seat {seat}: no bet in {rounds} rounds in a row. "
                        "Sit down again to play."),
    "notice.seat_freed": ("Your seat {seat} was freed: you were away for more than {seconds:seconds}. "
                          "Sit down again to play."),
    "notice.operator_stood": "The house stood you up from seat {seat}. Sit down again to play.",
    "news.other": "News from the table.",
    # --- words for machine values (the ``word`` spec): pieces of sentences
    "word.rule.username": "Too many failed sign-ins for this username",
    "word.rule.address": "Too many failed sign-ins from your address",
    "word.rule.registrations": "Too many new accounts from your address",
    "word.kind.loss": "loss",
    "word.kind.stake": "stake",
    "word.period.day": "24 hours",
    "word.period.week": "7 days",
    "word.period.month": "30 days",
    "word.status.settled": "settled",
    "word.status.void": "void",
    "word.status.no_action": "over without bets",
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
    "word.action.approve_credits": "approve large credits",
    "word.action.console": "watch the tables in the console",
    "word.action.reports": "read the reports",
    "word.action.players": "look up players and their statements",
    "word.action.recall": "recall rounds",
    "word.action.recall_in_play": "recall every card of a round still being dealt",
    "word.action.audit": "read the audit trail",
    "word.action.staff": "manage staff accounts and roles",
    "word.roles.cashier": "cashier",
    "word.roles.pit_boss": "pit boss",
    "word.roles.surveillance": "surveillance",
    "word.roles.admin": "administrator",
    "word.roles.player": "player",
    "word.state.approved": "approved",
    "word.state.rejected": "rejected",
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


def _number(value: object) -> str:
    """A number as it reads: ``30.0`` as ``30`` (a float that came through JSON), ``0.5`` as ``0.5``."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def _joined(items: list[str], spec: str) -> str:
    """``a, b, c`` (``list``) or ``a, b or c`` (``or_list``).

    >>> _joined(["loss", "stake"], "or_list"), _joined(["day", "week", "month"], "or_list")
    ('loss or stake', 'day, week or month')
    """
    if spec == "list" or len(items) < 2:
        return ", ".join(items)
    return ", ".join(items[:-1]) + " or " + items[-1]


def _english(field: str, value: object, spec: str, names: Mapping[str, str]) -> str:
    """One field's value in English, by its format spec (see the module)."""
    if spec == "":
        return str(value)
    if spec == "money":
        return format_amount(int(value))  # type: ignore[call-overload]  # an amount is an int
    if spec in ("name", "a_name"):
        name = names.get(field, str(value))
        return name if spec == "name" else f"{article(name)} {name}"
    if spec == "seconds":
        return f"{_number(value)} second{'' if value == 1 else 's'}"
    if spec == "utc":
        moment = datetime.fromisoformat(str(value))
        if moment.second or moment.microsecond:  # up to the next minute (see the module)
            moment = moment.replace(second=0, microsecond=0) + timedelta(minutes=1)
        return moment.strftime("%Y-%m-%d %H:%M UTC")
    if spec in ("list", "or_list"):  # each item in the catalogue's words where it has some (word.<field>.<item>)
        items = value if isinstance(value, list | tuple) else [value]
        return _joined([CATALOGUE.get(f"word.{field}.{item}", str(item)) for item in items], spec)
    if spec == "word":
        return CATALOGUE.get(f"word.{field}.{value}", str(value))
    raise ValueError(f"{field}: the format spec {spec!r} is not one of the catalogue's ({', '.join(sorted(SPECS))})")


def render(code: str, params: Mapping[str, object], *, names: Mapping[str, str] | None = None) -> str:
    """The English of ``code`` with ``params``; ``names`` gives the English name of a field that holds a
    code (``{"wager": "Dragon Bonus on Player"}``), for the ``name`` and ``a_name`` specs.

    Raises :class:`KeyError` for a code that is not in :data:`CATALOGUE` or a field not in ``params``, and
    :class:`ValueError` for a spec that is not one of :data:`SPECS`: a raise site and its template disagree,
    which the tests catch.

    >>> render("bet.needs_base", {"wager": "draw", "base": "enter"}, names={"wager": "Draw", "base": "Enter"})
    'Draw needs an Enter bet on the same seat: put chips on Enter too.'
    """
    words: list[str] = []
    for literal, field, spec, conversion in _FORMATTER.parse(CATALOGUE[code]):
        words.append(literal)
        if field is None:
            continue
        if conversion:
            raise ValueError(f"{code}: {field}!{conversion}: a template has no conversions (the page reads none)")
        words.append(_english(field, params[field], spec or "", names or {}))
    return "".join(words)
