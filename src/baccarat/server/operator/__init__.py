"""The operator's side of the house: actions on tables, rounds and wallets (each written to the audit
trail), player lookup with statements and game recall, and the house's reports."""
