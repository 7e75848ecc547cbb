"""The package imports only the standard library and what its own dependencies install.

An installation without the test extras (``pip install baccarat``, the README's first command) has
none of the test tools; a module that imports one (as ``baccarat serve --workers`` once imported httpx
to see its processes up) works in the tests and fails for the user.  So every import of every module
of ``src/baccarat`` (those under ``if TYPE_CHECKING:`` aside: they never run) must name the standard
library, the package itself, or a distribution that the package's runtime requirements install,
directly or through theirs, with the extras they ask for.
"""

from __future__ import annotations

import ast
import importlib.metadata as metadata
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import baccarat

PACKAGE = Path(baccarat.__file__).parent


def _runtime_closure(distribution: str, extras: frozenset[str] = frozenset()) -> set[str]:
    """The distributions that installing ``distribution[extras]`` installs, itself included (canonical names)."""
    found: set[str] = set()
    todo = [(distribution, extras)]
    seen: set[tuple[str, frozenset[str]]] = set()
    while todo:
        name, wanted = todo.pop()
        if (canonicalize_name(name), wanted) in seen:
            continue
        seen.add((canonicalize_name(name), wanted))
        found.add(canonicalize_name(name))
        try:
            requirements = metadata.requires(name) or []
        except metadata.PackageNotFoundError:  # an optional requirement not installed for this platform
            continue
        for line in requirements:
            requirement = Requirement(line)
            environments = [{"extra": extra} for extra in wanted] or [{"extra": ""}]
            if requirement.marker is None or any(requirement.marker.evaluate(env) for env in environments):
                todo.append((requirement.name, frozenset(requirement.extras)))
    return found


def _optional(block: ast.AST) -> bool:
    """Whether ``block`` is a ``try:`` whose ``except ImportError`` says what to install: an extra's import."""
    return isinstance(block, ast.Try) and any(
        handler.type is not None and "ImportError" in ast.unparse(handler.type) for handler in block.handlers)


def _imports(path: Path) -> set[str]:
    """The top-level names ``path`` imports when it runs (relative imports, TYPE_CHECKING blocks and an extra's
    imports, guarded by ``except ImportError``, aside)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = {id(node) for block in ast.walk(tree)
               if (isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)) or _optional(block)
               for statement in block.body for node in ast.walk(statement)}
    names = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_the_closure_reads_extras_and_leaves_the_test_tools_out() -> None:
    closure = _runtime_closure("baccarat")
    assert {"fastapi", "starlette", "psycopg-binary", "numba", "llvmlite"} <= closure
    assert not {"pytest", "httpx", "hypothesis", "playwright", "dask", "distributed"} & closure  # (Dask: an extra)
    assert {"dask", "distributed"} <= _runtime_closure("baccarat", frozenset({"cluster"}))


def test_the_import_reader_sees_what_runs_and_nothing_else(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("from __future__ import annotations\nimport os.path\nfrom typing import TYPE_CHECKING\n"
                      "if TYPE_CHECKING:\n    import hypothesis\nfrom . import sibling\n"
                      "def late():\n    import httpx\n    from numpy import ndarray\n"
                      "    try:\n        import dask\n    except ImportError:\n        raise SystemExit('extra')\n")
    assert _imports(module) == {"__future__", "os", "typing", "httpx", "numpy"}


@pytest.mark.slow
def test_every_module_imports_only_what_an_installation_has() -> None:
    closure = _runtime_closure("baccarat")
    providers = metadata.packages_distributions()
    missing = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for name in _imports(path):
            if name in sys.stdlib_module_names or name in {"__future__", "baccarat"}:
                continue
            if not {canonicalize_name(d) for d in providers.get(name, [])} & closure:
                missing.setdefault(name, []).append(str(path.relative_to(PACKAGE)))
    assert not missing, f"imported but not installed by the package's own requirements: {missing}"
