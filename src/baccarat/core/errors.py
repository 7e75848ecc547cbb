"""One exception family for everything the rules core refuses.

Every refusal raises a subclass of :class:`BaccaratError`.  Each one also
subclasses the closest built-in (``ValueError``, ``LookupError``...) so callers
that only know Python's own exceptions still catch them.  The edges (CLI, HTTP,
WebSocket) map this family to messages and status codes in one place each.
"""

from __future__ import annotations


class BaccaratError(Exception):
    """Base class of every error raised by the baccarat package."""


class InvalidAmountError(BaccaratError, ValueError):
    """An amount is not a positive number of whole minor units (cents)."""


class UnknownWagerError(BaccaratError, LookupError):
    """A wager code is not offered by the game being played."""

    def __str__(self) -> str:  # KeyError-style quoting is unhelpful here
        return str(self.args[0]) if self.args else "unknown wager"


class BetLimitError(BaccaratError, ValueError):
    """A bet is below the table minimum or above the wager's maximum."""


class InsufficientFundsError(BaccaratError, ValueError):
    """A bet (or the Draw wager) is larger than the player's balance."""


class WagerPrerequisiteError(BaccaratError, ValueError):
    """A side wager is placed without the base wager it needs."""


class IllegalActionError(BaccaratError, RuntimeError):
    """An action is not allowed in the table's current phase or for this seat."""


class ProtectionError(IllegalActionError):
    """The player's own protection refuses the action: a loss or stake limit it would pass, or a
    time-out or self-exclusion in force (no one, operators included, can lift those early)."""


class UnknownSeatError(BaccaratError, LookupError):
    """A seat number does not exist at this table."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown seat"


class InvalidCardError(BaccaratError, ValueError):
    """A card string such as ``"Td"`` could not be parsed."""


class ShoeError(BaccaratError, ValueError):
    """A shoe is misconfigured or has run out of cards."""


class ConfigurationError(BaccaratError, ValueError):
    """A game or table setting is out of range (decks, cut card, limits, pay table)."""


class ReplayError(BaccaratError, ValueError):
    """An event log does not replay: it contradicts the state it is applied to."""


class AuthenticationError(BaccaratError, PermissionError):
    """Wrong username or password, or a missing, unknown or expired session token."""


class AuthorizationError(BaccaratError, PermissionError):
    """The caller may not do this (another player's resource, or an operator-only action)."""


class ConflictError(BaccaratError, ValueError):
    """The request conflicts with stored state (a taken username; an idempotency key reused
    with a different request)."""


class RateLimitedError(BaccaratError, RuntimeError):
    """Too many attempts in a short time (logins); try again later.

    ``retry_after``: the seconds to wait, when known (sent as HTTP's ``Retry-After``).
    """

    def __init__(self, message: str, *, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class UnavailableError(BaccaratError, ConnectionError):
    """A service a command needs cannot be reached (a Dask scheduler that does not answer)."""
