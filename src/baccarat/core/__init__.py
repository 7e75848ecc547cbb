"""The rules core: cards, the shoe, the tableau, coups, games and wagers as data, the one registry of
games, settlement, the table state machine, its events and ledger, the scoreboards and the provably
fair shuffle.

It imports nothing else of the package and no third-party package: the analysis, the simulation,
the command line and the server all read the same rules from here.
"""
