"""A socket's frame is stamped with the moment it was read off the network, not the moment the app got to it
(``baccarat serve``'s WebSocket protocol, :mod:`baccarat.server.live.arrival`): a bet that came in before the close
while the server was busy is on time."""

from __future__ import annotations

import asyncio
import socket
from datetime import datetime
from typing import Any

import uvicorn
from websockets.asyncio.client import connect

from baccarat.server.live.arrival import ARRIVED, StampedWebSocketProtocol
from baccarat.server.storage.models import now


def test_a_frame_carries_its_arrival_though_the_app_reads_it_later() -> None:
    got: list[tuple[dict[str, Any], datetime]] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        await asyncio.sleep(0.3)  # busy elsewhere: the frame waits in the protocol's queue
        got.append((await receive(), now()))
        await send({"type": "websocket.send", "text": "read"})

    async def scenario() -> datetime:
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(app, ws=StampedWebSocketProtocol, log_level="warning",
                                               lifespan="off"))
        serving = asyncio.create_task(server.serve(sockets=[listener]))
        while not server.started:
            await asyncio.sleep(0.01)
        try:
            async with connect(f"ws://127.0.0.1:{port}/") as client:
                sent = now()
                await client.send('{"type": "bet"}')
                assert await client.recv() == "read"
        finally:
            server.should_exit = True
            await serving
        return sent

    sent = asyncio.run(scenario())
    (message, read_at), = got
    assert message["type"] == "websocket.receive" and message["text"] == '{"type": "bet"}'
    arrived = message[ARRIVED]
    assert sent <= arrived < read_at
    assert (read_at - arrived).total_seconds() >= 0.2  # stamped as it came in, not when the app read it
