"""When a WebSocket frame was read off the network: the moment a socket's bet arrived.

A bet on a table socket is on time if it *arrived* before the close (:mod:`baccarat.server.live.sockets`).  The
socket's task reads a frame when it next runs, and at a crowded table that can be milliseconds after the
bytes came in (the event loop is pushing a wave of states, or waiting for a group commit's thread to let
go of the interpreter); a bet sent a few milliseconds before the close was then refused as late.  So
``baccarat serve`` runs uvicorn's WebSocket protocol (websockets, sans-I/O) with each received message
stamped as it is read off the network (:data:`ARRIVED`), and the socket's command is judged by that
stamp.  A server run some other way (a test client) has no stamp: the moment the task reads the frame
stands in for it, as before.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from baccarat.server.storage.models import now

ARRIVED = "baccarat.arrived"  #: key of the arrival moment in a received ASGI message (not a frame's field)


class _StampedQueue(asyncio.Queue[Any]):
    """The protocol's queue of ASGI messages for the app: each received frame gets its arrival moment."""

    def put_nowait(self, item: Any) -> None:
        if item.get("type") == "websocket.receive":
            item = {**item, ARRIVED: now()}
        super().put_nowait(item)


class StampedWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's ``websockets-sansio`` protocol, its received messages stamped with their arrival."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue = _StampedQueue()
