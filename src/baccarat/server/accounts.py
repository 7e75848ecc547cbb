"""Accounts: registration, scrypt password hashes, session tokens (only their hash is stored)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from baccarat.errors import AuthenticationError, ConfigurationError, ConflictError
from baccarat.server import wallet
from baccarat.server.models import Account, Token, Wallet, aware

#: scrypt cost: 2**14 x 8 x 1 is about 16 MiB and a few tens of milliseconds per hash.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
TOKEN_LIFETIME = timedelta(hours=12)
USERNAME = re.compile(r"[A-Za-z0-9_.-]{3,32}")
ROLES = ("player", "operator")


def hash_password(password: str) -> str:
    """``scrypt$N$r$p$salt$hash`` (base64), with a fresh 16-byte salt."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32)
    encode = base64.b64encode
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${encode(salt).decode()}${encode(digest).decode()}"


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


def check_credentials(username: object, password: object) -> tuple[str, str]:
    if not isinstance(username, str) or not USERNAME.fullmatch(username):
        raise ConfigurationError("a username is 3 to 32 letters, digits or . _ -")
    if not isinstance(password, str) or not 8 <= len(password) <= 128:
        raise ConfigurationError("a password is 8 to 128 characters")
    return username, password


def register(session: Session, username: str, password: str, *, grant: int, role: str = "player") -> Account:
    """Create an account and its wallet, crediting ``grant`` play money from the cashier."""
    username, password = check_credentials(username, password)
    if role not in ROLES:
        raise ConfigurationError(f"role must be one of {', '.join(ROLES)}")
    if session.scalar(select(Account.id).where(Account.username == username)) is not None:
        raise ConflictError(f"the username {username!r} is taken")
    account = Account(username=username, login=username.lower(), password_hash=hash_password(password), role=role)
    session.add(account)
    session.flush()
    session.add(Wallet(account_id=account.id, balance=0))
    session.flush()
    if grant:
        wallet.transfer(session, "grant", {wallet.CASHIER: -grant, wallet.wallet_account(account.id): grant},
                        memo="new account grant")
    return account


def log_in(session: Session, username: str, password: str) -> str:
    """A new session token for the right password (the same error for an unknown user)."""
    account = session.scalar(select(Account).where(Account.username == str(username)))
    stored = account.password_hash if account else hash_password("not the password")  # equal time either way
    if not password_matches(str(password), stored) or account is None:
        raise AuthenticationError("wrong username or password")
    token = secrets.token_urlsafe(32)  # 256 random bits
    session.add(Token(token_hash=_digest(token), account_id=account.id,
                      expires_at=datetime.now(UTC) + TOKEN_LIFETIME))
    return token


def authenticate(session: Session, token: str | None) -> Account:
    """The account of a valid, unexpired session token."""
    if not token:
        raise AuthenticationError("log in first: send 'Authorization: Bearer <token>'")
    row = session.get(Token, _digest(token))
    if row is None or aware(row.expires_at) <= datetime.now(UTC):
        raise AuthenticationError("the session token is unknown or expired; log in again")
    account = session.get(Account, row.account_id)
    if account is None:  # pragma: no cover - tokens are deleted with their account
        raise AuthenticationError("the account no longer exists")
    return account


def log_out(session: Session, token: str) -> None:
    row = session.get(Token, _digest(token))
    if row is not None:
        session.delete(row)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()

