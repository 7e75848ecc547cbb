"""The ledger's rule in the database itself: a transaction whose postings do not sum to zero cannot commit.

PostgreSQL: a constraint trigger on ``postings``, deferred to the commit, sums the postings of each ledger
transaction a row was written to (inserted, changed or deleted) and refuses the commit if they do not come to
zero (SQLSTATE 23514, ``check_violation``).

SQLite has no deferred triggers, but it has deferred foreign keys: triggers on ``postings`` keep each open
transaction's running sum in ``ledger_open`` (a row while it is not zero, removed when it comes back to zero),
and ``ledger_open.amount`` refers, deferred to the commit, to ``ledger_unbalanced``, which never has a row.
A transaction that leaves a posting sum other than zero therefore fails its commit ("FOREIGN KEY constraint
failed") and is rolled back whole.  (``PRAGMA foreign_keys`` is on for every connection: ``storage/db.py``.)

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

#: The words of PostgreSQL's refusal (SQLite's is its own: "FOREIGN KEY constraint failed").
REFUSAL = "ledger transaction % does not balance: its postings sum to %"
# SQLite's two bookkeeping tables are not in the models (PostgreSQL has none): tests/server/house/test_wallet.py
# leaves them out of its comparison of the schema with the models.


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"""CREATE FUNCTION ledger_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                entry integer;
                total bigint;
            BEGIN
                FOREACH entry IN ARRAY CASE TG_OP WHEN 'INSERT' THEN ARRAY[NEW.transaction_id]
                                                  WHEN 'DELETE' THEN ARRAY[OLD.transaction_id]
                                                  ELSE ARRAY[NEW.transaction_id, OLD.transaction_id] END LOOP
                    SELECT coalesce(sum(amount), 0) INTO total FROM postings WHERE transaction_id = entry;
                    IF total <> 0 THEN
                        RAISE EXCEPTION '{REFUSAL}', entry, total USING ERRCODE = 'check_violation';
                    END IF;
                END LOOP;
                RETURN NULL;
            END $$""")
        op.execute("""CREATE CONSTRAINT TRIGGER postings_balance AFTER INSERT OR UPDATE OR DELETE ON postings
                      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_balanced()""")
        return
    op.execute("CREATE TABLE ledger_unbalanced (amount BIGINT PRIMARY KEY)")  # never a row: see the module
    op.execute("""CREATE TABLE ledger_open (
                      transaction_id INTEGER PRIMARY KEY,
                      amount BIGINT NOT NULL REFERENCES ledger_unbalanced (amount) DEFERRABLE INITIALLY DEFERRED)""")

    def move(entry: str, amount: str) -> str:
        return f"""INSERT INTO ledger_open (transaction_id, amount) VALUES ({entry}, {amount})
                       ON CONFLICT (transaction_id) DO UPDATE SET amount = amount + excluded.amount;
                   DELETE FROM ledger_open WHERE transaction_id = {entry} AND amount = 0;"""

    op.execute(f"""CREATE TRIGGER postings_balance_insert AFTER INSERT ON postings
                   BEGIN {move("NEW.transaction_id", "NEW.amount")} END""")
    op.execute(f"""CREATE TRIGGER postings_balance_update AFTER UPDATE ON postings
                   BEGIN {move("OLD.transaction_id", "-OLD.amount")} {move("NEW.transaction_id", "NEW.amount")} END""")
    op.execute(f"""CREATE TRIGGER postings_balance_delete AFTER DELETE ON postings
                   BEGIN {move("OLD.transaction_id", "-OLD.amount")} END""")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS postings_balance ON postings")
        op.execute("DROP FUNCTION IF EXISTS ledger_balanced()")
        return
    for event in ("insert", "update", "delete"):
        op.execute(f"DROP TRIGGER IF EXISTS postings_balance_{event}")
    op.execute("DROP TABLE IF EXISTS ledger_open")
    op.execute("DROP TABLE IF EXISTS ledger_unbalanced")
