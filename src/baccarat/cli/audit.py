"""``baccarat audit verify``: check the operator audit trail's hash chain, its signatures and the signed
heads, naming the first broken entry; ``baccarat audit keygen``: make the signing key pair;
``baccarat audit show``: print the newest entries."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from baccarat.cli.common import UsageProblem, app, handle_errors

audit_app = typer.Typer(help="The operator audit trail (hash-chained, signed, append-only).", no_args_is_help=True)
app.add_typer(audit_app, name="audit")

#: Exit code when the chain is broken (as ``verify`` on a mismatch).
EXIT_BROKEN = 3

Database = Annotated[str | None, typer.Option(help="SQLAlchemy URL (default: SQLite in the data directory).")]
DataDir = Annotated[Path | None, typer.Option(help="Data directory.")]


PublicKey = Annotated[Path | None, typer.Option(
    "--public-key", help="The signing key's public half (PEM: the .pub file written beside the key). Default: "
                         "derived from the configured key (BACCARAT_AUDIT_KEY or BACCARAT_AUDIT_KEY_FILE), or "
                         "that file's .pub.")]
Heads = Annotated[Path | None, typer.Option(
    "--heads", help="The signed heads file (default: BACCARAT_AUDIT_HEADS_FILE, or the database's "
                    "audit-heads-*.jsonl beside the signing key, when it exists).")]


@audit_app.command("verify")
def verify(public_key: PublicKey = None, heads: Heads = None, database: Database = None,
           data_dir: DataDir = None) -> None:
    """Check every entry's place, its SHA-256 and its link to the one before, its signature (with the
    public key alone), that every head signed into the heads file is still in the chain, and that every staff
    movement of money (credit, debit, a void's refund) has its entry: exit 3 naming the first problem ("entry 2:
    bad signature", "ledger movement 41 (credit) has no audit entry naming it"), 0 with the counts, the key's
    fingerprint and the newest digest.  Entries made before the signing key existed are reported as unsigned."""
    from baccarat.cli.database import public_key_of, ready_database
    from baccarat.server.house import audit, audit_heads, audit_keys
    from baccarat.server.storage.db import connect, read
    from baccarat.server.storage.settings import Settings

    with handle_errors():
        settings = Settings.from_options(data_dir=data_dir, database=database)
        public = public_key_of(settings, public_key)
        heads_path = heads if heads is not None else settings.audit_heads_path
        signed_heads: list[audit.SignedHead] = []
        if heads is not None or heads_path.exists():
            if public is None:
                raise UsageProblem(f"the heads file {heads_path} cannot be checked without the public key: "
                                   "give --public-key FILE")
            try:
                signed_heads = audit_heads.read_heads(heads_path, public)
            except audit_heads.BadHeads as error:
                print(f"audit trail BROKEN: {error}")
                raise typer.Exit(EXIT_BROKEN) from None
        with connect(ready_database(settings, existing=True)) as sessions:
            result = read(sessions, lambda s: audit.verify(s, public=public, heads=signed_heads))
    if public is not None:
        print(f"signatures checked with the public key {audit_keys.fingerprint(public)}")
    broken = result["broken"]
    if broken is not None:  # (exactly when the chain is not ok)
        where = "" if broken["id"] is None else f" at entry {broken['id']}"
        print(f"audit trail BROKEN{where}: {broken['problem']}")
        raise typer.Exit(EXIT_BROKEN)
    if public is None and result["signed"]:
        raise UsageProblem(f"{result['signed']} signed entries were not checked: no public key; give "
                           "--public-key FILE (the .pub file beside the signing key)")
    unsigned = (f", {result['unsigned']} unsigned (made before the signing key existed)"
                if result["unsigned"] else "")
    print(f"audit trail intact: {result['entries']} entries, {result['signed']} signed{unsigned}; "
          f"{result['movements']} staff movements of money each with its entry; newest digest {result['head']}")
    if signed_heads:
        print(f"{len(signed_heads)} signed heads in {heads_path} are all in the chain")
    else:
        print(f"no signed heads ({heads_path}): removing the newest entries would not be caught")


@audit_app.command("keygen")
def keygen(key_file: Annotated[Path | None, typer.Option(
        "--key-file", help="Where to write the private key (default: BACCARAT_AUDIT_KEY_FILE, or "
                           "audit-signing-key.pem in the user's configuration directory).")] = None,
           data_dir: DataDir = None) -> None:
    """Make the audit trail's signing key pair: the private key (mode 0600, outside the data directory;
    never in the database) and the public key beside it (.pub), which is all ``audit verify`` needs.
    An existing key file is never replaced."""
    from baccarat.server.house import audit_keys
    from baccarat.server.storage.settings import Settings

    with handle_errors():
        settings = Settings.from_options(data_dir=data_dir)
        path = key_file if key_file is not None else settings.audit_key_path
        if path.resolve().is_relative_to(settings.data_dir.resolve()):
            raise UsageProblem(f"{path} is inside the data directory {settings.data_dir}: keep the audit "
                               "signing key outside it")
        key = audit_keys.create_key(path)
    print(f"private key written to {path} (keep it secret; the server signs with it)")
    print(f"public key written to {audit_keys.public_key_path(path)}")
    print(f"fingerprint {audit_keys.fingerprint(key.public_key())}")


@audit_app.command("show")
def show(last: Annotated[int, typer.Option(min=1, max=10_000, help="How many of the newest entries.")] = 20,
         database: Database = None, data_dir: DataDir = None) -> None:
    """Print the newest entries: when, who, what, on what, before -> after."""
    from baccarat.cli.database import ready_database
    from baccarat.server.house import audit
    from baccarat.server.storage.db import connect, read
    from baccarat.server.storage.settings import Settings

    with handle_errors():
        settings = Settings.from_options(data_dir=data_dir, database=database)
        with connect(ready_database(settings, existing=True)) as sessions:
            entries = read(sessions, lambda s: audit.trail(s, after_id=0, limit=10**9))[-last:]
    for entry in entries:
        print(f"{entry['id']:>6}  {entry['at']}  {entry['actor']}  {entry['action']}  {entry['target']}  "
              f"{audit.canonical(entry['before'])} -> {audit.canonical(entry['after'])}")
