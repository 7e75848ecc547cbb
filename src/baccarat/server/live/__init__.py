"""Live play: the table WebSocket, the feeds that push each table's state on its timeline, the group
commit and bulk bets that take thousands of bets a second, and what lets several processes serve one
database (the dealer's lock, LISTEN/NOTIFY)."""
