"""MkDocs hook: tables on the API page generated from the code, so they cannot drift from it.

* ``<!-- routes -->`` becomes a table of every REST route (method, path, summary) read from the table
  server's own OpenAPI schema: the app is built with ``create_app`` (never started: no database is
  opened) and asked for ``.openapi()``.  If the app cannot be built the build fails and says why.
* ``<!-- refusal-codes -->`` becomes a table of every code the server sends (refusals, the reasons a hand
  drew or stood, table news, the words of parameters) with its English template, from
  :data:`baccarat.core.messages.CATALOGUE`.  If the catalogue cannot be read the build fails and says why.

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

#: Where the app factory may live (the server's modules have moved once; the newest place first).
APP_MODULES = ("baccarat.server.api.app", "baccarat.server.app")
#: Where the settings class may live.
SETTINGS_MODULES = ("baccarat.server.storage.settings", "baccarat.server.settings")
#: Where the catalogue of codes lives.
CODE_MODULES = ("baccarat.core.messages",)

METHOD_ORDER = ("get", "post", "put", "patch", "delete")

_routes_table: str | None = None


def _first_importable(names: tuple[str, ...]) -> tuple[Any | None, list[str]]:
    problems = []
    for name in names:
        try:
            return importlib.import_module(name), problems
        except ImportError as error:
            problems.append(f"{name}: {error}")
        except Exception as error:  # the module is there but fails while it loads: say so, not a traceback
            problems.append(f"{name} failed to import: {type(error).__name__}: {error}")
    return None, problems


def _openapi() -> dict[str, Any]:
    module, problems = _first_importable(APP_MODULES)
    factory = getattr(module, "create_app", None) if module is not None else None
    if factory is None:
        where = " or ".join(APP_MODULES)
        detail = "; ".join(problems) if problems else f"{module.__name__} has no create_app"  # type: ignore[union-attr]
        hint = " Is the package installed (pip install -e '.[docs]')?" if "No module named 'baccarat'" in detail else ""
        raise PluginError(
            f"docs/hooks/openapi_routes.py: cannot build the table server's app to list its routes "
            f"(looked for create_app in {where}: {detail}).{hint}"
        )
    settings_module, _ = _first_importable(SETTINGS_MODULES)
    with tempfile.TemporaryDirectory(prefix="baccarat-docs-") as folder:
        try:
            if settings_module is not None and hasattr(settings_module, "Settings"):
                settings = settings_module.Settings(
                    data_dir=Path(folder), database_url=f"sqlite:///{Path(folder) / 'docs.db'}"
                )
                app = factory(settings)
            else:
                app = factory()
            return app.openapi()  # type: ignore[no-any-return]
        except Exception as error:
            raise PluginError(
                f"docs/hooks/openapi_routes.py: create_app from {module.__name__} failed to give its OpenAPI "  # type: ignore[union-attr]
                f"schema: {type(error).__name__}: {error}"
            ) from error


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
    module, problems = _first_importable(CODE_MODULES)
    catalogue = getattr(module, "CATALOGUE", None) if module is not None else None
    if not isinstance(catalogue, dict) or not catalogue:
        detail = "; ".join(problems) or f"{CODE_MODULES[0]} has no CATALOGUE"
        raise PluginError(f"docs/hooks/openapi_routes.py: cannot read the catalogue of codes ({detail})")
    rows = [f"| {_literal(str(code))} | {_literal(str(template))} |" for code, template in sorted(catalogue.items())]
    return "\n".join(["| code | English template |", "|---|---|", *rows])


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if ROUTES_MARKER in markdown:
        markdown = markdown.replace(ROUTES_MARKER, routes_table())
    if CODES_MARKER in markdown:
        markdown = markdown.replace(CODES_MARKER, codes_table())
    return markdown
