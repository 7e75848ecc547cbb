"""The game at the server: tables and their rounds, seats, bets, dealing and settlement through the
core, and what a client may see of them at a moment of the table's timeline (views, history, the
fairness records)."""
