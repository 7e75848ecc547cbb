"""Client text at the HTTP edge: every string a request carries (body fields, the keys of a body's maps,
query parameters, headers) is :data:`Text`, which refuses NUL and unpaired surrogates
(:mod:`baccarat.core.text`) before any other check of the field, with the pydantic error type
:data:`BAD_TEXT`; :mod:`baccarat.server.api.refusals` answers it 422 with the code ``request.bad_text``
naming the field.  Without it PostgreSQL refused a memo or a search holding NUL with a 500 and a
traceback, where SQLite stored it.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator
from pydantic.config import JsonDict
from pydantic_core import PydanticCustomError

from baccarat.core.messages import CATALOGUE
from baccarat.core.text import storable

#: The pydantic error type of text that cannot be stored.
BAD_TEXT = "bad_text"
#: The problem's words: the catalogue's, without the field (the refusal puts the field's name before them).
_WORDS = CATALOGUE["request.bad_text"].removeprefix("{field}: ")


def _storable(value: object) -> object:
    """Refuse a string holding NUL or an unpaired surrogate; anything else goes on to the field's own checks."""
    if isinstance(value, str) and not storable(value):
        raise PydanticCustomError(BAD_TEXT, _WORDS)
    return value


#: The check alone, for a field with before-validators of its own: put it last in ``Annotated`` (pydantic runs
#: before-validators last to first), so that unstorable text gets this answer before any other.
STORABLE = BeforeValidator(_storable)

#: What the schema says of such text (a JSON Schema pattern, ECMA-262): no NUL, no surrogate on its own.
STORABLE_PATTERN = "^[^\\u0000\\uD800-\\uDFFF]*$"


class _SaysStorable:
    """Writes :data:`STORABLE_PATTERN` into the field's JSON Schema (unless the field has a pattern of its own,
    stricter), so that the schema says what is refused: a generated client or fuzzer sends no text the server
    refuses as ``request.bad_text`` while calling it valid."""

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> Any:
        schema = handler(core_schema)
        if isinstance(schema, dict) and schema.get("type") == "string" and "pattern" not in schema:
            schema["pattern"] = STORABLE_PATTERN
        return schema


#: A string from a client: checked for NUL and unpaired surrogates before its length, pattern or other checks, and
#: said so in the schema.
Text = Annotated[str, STORABLE, _SaysStorable()]
#: A map's key from a client: checked the same way; the map's schema says it (``propertyNames``, :data:`KEYS`), as a
#: pattern on the key would make pydantic write ``patternProperties``, which lets any other key through.
TextKey = Annotated[str, STORABLE]
#: The JSON Schema words of a map keyed by :data:`TextKey`.
KEYS: JsonDict = {"propertyNames": {"pattern": STORABLE_PATTERN}}
