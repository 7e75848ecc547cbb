"""The house: accounts and sessions, wallets and the ledger, player protection, rate limits, operator
actions with their audit trail, player lookup and the house's reports."""
