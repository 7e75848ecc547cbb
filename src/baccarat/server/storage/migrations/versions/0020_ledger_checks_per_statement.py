"""The ledger's balance checked once a statement, not once a posting (PostgreSQL).

Migration 0014's constraint trigger ran its function, and a sum over the ledger transaction's postings, for every
posting written: two for every bet.  In a burst of 2,000 bets that was a quarter more of PostgreSQL's work, and the
bets' acknowledgement p99 doubled (``benchmarks/table_burst.py``: p99 389 ms with it dropped, 756-896 with it).

Now a statement that writes postings (an insert, update or delete: one each, each with its transition table)
records the ledger transactions it touched, as one row of ``ledger_checks``; a constraint trigger on that table,
deferred to the commit, sums the postings of those transactions in one query and refuses the commit if any does
not come to zero (SQLSTATE 23514, ``check_violation``, as before), then removes the row.  The rule is the same:
a transaction's postings may be written over several statements, and only the commit must find them balanced.
SQLite keeps its triggers of 0014; its ``ledger_checks`` stays empty.

Revision ID: 0020
Revises: 0019
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None

#: The words of PostgreSQL's refusal, as 0014's.
REFUSAL = "ledger transaction % does not balance: its postings sum to %"


def upgrade() -> None:
    op.create_table(
        "ledger_checks",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True),
        sa.Column("transactions", sa.Text(), nullable=False),
    )
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("DROP TRIGGER postings_balance ON postings")
    # the transactions touched, as text ('{1,2,3}', an integer[] literal): the column's type is the models' on both
    # databases
    op.execute("""CREATE FUNCTION ledger_touched() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'UPDATE' THEN
                INSERT INTO ledger_checks (transactions)
                    SELECT array_agg(DISTINCT transaction_id)::text
                    FROM (SELECT transaction_id FROM changed UNION ALL SELECT transaction_id FROM changed_before) AS t
                    HAVING count(*) > 0;
            ELSE
                INSERT INTO ledger_checks (transactions)
                    SELECT array_agg(DISTINCT transaction_id)::text FROM changed HAVING count(*) > 0;
            END IF;
            RETURN NULL;
        END $$""")
    op.execute("""CREATE TRIGGER postings_touched_insert AFTER INSERT ON postings REFERENCING NEW TABLE AS changed
                  FOR EACH STATEMENT EXECUTE FUNCTION ledger_touched()""")
    op.execute("""CREATE TRIGGER postings_touched_update AFTER UPDATE ON postings
                  REFERENCING OLD TABLE AS changed_before NEW TABLE AS changed
                  FOR EACH STATEMENT EXECUTE FUNCTION ledger_touched()""")
    op.execute("""CREATE TRIGGER postings_touched_delete AFTER DELETE ON postings REFERENCING OLD TABLE AS changed
                  FOR EACH STATEMENT EXECUTE FUNCTION ledger_touched()""")
    op.execute(f"""CREATE OR REPLACE FUNCTION ledger_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            entry integer;
            total bigint;
        BEGIN
            SELECT transaction_id, sum(amount) INTO entry, total FROM postings
                WHERE transaction_id = ANY (NEW.transactions::integer[])
                GROUP BY transaction_id HAVING sum(amount) <> 0 LIMIT 1;
            IF FOUND THEN
                RAISE EXCEPTION '{REFUSAL}', entry, total USING ERRCODE = 'check_violation';
            END IF;
            DELETE FROM ledger_checks WHERE id = NEW.id;
            RETURN NULL;
        END $$""")
    op.execute("""CREATE CONSTRAINT TRIGGER ledger_checks_balance AFTER INSERT ON ledger_checks
                  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_balanced()""")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS ledger_checks_balance ON ledger_checks")
        for event in ("insert", "update", "delete"):
            op.execute(f"DROP TRIGGER IF EXISTS postings_touched_{event} ON postings")
        op.execute("DROP FUNCTION IF EXISTS ledger_touched()")
        # 0014's function and its trigger, a posting at a time
        op.execute(f"""CREATE OR REPLACE FUNCTION ledger_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
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
    op.drop_table("ledger_checks")
