"""The end of a match over real loopback links: the host's last words (`round_end` final,
`match_over`, `leave`) reach every seat before anyone treats the close as a failure."""

from __future__ import annotations

import pytest
import trio

import unonet.net as N
import unonet.protocol as P
from unonet.engine import make_rules
from unonet.net._game import HostGame, SeatGame, bot_step, run_local_seat
from unonet.net._host import HostTable
from unonet.net._join import play_seat
from unonet.net._seat import SeatSide

from .net_helpers import run
from .session_helpers import config, finish, first_json, lines, reaped, unonet


class SlowReader:
    """A real link whose reader dawdles once the match is decided (a joiner busy, or a
    loaded machine): ``pause`` s before it hands over the message after the final
    `round_end`, while its heartbeats go on."""

    def __init__(self, link: N.Link, pause: float) -> None:
        self._link, self.pause, self.final, self.read_over = link, pause, False, None

    def __getattr__(self, name):
        return getattr(self._link, name)

    async def receive(self):
        msg = await self._link.receive()
        if self.final:
            await trio.sleep(self.pause)
            self.final = False
        if isinstance(msg, P.RoundEnd) and msg.final:
            self.final = True
        if isinstance(msg, P.MatchOver):
            self.read_over = trio.current_time()
        return msg


async def _seat(port: int, name: str, out: dict, *, pause: float = 0.0) -> None:
    ident = P.Identity.generate()
    link = await N.connect("127.0.0.1", port, ident, name=name)
    if pause:
        link = SlowReader(link, pause)
    side = SeatSide(name=name, identity=ident, host_public=link.peer_fair_identity, game_factory=SeatGame)
    out[name] = {"link": link}
    out[name]["result"] = await play_seat(link, side, bot_step=bot_step)


async def _one_match(target: int, players: int, pauses: dict[str, float]) -> tuple[dict, dict, float]:
    """A host (matches=1: it closes after the match) and remote bot seats; every seat's
    result, the host's, and when the host's table task had closed every link."""
    cfg = config(players, rules=make_rules("official", [], target=target), dealer_only=True,
                 autostart=True)
    seats: dict = {}
    ended = {}

    async def host(table, task_status=trio.TASK_STATUS_IGNORED):
        await table.run(task_status=task_status)
        ended["at"] = trio.current_time()

    table = HostTable(cfg, P.Identity.generate(), game_factory=HostGame, local_seat=run_local_seat(None))
    with trio.fail_after(60):
        async with trio.open_nursery() as n:
            await n.start(host, table)
            async with trio.open_nursery() as joiners:
                for i in range(players):
                    name = f"s{i}"
                    joiners.start_soon(lambda nm=name: _seat(table.port, nm, seats, pause=pauses.get(nm, 0.0)))
    return seats, table.result, ended["at"]


def test_a_seat_still_busy_when_the_host_closes_reads_the_match_over():
    """One seat reads nothing for 2.5 s after the final `round_end` (its heartbeats go
    on): the host half-closes and waits for it, the seat still gets `match_over` and ends
    with the same match-over line as everyone; the host's close came after that read."""
    seats, result, host_end = run(_one_match, 1, 3, {"s1": 2.5})
    assert result is not None and result["rounds"] >= 1
    for name in ("s0", "s1", "s2"):
        assert seats[name]["result"] == result, name
    assert seats["s1"]["link"].read_over is not None and seats["s1"]["link"].read_over <= host_end


def test_many_short_matches_end_cleanly_for_every_seat():
    """Bounded loop: matches to 1 point (one round each); every seat of every match ends
    with the host's match-over line, never 'host gone'."""

    async def main():
        for _ in range(8):
            seats, result, _ = await _one_match(1, 3, {})
            assert result is not None
            for name, s in seats.items():
                assert s["result"] == result, name

    run(main)


@pytest.mark.slow
def test_join_bot_processes_exit_0_after_many_short_matches():
    """The CLI as a player meets it: `unonet host --no-ui` and three `join --bot`
    processes, a 1-point target, several times over; every process exits 0 and prints the
    same match-over line."""
    import socket

    for _ in range(6):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.bind(("127.0.0.1", 0))
            dport = s.getsockname()[1]
        host = unonet("host", "--no-ui", "--json", "--bind", "127.0.0.1", "--port", "0", "--discovery-port",
                      str(dport), "--players", "3", "--dealer-only", "--target", "1")
        with reaped(host):
            port = first_json(host)["port"]
            joiners = [unonet("join", "--no-ui", "--json", "--bot", "--name", f"j{i}", f"127.0.0.1:{port}")
                       for i in range(3)]
            with reaped(*joiners):
                ends = [finish(p, 120) for p in (host, *joiners)]
        for code, out, err in ends:
            assert code == 0, err
        overs = [lines(out)[-1] for _, out, _ in ends]
        assert all(o["t"] == "match-over" for o in overs)
        assert all({k: v for k, v in o.items()} == overs[0] for o in overs)
