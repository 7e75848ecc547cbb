"""A socket's frame is stamped with the moment it was read off the network, not the moment the app got to it
(``baccarat serve``'s WebSocket protocol, :mod:`baccarat.server.live.arrival`): a bet that came in before the close
while the server was busy is on time."""

from __future__ import annotations

import asyncio
import socket
from datetime import datetime, timedelta
from typing import Any, ClassVar

import uvicorn
from websockets.asyncio.client import connect

from baccarat.server.live.arrival import ARRIVED, StampedWebSocketProtocol
from baccarat.server.storage.models import now


class _Watched(StampedWebSocketProtocol):
    """The protocol, each instance kept, so that the app can see its queue."""

    made: ClassVar[list[StampedWebSocketProtocol]] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.made.append(self)


def test_a_frame_carries_its_arrival_though_the_app_reads_it_later(manual_clock: Any) -> None:
    """The app is busy elsewhere while the frame comes in: it reads it once the frame is in the protocol's queue
    and five seconds have passed on the server's clock; the frame says when it was read off the network."""
    got: list[tuple[dict[str, Any], datetime]] = []
    _Watched.made.clear()

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        queue = _Watched.made[-1].queue
        while queue.empty():  # busy elsewhere: the frame waits in the protocol's queue
            await asyncio.sleep(0)
        manual_clock.advance(seconds=5)
        got.append((await receive(), now()))
        await send({"type": "websocket.send", "text": "read"})

    async def scenario() -> datetime:
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(app, ws=_Watched, log_level="warning", lifespan="off"))
        serving = asyncio.create_task(server.serve(sockets=[listener]))
        while not server.started:
            await asyncio.sleep(0)
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
    # stamped as it came in (the clock had not moved since it was sent), not when the app read it
    assert message[ARRIVED] == sent and read_at == sent + timedelta(seconds=5)
