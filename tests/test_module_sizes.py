"""A module of the package stays under 600 lines, the migrations aside (docs/development.md says so): a module
that grows past it is split by what it does, as ``playing/views.py`` was."""

from __future__ import annotations

from pathlib import Path

import baccarat

PACKAGE = Path(baccarat.__file__).parent
MOST = 600


def test_no_module_of_the_package_is_over_600_lines() -> None:
    sizes = {str(path.relative_to(PACKAGE)): len(path.read_text(encoding="utf-8").splitlines())
             for path in PACKAGE.rglob("*.py") if "migrations" not in path.parts}
    assert len(sizes) > 100  # the whole package was read
    assert {name: lines for name, lines in sizes.items() if lines > MOST} == {}
