"""The database schema (SQLAlchemy 2 declarative); migrations in ``migrations/`` create it.

Money is integer minor units.  The ledger is double entry: every
:class:`LedgerTransaction` has postings that sum to zero over the accounts
``wallet:<id>``, ``escrow:<round>``, ``house`` and ``cashier``; a wallet's
stored balance equals the sum of its postings (checked by
:func:`baccarat.server.house.wallet.check_ledger`).
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from baccarat.server.storage import clock


def now() -> datetime:
    """The server's current time (UTC, on the steady clock: a wall-clock step does not move it)."""
    return clock.now()


def aware(moment: datetime) -> datetime:
    """``moment`` in UTC: SQLite gives back naive datetimes for timezone-aware columns, and PostgreSQL
    gives them in the session's TimeZone (the audit chain hashes the UTC form)."""
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    pass


class Account(Base):
    __tablename__ = "accounts"
    __table_args__ = (UniqueConstraint("login", name="one_account_per_login"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(32), unique=True)  #: as the player typed it (shown)
    #: the username's canonical form (NFKC, case-folded): ``Alice`` and ``alice`` are one account
    login: Mapped[str] = mapped_column(String(32))
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(16), default="player")  #: house/roles.py: player or a staff role
    #: the player's client seed, taken into a shoe when they bet before its first deal (None: none set)
    client_seed: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class Token(Base):
    """A session token; only its SHA-256 is stored."""

    __tablename__ = "tokens"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class Wallet(Base):
    __tablename__ = "wallets"
    __table_args__ = (CheckConstraint("balance >= 0", name="wallet_not_negative"),)

    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    balance: Mapped[int] = mapped_column(BigInteger, default=0)


