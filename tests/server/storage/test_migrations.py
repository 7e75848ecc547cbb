"""The migrations form one line: each revision's parent is the one numbered before it, one head.

Migrations written side by side from one parent would each apply on a fresh database but leave Alembic
with several heads, and ``upgrade`` (to ``head``) refuses such a tree on every start."""

from __future__ import annotations

from alembic.script import ScriptDirectory

from baccarat.server.storage.migrate import alembic_config, code_heads


def test_migrations_are_one_line_numbered_in_order() -> None:
    scripts = ScriptDirectory.from_config(alembic_config("sqlite://"))
    revisions = sorted(scripts.walk_revisions(), key=lambda script: script.revision)
    assert [script.revision for script in revisions] == [f"{n:04d}" for n in range(1, len(revisions) + 1)]
    parents = [script.down_revision for script in revisions]
    assert parents == [None, *(script.revision for script in revisions[:-1])]
    assert code_heads() == {revisions[-1].revision}
