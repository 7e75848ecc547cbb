"""Accounts: registration, scrypt password hashes, session tokens (only their hash is stored).

A username is NFKC-normalised (full-width ``Ａｌｉｃｅ`` becomes ``Alice``) and must then be 3 to 32
ASCII letters, digits or ``. _ -``, so look-alike letters from other alphabets and invisible
characters are refused.  Its case-folded form (``Account.login``, unique) is the name compared
when registering and logging in; the typed form is the one shown.

There are two ways in:

* :func:`register` and :func:`log_in` do everything in the session they are given (the command
  line, tests, benchmarks);
* :func:`sign_up` and :func:`sign_in` are the server's: they hash with no transaction open, then
  write in a short transaction of their own.  scrypt takes a whole core for a while, by design;
  run inside a writing transaction on SQLite it held the process's single writer lock, and a few
  parallel logins held every bet back behind them.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import re
import secrets
import threading
import unicodedata
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Protocol, TypeVar

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from baccarat.core.errors import AuthenticationError, ConfigurationError, ConflictError
from baccarat.server.house import roles, wallet
from baccarat.server.storage import notify
from baccarat.server.storage.db import read, transaction
from baccarat.server.storage.models import Account, Token, Wallet, aware, now

#: scrypt cost: 2**14 x 8 x 1 is 16 MiB per hash, and a deliberate while of a core.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
#: The N of new hashes in this process: :data:`SCRYPT_N` unless the settings say otherwise
#: (:func:`use_password_cost`); a stored hash is checked with the N it was made with.
_cost = SCRYPT_N
TOKEN_LIFETIME = timedelta(hours=12)
USERNAME = re.compile(r"[A-Za-z0-9_.-]{3,32}")

T = TypeVar("T")


class Hashing(Protocol):
    """Runs a password hash and returns its result (the server's HashGate bounds and deprioritises them)."""

    def __call__(self, work: Callable[[], T], /) -> T: ...


def inline(work: Callable[[], T]) -> T:
    """Hash right here, in the calling thread."""
    return work()


def use_password_cost(log2_n: int) -> int:
    """Make new password hashes cost scrypt's N = 2**``log2_n`` (the settings' ``password_cost``: the server
    and the command line call it at start; the tests use a cheap cost); returns the log2 N it replaces."""
    global _cost
    if not 1 <= log2_n <= 20:
        raise ValueError(f"a password cost is log2 of scrypt's N, 1 to 20, not {log2_n}")
    previous, _cost = _cost, 2**log2_n
    return previous.bit_length() - 1


def hash_password(password: str) -> str:
    """``scrypt$N$r$p$salt$hash`` (base64), with a fresh 16-byte salt."""
    salt = secrets.token_bytes(16)
    n = _cost
    digest = hashlib.scrypt(password.encode(), salt=salt, n=n, r=SCRYPT_R, p=SCRYPT_P, dklen=32)
    encode = base64.b64encode
    return f"scrypt${n}${SCRYPT_R}${SCRYPT_P}${encode(salt).decode()}${encode(digest).decode()}"


def password_matches(password: str, stored: str) -> bool:
    """Constant-time check of ``password`` against a stored hash."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        expected = base64.b64decode(digest)
        actual = hashlib.scrypt(password.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p),
                                dklen=len(expected))
    except (ValueError, TypeError):
        return False
    return scheme == "scrypt" and hmac.compare_digest(actual, expected)


_DUMMY: dict[int, str] = {}
_DUMMY_LOCK = threading.Lock()


def _dummy_hash() -> str:
    """The hash checked when the username is unknown, made once (on first use) with today's cost.

    An unknown user then costs exactly one scrypt run, as a known one does; hashing a fresh dummy
    each time cost two, and the login's timing told which usernames exist.
    """
    with _DUMMY_LOCK:
        if _cost not in _DUMMY:
            _DUMMY[_cost] = hash_password(secrets.token_urlsafe(24))
        return _DUMMY[_cost]


def login_key(username: str) -> str:
    """The form a username is compared in (NFKC, case-folded), valid or not: ``ALICE`` is ``alice``."""
    return unicodedata.normalize("NFKC", username).casefold()


def canonical(username: object) -> tuple[str, str]:
    """The username as shown (NFKC) and as compared (case-folded); refuses what is not allowed.

    >>> canonical("Ａｌｉｃｅ")
    ('Alice', 'alice')
    >>> canonical("аlice")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    baccarat.core.errors.ConfigurationError: a username may not contain 'а' (U+0430 CYRILLIC SMALL LETTER A)...
    """
    if not isinstance(username, str):
        raise ConfigurationError.coded("account.username_not_text")
    shown = unicodedata.normalize("NFKC", username)
    if USERNAME.fullmatch(shown):
        return shown, shown.casefold()
    odd = next((c for c in shown if not (c.isascii() and (c.isalnum() or c in "_.-"))), None)
    if odd is None:
        raise ConfigurationError.coded("account.username_length", username=shown, length=len(shown))
    raise _odd_character(odd)


def _odd_character(character: str) -> ConfigurationError:
    """The refusal of a username with ``character`` in it, the character named so that the player can
    find it, also when it is invisible or a look-alike."""
    code = f"U+{ord(character):04X}"
    name = unicodedata.name(character, "")
    named = f"{code} {name}" if name else code
    if character == " ":
        return ConfigurationError.coded("account.username_space")
    if character.isprintable():
        return ConfigurationError.coded("account.username_character", character=character, unicode=named)
    return ConfigurationError.coded("account.username_invisible", unicode=named)


@functools.cache
def common_passwords() -> frozenset[str]:
    """The 30,000 most common passwords (zxcvbn's list), case-folded; loaded on first use."""
    from zxcvbn.frequency_lists import FREQUENCY_LISTS  # type: ignore[import-untyped]

    return frozenset(password.casefold() for password in FREQUENCY_LISTS["passwords"])


def check_password(password: object, username: str) -> str:
    """Refuse a password that is the wrong length, blank, the username or a common password."""
    if not isinstance(password, str) or not 8 <= len(password) <= 128:
        raise ConfigurationError.coded("account.password_length")
    try:
        password.encode()
    except UnicodeEncodeError:  # lone surrogates from a JSON body
        raise ConfigurationError.coded("account.password_unstorable") from None
    plain = unicodedata.normalize("NFKC", password.strip()).casefold()
    if not plain:
        raise ConfigurationError.coded("account.password_blank")
    if plain == login_key(username.strip()):
        raise ConfigurationError.coded("account.password_is_username")
    if plain in common_passwords():
        raise ConfigurationError.coded("account.password_common")
    return password


def _checked(username: object, password: object, role: str) -> tuple[str, str, str]:
    shown, login = canonical(username)
    password = check_password(password, shown)
    if role not in roles.ROLES:
        raise ConfigurationError.coded("account.role", roles=list(roles.ROLES))
    return shown, login, password


def _refuse_taken(session: Session, shown: str, login: str) -> None:
    if session.scalar(select(Account.id).where(Account.login == login)) is not None:
        raise ConflictError.coded("account.username_taken", username=shown)


def _create(session: Session, shown: str, login: str, password_hash: str, *, grant: int, role: str) -> Account:
    account = Account(username=shown, login=login, password_hash=password_hash, role=role)
    session.add(account)
    session.flush()
    session.add(Wallet(account_id=account.id, balance=0))
    session.flush()
    if grant and not roles.is_staff(role):  # a staff account's wallet holds nothing (house/roles.py)
        wallet.transfer(session, "grant", {wallet.CASHIER: -grant, wallet.wallet_account(account.id): grant},
                        memo="new account grant")
    return account


def register(session: Session, username: str, password: str, *, grant: int, role: str = "player") -> Account:
    """Create an account and its wallet, crediting ``grant`` play money from the cashier.

    Everything, the hash included, happens in ``session``; the server uses :func:`sign_up`.
    """
    shown, login, password = _checked(username, password, role)
    _refuse_taken(session, shown, login)
    return _create(session, shown, login, hash_password(password), grant=grant, role=role)


def sign_up(sessions: sessionmaker[Session], username: str, password: str, *, grant: int, role: str = "player",
            hashing: Hashing = inline, then: Callable[[Session, Account], object] | None = None) -> Account:
    """:func:`register` for the server: the name is checked in a snapshot read, the password hashed
    with no transaction open (by ``hashing``), then a short transaction inserts the account.

    Two players racing for one name: the loser finds the winner's row in that transaction (or, on
    PostgreSQL, on the retry after the unique constraint on ``login`` refused the insert) and is
    told the name is taken.  ``then`` runs in the inserting transaction (a staff account's audit entry).
    """
    shown, login, password = _checked(username, password, role)
    read(sessions, lambda s: _refuse_taken(s, shown, login))
    password_hash = hashing(lambda: hash_password(password))

    def insert(s: Session) -> Account:
        _refuse_taken(s, shown, login)
        account = _create(s, shown, login, password_hash, grant=grant, role=role)
        if then is not None:
            then(s, account)
        return account

    try:
        return transaction(sessions, insert)
    except IntegrityError:
        read(sessions, lambda s: _refuse_taken(s, shown, login))
        raise


def log_in(session: Session, username: str, password: str) -> str:
    """A new session token for the right password (the same error, and one scrypt run, for an unknown user).

    Everything happens in ``session``; the server uses :func:`sign_in`.
    """
    found = _find(session, username)
    if not password_matches(str(password), found[1] if found else _dummy_hash()) or found is None:
        raise AuthenticationError.coded("auth.wrong_password")
    return _new_token(session, found[0])


def sign_in(sessions: sessionmaker[Session], username: str, password: str, *, hashing: Hashing = inline) -> str:
    """:func:`log_in` for the server: the account is read in a snapshot, the password checked with no
    transaction open (by ``hashing``), and only the new token is written."""
    found = read(sessions, lambda s: _find(s, username))
    matches = hashing(lambda: password_matches(str(password), found[1] if found else _dummy_hash()))
    if not matches or found is None:
        raise AuthenticationError.coded("auth.wrong_password")
    account_id = found[0]
    return transaction(sessions, lambda s: _new_token(s, account_id))


def _find(session: Session, username: object) -> tuple[int, str] | None:
    """(id, password hash) of the account named ``username`` in any case, or None."""
    try:
        _, login = canonical(username)
    except ConfigurationError:  # no account can have that name; nothing to look up
        return None
    row = session.execute(select(Account.id, Account.password_hash).where(Account.login == login)).first()
    return (row.id, row.password_hash) if row else None


def _new_token(session: Session, account_id: int) -> str:
    token = secrets.token_urlsafe(32)  # 256 random bits
    session.add(Token(token_hash=_digest(token), account_id=account_id, expires_at=now() + TOKEN_LIFETIME))
    return token


def authenticate(session: Session, token: str | None) -> Account:
    """The account of a valid, unexpired session token."""
    if not token:
        raise AuthenticationError.coded("auth.log_in_first")
    row = session.get(Token, _digest(token))
    if row is None or aware(row.expires_at) <= now():  # the steady clock: a clock step logs no one out
        raise AuthenticationError.coded("auth.session_expired")
    account = session.get(Account, row.account_id)
    if account is None:  # pragma: no cover - tokens are deleted with their account
        raise AuthenticationError.coded("auth.account_gone")
    return account


def session_started(session: Session, token: str) -> datetime:
    """When the session of this (valid) token began: the login, from which a reality check counts."""
    row = session.get(Token, _digest(token))
    if row is None:
        raise AuthenticationError.coded("auth.session_expired")
    return aware(row.created_at)


def log_out(session: Session, token: str) -> None:
    row = session.get(Token, _digest(token))
    if row is not None:
        session.delete(row)
        notify.changed(session, notify.EVERY_TABLE)  # its sockets, at any table, in any process, close


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()



def repair_token_lifetimes(session: Session) -> int:
    """At start-up: tokens that would outlive :data:`TOKEN_LIFETIME` from now (issued while the wall
    clock was ahead) end one lifetime from now instead.  Returns how many were shortened."""
    latest = now() + TOKEN_LIFETIME
    changed = session.execute(update(Token).where(Token.expires_at > latest).values(expires_at=latest))
    return int(getattr(changed, "rowcount", 0) or 0)