class LedgerTransaction(Base):
    __tablename__ = "ledger_transactions"
    #: where a rolling window of play begins (player protection counts from there)
    __table_args__ = (Index("ix_ledger_transactions_created_at", "created_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(32))  #: grant, credit, debit, stake, settle, refund
    memo: Mapped[str] = mapped_column(String(255), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    #: the audit entry of a staff movement (credit, debit, a void's refund), written in the same transaction and
    #: naming this movement in its signed record (:mod:`baccarat.server.house.audit`)
    audit_id: Mapped[int | None] = mapped_column(ForeignKey("audit_log.id", name="fk_ledger_transactions_audit"),
                                                 nullable=True)


class LedgerCheck(Base):
    """The ledger transactions a statement on ``postings`` touched, whose balance PostgreSQL checks at the commit
    (migration 0020; the row is removed by that check, so the table is empty between transactions; SQLite's
    check is its own, of 0014, and leaves it empty)."""

    __tablename__ = "ledger_checks"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer(), "sqlite"), primary_key=True)
    transactions: Mapped[str] = mapped_column(Text)  #: their ids as an integer[] literal: ``{1,2,3}``


class Posting(Base):
    __tablename__ = "postings"
    #: a wallet's movements from a given one on (a rolling window), without reading its whole history
    __table_args__ = (Index("ix_postings_account_transaction", "account", "transaction_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    transaction_id: Mapped[int] = mapped_column(ForeignKey("ledger_transactions.id"), index=True)
    account: Mapped[str] = mapped_column(String(64), index=True)
    amount: Mapped[int] = mapped_column(BigInteger)


class IdempotentRequest(Base):
    """A money-moving request's key, the hash of its body, and the stored answer."""

    __tablename__ = "idempotent_requests"
    __table_args__ = (UniqueConstraint("account_id", "key", name="one_answer_per_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    key: Mapped[str] = mapped_column(String(128))
    request_hash: Mapped[str] = mapped_column(String(64))
    response: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class GameDefinition(Base):
    """A rules-file game's definition (:mod:`baccarat.core.rulesfile`), stored once: its digest (SHA-256 of the
    file's canonical content, :func:`baccarat.core.rulesfile.canonical`), its game code (one definition per
    code: a change of rules is a new game), and the file's text as it was given."""

    __tablename__ = "game_definitions"

    digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    code: Mapped[str] = mapped_column(String(16), unique=True)
    text: Mapped[str] = mapped_column(Text)
    stored_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class GameTable(Base):
    """A table of one game.  Limits changed by an operator wait in ``pending_limits`` for the next round."""

    __tablename__ = "game_tables"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(32), unique=True)
    game: Mapped[str] = mapped_column(String(16))
    paytable: Mapped[int | None] = mapped_column(Integer, nullable=True)
    decks: Mapped[int] = mapped_column(Integer, default=8)
    cut_card: Mapped[int] = mapped_column(Integer, default=14)
    betting_seconds: Mapped[float] = mapped_column(Float, default=15.0)
    decision_seconds: Mapped[float] = mapped_column(Float, default=10.0)  #: Lucky Draw's decision window
    status: Mapped[str] = mapped_column(String(8), default="open")  #: "open" or "closed"
    limits: Mapped[str | None] = mapped_column(Text, nullable=True)  #: JSON {"minimum", "maximums"}; None: game's
    pending_limits: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: The round's pace as players see it (see :mod:`baccarat.server.playing.timeline`): NO MORE BETS before the
    #: first card, the time between two cards, and the results pause before the next betting window.
    no_more_bets_seconds: Mapped[float] = mapped_column(Float, default=1.0)
    card_seconds: Mapped[float] = mapped_column(Float, default=0.6)
    results_seconds: Mapped[float] = mapped_column(Float, default=4.0)
    #: A squeeze table's time per card for its squeezer (:mod:`baccarat.server.playing.squeeze`); 0: no squeeze
    squeeze_seconds: Mapped[float] = mapped_column(Float, default=0.0)
    #: The stored definition of a rules-file game (:class:`GameDefinition`); None for a built-in game
    definition: Mapped[str | None] = mapped_column(
        ForeignKey("game_definitions.digest", name="fk_game_tables_definition"), nullable=True)
    #: Betting windows closed so far (the sit-out rule's count; a window nobody bet in counts too)
    windows: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class Seat(Base):
    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("table_id", "number", name="one_player_per_seat"),
                      UniqueConstraint("table_id", "account_id", name="one_seat_per_player"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    #: when the player's last table socket closed (None while connected, or never connected: REST);
    #: the seat is freed after the grace period unless they come back
    away_since: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    idle_rounds: Mapped[int] = mapped_column(Integer, default=0)  #: rounds dealt in a row without a bet of theirs


class SeatMark(Base):
    """The windows a player had sat out at a table when they gave the seat up, taken back if they sit there again
    before ``sit_out_rounds`` more windows close (leaving and sitting again starts no fresh count)."""

    __tablename__ = "seat_marks"

    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    idle_rounds: Mapped[int] = mapped_column(Integer)
    window: Mapped[int] = mapped_column(Integer)  #: the table's ``windows`` when the seat was given up


class SeatRequest(Base):
    """A player refused a seat at a full table, in line for the next seat freed there (oldest first)."""

    __tablename__ = "seat_requests"
    __table_args__ = (UniqueConstraint("table_id", "account_id", name="one_request_per_player"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)  #: the order the requests came in
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"))
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    asked_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ShoeRow(Base):
    """A provably fair shoe: the seed stays secret (never sent) until ``revealed_at``."""

    __tablename__ = "shoes"
    __table_args__ = (UniqueConstraint("table_id", "number", name="one_shoe_number_per_table"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    #: sealed (encrypted under the seed key, :mod:`baccarat.server.house.seed_keys`) while the shoe is in play; the
    #: seed in hex once revealed
    server_seed: Mapped[str] = mapped_column(String(160))
    commitment: Mapped[str] = mapped_column(String(64))
    algorithm: Mapped[str] = mapped_column(String(64))
    decks: Mapped[int] = mapped_column(Integer)
    cut_card: Mapped[int] = mapped_column(Integer)
    position: Mapped[int] = mapped_column(Integer)  #: cards taken so far, the burn included
    last_coup: Mapped[bool] = mapped_column(default=False)
    finished: Mapped[bool] = mapped_column(default=False)
    revealed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: JSON list of the client seeds, sorted, fixed at the first deal; None while they are being taken
    #: (and for shoes of the first algorithm, which take none)
    client_seeds: Mapped[str | None] = mapped_column(Text, nullable=True)
    ended: Mapped[str | None] = mapped_column(String(16), nullable=True)  #: last hand, too few cards, table closed
    #: The definition its table's game was dealt by (a rules-file game's, :class:`GameDefinition`); None: built in
    definition: Mapped[str | None] = mapped_column(
        ForeignKey("game_definitions.digest", name="fk_shoes_definition"), nullable=True)


class ShoeSeed(Base):
    """A client seed taken into a shoe: a player's seed when they first bet before its first deal."""

    __tablename__ = "shoe_client_seeds"
    __table_args__ = (UniqueConstraint("shoe_id", "account_id", name="one_client_seed_per_shoe_and_account"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    shoe_id: Mapped[int] = mapped_column(ForeignKey("shoes.id"), index=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    seed: Mapped[str] = mapped_column(String(64))


class Round(Base):
    __tablename__ = "rounds"
    __table_args__ = (UniqueConstraint("table_id", "number", name="one_round_number_per_table"),
                      Index("ix_rounds_table_status_number", "table_id", "status", "number"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    shoe_id: Mapped[int] = mapped_column(ForeignKey("shoes.id"))
    #: betting, decision, settled, no_action (no bets), refunded (old: before voiding existed), void
    status: Mapped[str] = mapped_column(String(12), index=True)
    #: when betting opens (after the previous round's results pause); None: open since it was made
    opens_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    closes_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    dealt_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)  #: (last) deal
    #: when its result is shown: after the last card; nothing of the result is in any view before
    result_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    decides_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    first_card: Mapped[int | None] = mapped_column(Integer, nullable=True)  #: shoe position of its first card
    result: Mapped[str | None] = mapped_column(Text, nullable=True)  #: JSON: cards in deal order, totals, winner
    #: At a squeeze table, JSON: each side's squeezer (account and name, or None: the dealer turns it) and the
    #: peel on show ({"card", "lift"}); the moment each card is turned is its ``at`` in ``result``'s deal
    squeeze: Mapped[str | None] = mapped_column(Text, nullable=True)


class Bet(Base):
    __tablename__ = "bets"
    __table_args__ = (UniqueConstraint("round_id", "account_id", "wager", name="one_bet_per_wager"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"), index=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    wager: Mapped[str] = mapped_column(String(32))
    amount: Mapped[int] = mapped_column(BigInteger)
    balance_before: Mapped[int] = mapped_column(BigInteger)  #: wallet before this round's first bet


class Settlement(Base):
    """How a bet was settled; the primary key makes settling a bet twice impossible."""

    __tablename__ = "settlements"

    bet_id: Mapped[int] = mapped_column(ForeignKey("bets.id"), primary_key=True)
    event: Mapped[str] = mapped_column(String(64))
    net: Mapped[int] = mapped_column(BigInteger)
    transaction_id: Mapped[int] = mapped_column(ForeignKey("ledger_transactions.id"))
    #: when the player is shown it (the round's result, or Lucky Draw's first deal for Block Bonus):
    #: the balance shown leaves out payouts not shown yet.  None: shown at once (older rows).
    shown_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True, index=True)


class Decision(Base):
    """A Lucky Draw player's decision; one per account and round (a missing one stands at the deadline)."""

    __tablename__ = "decisions"
    __table_args__ = (UniqueConstraint("round_id", "account_id", name="one_decision_per_account"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"), index=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    seat: Mapped[int] = mapped_column(Integer)  #: the seat the player sat in (shown; bets are the account's)
    action: Mapped[str] = mapped_column(String(8))  #: "draw" or "stand"


class Announcement(Base):
    """What the table tells everyone: a seat freed after a disconnection, a player stood up, a new shoe."""

    __tablename__ = "announcements"
    __table_args__ = (Index("ix_announcements_table_at", "table_id", "at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: seat_freed, stood_up, operator_stood, seated, left, new_shoe: code news.<kind>
    kind: Mapped[str] = mapped_column(String(16))
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    name: Mapped[str | None] = mapped_column(String(32), nullable=True)
    text: Mapped[str] = mapped_column(String(255))  #: the English words (baccarat.core.messages)
    #: JSON: the params of the code, for each client to word the news itself; None in rows written before
    params: Mapped[str | None] = mapped_column(Text, nullable=True)


class Protection(Base):
    """A player's own protection settings (:mod:`baccarat.server.house.protection`); one row per account
    that has set anything.  The row is also the lock a bet takes (FOR UPDATE) before it counts the
    player's losses and stakes, so two bets of one player are checked one after the other."""

    __tablename__ = "player_protection"

    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    reality_minutes: Mapped[int | None] = mapped_column(Integer, nullable=True)  #: 15 to 60; None: off
    #: no play until then (a time-out, or self-exclusion); no one can bring it forward
    timeout_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    excluded_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class PlayLimit(Base):
    """A player's loss or stake limit over a rolling day, week or month.  ``amount`` None: no limit
    now.  A looser limit (higher, or none) waits in ``pending`` until ``pending_from``; with
    ``pending_from`` set and ``pending`` None, the limit is being removed."""

    __tablename__ = "play_limits"
    __table_args__ = (UniqueConstraint("account_id", "kind", "period", name="one_limit_per_kind_and_period"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    kind: Mapped[str] = mapped_column(String(8))  #: "loss" or "stake"
    period: Mapped[str] = mapped_column(String(8))  #: "day", "week" or "month"
    amount: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    pending: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    pending_from: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class AuditEntry(Base):
    """One operator action in the append-only audit trail (:mod:`baccarat.server.house.audit`): each entry
    holds the SHA-256 of the one before (``previous``) and its own (``digest``), so editing,
    removing or reordering any entry breaks the chain from there on."""

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)  #: the entry's place in the chain, from 1
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"), nullable=True)  #: None: command line
    actor: Mapped[str] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(32))
    target: Mapped[str] = mapped_column(String(64))
    before: Mapped[str] = mapped_column(Text)  #: JSON
    after: Mapped[str] = mapped_column(Text)  #: JSON
    previous: Mapped[str] = mapped_column(String(64), unique=True)  #: one entry per predecessor: no fork
    digest: Mapped[str] = mapped_column(String(64))
    #: Ed25519 signature (hex) of the id and digest, by a key the database never holds
    #: (:mod:`baccarat.server.house.audit_keys`); None only for entries made before the key existed
    signature: Mapped[str | None] = mapped_column(String(128), nullable=True)


class CreditRequest(Base):
    """A cashier's credit above the house's threshold, waiting for a second member of staff
    (:mod:`baccarat.server.operator.approvals`): approved, it is made (``transaction_id``); rejected, nothing moves."""

    __tablename__ = "credit_requests"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))  #: the player to be credited
    amount: Mapped[int] = mapped_column(BigInteger)
    memo: Mapped[str] = mapped_column(String(255), default="")
    requested_by: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    requested_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    state: Mapped[str] = mapped_column(String(16), default="pending")  #: pending, approved, rejected
    decided_by: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"), nullable=True)
    decided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    transaction_id: Mapped[int | None] = mapped_column(ForeignKey("ledger_transactions.id"), nullable=True)


class Attempt(Base):
    """A sign-in or sign-up attempt, kept for the limits' window (:mod:`baccarat.server.house.rate_limits`):
    counted here, every server process on the database counts the same attempts.  ``at`` is seconds since
    the epoch on the server's clock."""

    __tablename__ = "attempts"
    __table_args__ = (Index("ix_attempts_kind_address_at", "kind", "address", "at"),
                      Index("ix_attempts_kind_name_at", "kind", "name", "at"),
                      Index("ix_attempts_at", "at"))

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))  #: "login" or "registration"
    name: Mapped[str | None] = mapped_column(Text, nullable=True)  #: a login's username, as compared
    address: Mapped[str] = mapped_column(Text)  #: the client's address
    at: Mapped[float] = mapped_column(Float)


class SocketLease(Base):
    """An open table socket, held by the server process that serves it (:mod:`baccarat.server.live.leases`):
    the cap on sockets per account counts these, in every process.  The process renews ``heartbeat``
    (seconds since the epoch) while the socket is open; a lease not renewed for a while is a dead process's
    and no longer counts."""

    __tablename__ = "socket_leases"
    __table_args__ = (Index("ix_socket_leases_account_heartbeat", "account_id", "heartbeat"),)

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    process: Mapped[str] = mapped_column(String(32))  #: the serving process's random id
    table_id: Mapped[int] = mapped_column(Integer)
    opened: Mapped[float] = mapped_column(Float)
    heartbeat: Mapped[float] = mapped_column(Float)
