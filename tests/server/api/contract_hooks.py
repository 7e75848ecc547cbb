"""Schemathesis hooks for ``st run`` in ``test_contract.py`` (loaded through ``SCHEMATHESIS_HOOKS`` by the
command, never imported by pytest): the operator's session token for every generated request, a new one after
a generated ``DELETE /api/sessions`` ended it, and one check of the project's own.

The test names the server's database and the operator in ``BACCARAT_CONTRACT_DATABASE``,
``BACCARAT_CONTRACT_USER`` and ``BACCARAT_CONTRACT_PASSWORD``.
"""

from __future__ import annotations

import os
from typing import Any

import schemathesis

from baccarat.server.house import accounts
from baccarat.server.storage.db import connect, transaction

_token = {"value": ""}


def _new_token() -> str:
    """A token made in the database: the generated logins run into the login limits, this one must not."""
    name, password = os.environ["BACCARAT_CONTRACT_USER"], os.environ["BACCARAT_CONTRACT_PASSWORD"]
    with connect(os.environ["BACCARAT_CONTRACT_DATABASE"]) as sessions:
        return transaction(sessions, lambda s: accounts.log_in(s, name, password))


@schemathesis.auth(refresh_interval=None)  # asked every time: the token changes when a generated logout ends it
class OperatorToken:
    def get(self, case: Any, ctx: Any) -> str:
        if not _token["value"]:
            _token["value"] = _new_token()
        return _token["value"]

    def set(self, case: Any, data: str, ctx: Any) -> None:
        # the session token is the schema's security scheme (no header parameter): the operator's, always
        headers = {name: value for name, value in (case.headers or {}).items() if name.lower() != "authorization"}
        case.headers = {**headers, "Authorization": f"Bearer {data}"}


@schemathesis.hook
def after_call(context: Any, case: Any, response: Any) -> None:
    if case.method.upper() == "DELETE" and case.path == "/api/sessions":  # it may have ended the session
        _token["value"] = ""


#: The codes of a request refused for its form (what the schema states), not for a rule of the table.
MALFORMED = {"request.unreadable", "request.invalid", "request.idempotency_key", "request.idempotency_key_missing"}


@schemathesis.check
def schema_valid_requests_are_read(ctx: Any, response: Any, case: Any) -> bool | None:
    """A request the schema allows is never refused for its form (:data:`MALFORMED`: a body that cannot be read,
    a field or header the schema allows refused).  A 422 with another code is a rule of the table that no schema
    states (a bet under the table's minimum, a wager its game lacks, a common password)."""
    if case.meta is None or not case.meta.generation.mode.is_positive or response.status_code not in (400, 422):
        return None
    code = response.json().get("code")
    if code in MALFORMED:
        raise AssertionError(f"a schema-valid request was refused as malformed ({code}): {response.text}")
    return True
