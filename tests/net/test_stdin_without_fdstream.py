"""`unonet join --no-ui` reading its actions from stdin where trio has no ``FdStream``
(Windows: consoles and pipes cannot be polled), so a worker thread reads them."""

from __future__ import annotations

import os
import subprocess
import threading

import trio

from unonet.net.session_cli import _stdin_stream, _ThreadedReader

from .session_helpers import finish, first_json, lines, reaped, unonet
from .test_election import LOOP, _agreed, _free_udp_port, _wait_for
from .test_election_people import _typist


def test_stdin_is_read_in_a_thread_without_fdstream(monkeypatch):
    monkeypatch.delattr(trio.lowlevel, "FdStream")
    r, w = os.pipe()
    reader = os.fdopen(r, "r")

    async def main():
        stream = _stdin_stream(reader)
        assert isinstance(stream, _ThreadedReader)
        os.write(w, b'{"draw": true}\n{"pass": true}\n')
        got = await stream.receive_some(4096)
        with trio.move_on_after(0.2) as waiting:  # the match is over: a waiting read is abandoned
            await stream.receive_some()
        await stream.aclose()
        return got, waiting.cancelled_caught

    try:
        assert trio.run(main) == (b'{"draw": true}\n{"pass": true}\n', True)
    finally:
        os.close(w)  # the abandoned read sees the end and its thread ends
        reader.close()


def test_a_stdin_joiner_plays_a_match_without_fdstream():
    host = unonet("host", "--no-ui", "--json", *LOOP, "--discovery-port", str(_free_udp_port()),
                  "--players", "2", "--bots", "0", "--target", "60")
    stop = threading.Event()
    with reaped(host):
        port = first_json(host)["port"]
        person = unonet("join", "--no-ui", "--json", "--name", "person", f"127.0.0.1:{port}",
                        stdin=subprocess.PIPE,
                        prelude="import trio.lowlevel\ndel trio.lowlevel.FdStream")
        try:
            with reaped(person):
                _typist(person, stop)
                seat = _wait_for(person, lambda x: x.get("t") == "lobby")["me"]
                results = [finish(person, 300), finish(host, 60)]
        finally:
            stop.set()
    over = _agreed(results)
    assert max(over["scores"]) >= 60
    acts = [x["a"] for x in lines(results[0][1]) if x.get("t") == "game" and x.get("g") == "act"
            and (x.get("a") or {}).get("seat") == seat]
    assert any(a.get("t") == "draw" for a in acts) and any(a.get("t") == "pass" for a in acts)
