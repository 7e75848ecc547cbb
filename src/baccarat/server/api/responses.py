"""Answers: the shape of every route's reply, so ``/openapi.json`` documents each one.

The services' TypedDicts are the response models (:mod:`baccarat.server.playing.shapes` and the other modules
of :data:`ANSWERS`): a route returns what a service built, and its ``response_model`` is that TypedDict.
Each field's docstring is its description in ``/openapi.json`` and each class's docstring the answer's.
A TypedDict keeps only the keys it names (a key a view writes but its TypedDict does not name is dropped),
and a ``NotRequired`` key the view leaves out stays out of the answer (it is never sent as null).  Here:
the few answers no service describes, and the one refusal shape, :class:`Refusal`.  Amounts are integers
of minor units (cents); times are ISO 8601 strings in UTC, as the views write them.
"""

from __future__ import annotations

import ast
import inspect
import sys
from functools import cache
from itertools import pairwise
from types import ModuleType
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, Field
from pydantic.config import JsonDict
from typing_extensions import TypedDict, is_typeddict

from baccarat.server.house import audit, export_signature, protection
from baccarat.server.operator import actions, credits, lookup, reports, staff
from baccarat.server.playing import betting, dealing, definitions, fairness, history, records, seating, shapes


class Answer(BaseModel):
    """An answer built as a model (not a service's TypedDict); any field a route adds is passed on, not dropped."""

    model_config = ConfigDict(extra="allow")


class Refusal(BaseModel):
    """Every refusal: ``code`` and ``params`` for a client to word it in its own language, ``message``
    one sentence in English."""

    error: str = Field(description="the kind of error, e.g. BetLimitError, InvalidRequest, Unavailable")
    code: str = Field(description="a stable code, area.what, e.g. bet.above_maximum (the catalogue in docs/api.md)")
    params: dict[str, Any] = Field(description="the code's parameters as machine values: amounts in minor units, "
                                               "wager codes, seconds, ISO 8601 times")
    detail: Any = Field(description="the reason in English, or a 422's list of {field, problem}")
    message: str = Field(description="one sentence in English: what is wrong and what to do")


class Health(TypedDict):
    status: str
    """ok"""


class AccountCreated(TypedDict):
    id: int
    username: str
    balance: int
    """minor units: the new account's grant"""


class SessionToken(TypedDict):
    token: str
    """send as `Authorization: Bearer <token>`"""


class Me(TypedDict):
    id: int
    username: str
    role: str
    """player, or a staff role (``actions`` says what it may do)"""
    actions: list[str]
    """what the account's role may do (the console shows only those; none for a player)"""
    balance: int
    """minor units, never ahead of a result still on show"""


class Seated(TypedDict):
    seat: int
    """the seat taken"""


#: The modules whose TypedDicts are answers or parts of answers.
ANSWERS: tuple[ModuleType, ...] = (shapes, betting, dealing, records, history, fairness, seating, definitions,
                                   protection, audit, export_signature, lookup, reports, actions, credits, staff,
                                   sys.modules[__name__])


@cache
def _docstrings(module: str) -> dict[str, dict[str, str]]:
    """Class name -> field -> the docstring under it, for the classes of ``module``, read once from its source
    (none where the source is not installed: the schema is then without them, not broken)."""
    try:
        source = inspect.getsource(sys.modules[module])
    except OSError:
        return {}
    found: dict[str, dict[str, str]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef):
            found[node.name] = {field.target.id: inspect.cleandoc(words.value.value)
                                for field, words in pairwise(node.body)
                                if isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name)
                                and isinstance(words, ast.Expr) and isinstance(words.value, ast.Constant)
                                and isinstance(words.value.value, str)}
    return found


def _described(schema: JsonDict, cls: type[Any]) -> None:
    """Each field of a TypedDict's schema described by its docstring, in the class or the base it comes from."""
    properties = cast(dict[str, JsonDict], schema.get("properties", {}))
    seen, lineage = set(), [cls]
    while lineage:
        shape = lineage.pop()
        seen.add(shape)
        for name, words in _docstrings(shape.__module__).get(shape.__name__, {}).items():
            if name in properties:
                properties[name].setdefault("description", words)
        lineage += [base for base in getattr(shape, "__orig_bases__", ()) if is_typeddict(base)
                    and base not in seen]


def read_docstrings(*modules: ModuleType) -> None:
    """Every TypedDict defined in ``modules`` describes its fields in ``/openapi.json`` by their docstrings
    (and itself by its own, as pydantic does for any class).

    The config a TypedDict carries as ``__pydantic_config__`` says so: the services import no pydantic (their
    shapes are the WebSocket's and the command line's too), so their TypedDicts are given it here, once, at this
    module's import, before the routers (:mod:`baccarat.server.api.routers` imports it first) build their
    response models.  Not pydantic's own ``use_attribute_docstrings``: it reads a TypedDict's own body only (not
    the fields it inherits), and it parses the class's whole module again each time a TypedDict's schema is
    built, which FastAPI does again for every route of every app it makes (one per test, in the tests); here
    each module is parsed once, and only for ``/openapi.json``."""
    for module in modules:
        for value in vars(module).values():
            if is_typeddict(value) and value.__module__ == module.__name__:
                value.__pydantic_config__ = ConfigDict(json_schema_extra=_described)


read_docstrings(*ANSWERS)
