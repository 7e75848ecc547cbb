"""One exception family for everything the rules core refuses.

Every refusal raises a subclass of :class:`BaccaratError`.  Each one also
subclasses the closest built-in (``ValueError``, ``LookupError``...) so callers
that only know Python's own exceptions still catch them.  The edges (CLI, HTTP,
WebSocket) map this family to messages and status codes in one place each.

Every error carries a stable ``code`` and its ``params`` (machine values) beside its English words,
so that a client in any language can word it itself (:mod:`baccarat.core.messages`).  A refusal a
player can meet is raised with :meth:`BaccaratError.coded`; one raised with words only (a setting of
the command line, a fault inside the package) carries its family's code and no params.

>>> error = BetLimitError.coded("bet.above_maximum", wager="tie", amount=60000, maximum=50000,
...                             names={"wager": "Tie"})
>>> str(error)
'Tie bet 600.00 is above its maximum of 500.00: take chips off.'
>>> error.code, error.params
('bet.above_maximum', {'wager': 'tie', 'amount': 60000, 'maximum': 50000})
>>> ConfigurationError("decks must be 1 to 16").code
'configuration.invalid'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, Self

from baccarat.core import messages
from baccarat.core.messages import Param


class BaccaratError(Exception):
    """Base class of every error raised by the baccarat package."""

    #: The code of an error of this family raised with words only.
    family: ClassVar[str] = "error.refused"

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.code: str = self.family  #: stable, ``area.what``: a key of :data:`~baccarat.core.messages.CATALOGUE`
        self.params: dict[str, Param] = {}  #: the template's fields, as machine values

    @classmethod
    def coded(cls, code: str, /, *, names: Mapping[str, str] | None = None, **params: object) -> Self:
        """The error for ``code`` with ``params``, its words from the catalogue.

        ``names`` gives the English names of fields that hold codes (a wager's, a game's): the
        words use them, the params keep the codes.
        """
        error = cls(messages.render(code, params, names=names))
        error.code = code
        error.params = {field: messages.plain(value) for field, value in params.items()}
        return error


class InvalidAmountError(BaccaratError, ValueError):
    """An amount is not a positive number of whole minor units (cents)."""

    family = "amount.invalid"


class UnknownWagerError(BaccaratError, LookupError):
    """A wager code is not offered by the game being played."""

    family = "wager.invalid"

    def __str__(self) -> str:  # KeyError-style quoting is unhelpful here
        return str(self.args[0]) if self.args else "unknown wager"


class BetLimitError(BaccaratError, ValueError):
    """A bet is below the table minimum or above the wager's maximum."""

    family = "bet.limit"


class InsufficientFundsError(BaccaratError, ValueError):
    """A bet (or the Draw wager) is larger than the player's balance."""

    family = "funds.insufficient"


class WagerPrerequisiteError(BaccaratError, ValueError):
    """A side wager is placed without the base wager it needs."""

    family = "bet.prerequisite"


class IllegalActionError(BaccaratError, RuntimeError):
    """An action is not allowed in the table's current phase or for this seat."""

    family = "action.not_allowed"


class ProtectionError(IllegalActionError):
    """The player's own protection refuses the action: a loss or stake limit it would pass, or a
    time-out or self-exclusion in force (no one, operators included, can lift those early)."""

    family = "protection.refused"


class UnknownSeatError(BaccaratError, LookupError):
    """A seat number does not exist at this table."""

    family = "lookup.not_found"

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown seat"


class InvalidCardError(BaccaratError, ValueError):
    """A card string such as ``"Td"`` could not be parsed."""

    family = "card.invalid"


class ShoeError(BaccaratError, ValueError):
    """A shoe is misconfigured or has run out of cards."""

    family = "shoe.problem"


class ConfigurationError(BaccaratError, ValueError):
    """A game or table setting is out of range (decks, cut card, limits, pay table)."""

    family = "configuration.invalid"


class ReplayError(BaccaratError, ValueError):
    """An event log does not replay: it contradicts the state it is applied to."""

    family = "replay.invalid"


class AuthenticationError(BaccaratError, PermissionError):
    """Wrong username or password, or a missing, unknown or expired session token."""

    family = "auth.required"


class AuthorizationError(BaccaratError, PermissionError):
    """The caller may not do this (another player's resource, or an operator-only action)."""

    family = "auth.forbidden"


class ConflictError(BaccaratError, ValueError):
    """The request conflicts with stored state (a taken username; an idempotency key reused
    with a different request)."""

    family = "request.conflict"


class RateLimitedError(BaccaratError, RuntimeError):
    """Too many attempts in a short time (logins); try again later.

    ``retry_after``: the seconds to wait, when known (sent as HTTP's ``Retry-After``).
    """

    family = "rate.too_many"

    def __init__(self, message: str, *, retry_after: int | None = None) -> None:
        super().__init__(message)
        self._retry_after = retry_after

    @property
    def retry_after(self) -> int | None:
        """The seconds to wait: as given, else the ``seconds`` the refusal names."""
        seconds = self.params.get("seconds")
        if self._retry_after is None and isinstance(seconds, int) and not isinstance(seconds, bool):
            return seconds
        return self._retry_after

    @retry_after.setter
    def retry_after(self, seconds: int | None) -> None:
        self._retry_after = seconds


class UnavailableError(BaccaratError, ConnectionError):
    """A service a command needs cannot be reached (a Dask scheduler that does not answer)."""

    family = "service.unavailable"
