"""MkDocs hook: tables on the API page generated from the code, so they cannot drift from it.

* ``<!-- routes -->`` becomes a table of every REST route (method, path, summary) read from the table
  server's own OpenAPI schema: the app is built with ``create_app`` (never started: no database is
  opened) and asked for ``.openapi()``.  If the app cannot be built the build fails and says why.
* ``<!-- refusal-codes -->`` becomes a table of every code the server sends (refusals, the reasons a hand
  drew or stood, table news, the words of parameters) with its English template, from
  :data:`baccarat.core.messages.CATALOGUE`.  If the catalogue cannot be read the build fails and says why.
* ``<!-- power-table -->`` becomes the certification's power table (each defective shuffle, the smallest
  number of shoes from which the battery catches it, the tests that do at the default size), read from
  ``power.json`` (:mod:`baccarat.reports.power`).

Registered in ``mkdocs.yml`` under ``hooks:``.
"""

from __future__ import annotations

import importlib
import re
import tempfile
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

ROUTES_MARKER = "<!-- routes -->"
CODES_MARKER = "<!-- refusal-codes -->"
POWER_MARKER = "<!-- power-table -->"

METHOD_ORDER = ("get", "post", "put", "patch", "delete")

_routes_table: str | None = None


def _imported(name: str) -> Any:
    """The module ``name``, or a build failure that says why it cannot be imported."""
    try:
        return importlib.import_module(name)
    except Exception as error:  # not installed, or failing while it loads: say so, not a traceback
        hint = " Is the package installed (pip install -e '.[docs]')?" if isinstance(error, ImportError) else ""
        raise PluginError(f"docs/hooks/openapi_routes.py: cannot import {name}: "
                          f"{type(error).__name__}: {error}.{hint}") from error


def _openapi() -> dict[str, Any]:
    app_module = _imported("baccarat.server.api.app")
    settings_module = _imported("baccarat.server.storage.settings")
    with tempfile.TemporaryDirectory(prefix="baccarat-docs-") as folder:
        try:
            settings = settings_module.Settings(data_dir=Path(folder),
                                                database_url=f"sqlite:///{Path(folder) / 'docs.db'}")
            return app_module.create_app(settings).openapi()  # type: ignore[no-any-return]
        except Exception as error:
            raise PluginError(f"docs/hooks/openapi_routes.py: the table server's app failed to give its OpenAPI "
                              f"schema: {type(error).__name__}: {error}") from error


def _cell(text: str) -> str:
    """Text safe inside one cell of a markdown table (docstrings' reST roles and literals made markdown)."""
    text = re.sub(r",? \(see :[a-z]+:`[^`]+`\)", "", text)  # a pointer into the code means nothing here
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", text)  # :func:`x` -> `x`
    text = text.replace("``", "`")
    return " ".join(text.split()).replace("|", "\\|").replace("<", "&lt;")


def _summary(operation: dict[str, Any]) -> str:
    description = (operation.get("description") or "").strip()
    if description:
        # the docstring's first sentence says more than the name FastAPI makes up from the function
        first = description.split("\n\n")[0]
        return _cell(first)
    return _cell(operation.get("summary") or "")


def routes_table() -> str:
    global _routes_table
    if _routes_table is None:
        schema = _openapi()
        rows = []
        for path, operations in sorted(schema.get("paths", {}).items()):
            for method in METHOD_ORDER:
                if method in operations:
                    rows.append(f"| `{method.upper()}` | `{path}` | {_summary(operations[method])} |")
        if not rows:
            raise PluginError("docs/hooks/openapi_routes.py: the app's OpenAPI schema lists no routes")
        _routes_table = "\n".join(["| method | path | what it does |", "|---|---|---|", *rows])
    return _routes_table


def _literal(text: str) -> str:
    """Text as a code span inside one cell of a markdown table (kept as written: no escapes but the pipe)."""
    return "`" + " ".join(text.split()).replace("|", "\\|") + "`"


def codes_table() -> str:
    catalogue = _imported("baccarat.core.messages").CATALOGUE
    rows = [f"| {_literal(str(code))} | {_literal(str(template))} |" for code, template in sorted(catalogue.items())]
    return "\n".join(["| code | English template |", "|---|---|", *rows])


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if ROUTES_MARKER in markdown:
        markdown = markdown.replace(ROUTES_MARKER, routes_table())
    if CODES_MARKER in markdown:
        markdown = markdown.replace(CODES_MARKER, codes_table())
    if POWER_MARKER in markdown:
        markdown = markdown.replace(POWER_MARKER, power_table())
    return markdown


def power_table() -> str:
    """The power table as Markdown, from the measured ``power.json``."""
    table = _imported("baccarat.reports.power").load()
    sizes = table["sizes"]
    head = "| defect | " + " | ".join(f"{n:,}" for n in sizes) + " | caught from | tests, at the default size |"
    rows = [head, "|---|" + "---|" * (len(sizes) + 2)]
    for row in table["defects"]:
        marks = " | ".join("caught" if run["caught"] else "·" for run in row["runs"])
        start = "not caught" if row["caught_from"] is None else f"{row['caught_from']:,}"
        rows.append(f"| {row['name']} | {marks} | **{start}** | {', '.join(row['runs'][-1]['tests'])} |")
    return "\n".join(rows)
