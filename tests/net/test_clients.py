"""The client's seats (`_clients.py`): what the full-screen client reads and sends, driven
here by a test in trio (the client itself runs the same channel in a guest run)."""

from __future__ import annotations

import trio

import unonet.protocol as P
from unonet import feed as F
from unonet.engine import ChooseColor, Draw, Pass, Respond, make_rules
from unonet.net._clients import host_seat, join_seat

from .net_helpers import run
from .session_helpers import config, live_table


def _answer(v: F.TurnState, me: int):
    """A player who never plays a card: draws, keeps, names red, accepts a +4."""
    if v.turn != me:
        return None
    return {"play": Draw(me), "drawn": Pass(me), "color": ChooseColor(me, "R"),
            "challenge": Draw(me), "race": Respond(me)}.get(v.phase)


def test_the_host_operator_sees_the_lobby_starts_and_plays_a_whole_match():
    seen: list = []

    async def main():
        cfg = config(3, rules=make_rules("official", [], target=100), bots=2)
        async with trio.open_nursery() as n:
            ch = await n.start(host_seat(cfg, identity=P.Identity.generate()))
            with trio.fail_after(120):
                async for v in ch.feed:
                    seen.append(v)
                    if isinstance(v, F.Lobby) and v.can_start:
                        await ch.submit(F.Start())
                    elif isinstance(v, F.TurnState) and (a := _answer(v, 0)) is not None:
                        await ch.submit(a)
                    elif isinstance(v, F.MatchOver):
                        break
            await ch.leave()
            n.cancel_scope.cancel()

    run(main)
    kinds = [type(v).__name__ for v in seen]
    lobby = next(v for v in seen if isinstance(v, F.Lobby))
    assert lobby.host and lobby.me == 0 and lobby.code and lobby.seats[0].name == "host"
    info = next(v for v in seen if isinstance(v, F.TableInfo))
    assert info.me == 0 and len(info.names) == 3
    assert "RoundStarted" in kinds and "TurnState" in kinds and "RoundScored" in kinds
    over = seen[-1]
    assert isinstance(over, F.MatchOver) and max(over.scores) >= 100 and over.names[0] == "host"
    scored = [v for v in seen if isinstance(v, F.RoundScored)]
    assert scored[-1].match_over and list(scored[-1].scores) == list(over.scores)


def test_join_seat_hands_over_the_channel_only_once_seated_and_fails_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("UNONET_HOME", str(tmp_path))  # the pins go to a key store of the test's own

    async def main():
        async with live_table(config(2, dealer_only=True)) as table:
            ok = join_seat(f"127.0.0.1:{table.port}", name="ana", identity=P.Identity.generate())
            async with trio.open_nursery() as n:
                ch = await n.start(ok)
                with trio.fail_after(5):
                    lobby = await ch.feed.receive()
                assert isinstance(lobby, F.Lobby) and lobby.me == 0 and lobby.seats[0].name == "ana"
                wrong = join_seat(f"127.0.0.1:{table.port}", name="bob", code="0000-0000-00",
                                  identity=P.Identity.generate())
                try:
                    await n.start(wrong)
                except Exception as exc:  # noqa: BLE001 - the client turns it into its one line
                    assert "does not match join code" in str(exc)
                else:
                    raise AssertionError("a wrong join code was accepted")
                await ch.leave()

    run(main)
