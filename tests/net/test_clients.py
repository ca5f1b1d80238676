"""The client's seats (`_clients.py`): what the full-screen client reads and sends, driven
here by a test in trio (the client itself runs the same channel in a guest run)."""

from __future__ import annotations

import trio

import unonet.net as N
import unonet.protocol as P
from unonet import feed as F
from unonet.engine import ChooseColor, Draw, Pass, Respond, make_rules
from unonet.net._clients import host_seat, join_seat

from .net_helpers import free_port, run
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


def test_a_joiner_by_address_sees_the_tables_name_not_the_hosts(tmp_path, monkeypatch):
    """No beacon (an address typed by hand): the lobby still names the table as its host
    named it (`--table`), from the roster, not by the host's player name."""
    monkeypatch.setenv("UNONET_HOME", str(tmp_path))

    async def main():
        async with live_table(config(2, dealer_only=True, name="Kitchen table", host_name="ann")) as table:
            async with trio.open_nursery() as n:
                ch = await n.start(join_seat(f"127.0.0.1:{table.port}", name="bob",
                                             identity=P.Identity.generate()))
                with trio.fail_after(5):
                    lobby = await ch.feed.receive()
                await ch.leave()
        return lobby

    lobby = run(main)
    assert isinstance(lobby, F.Lobby) and lobby.table == "Kitchen table"


def test_tofu_pins_the_table_at_its_address_not_its_name(tmp_path):
    """Two hosts that share every name (the defaults) are two pins, not a refusal; a new
    key at an address already pinned is refused loudly, before our key is sent; the join
    code of the new key accepts and re-pins it."""
    import unonet.net as N
    from unonet.net._join import connect_table, describe_end, host_pin

    known = P.KnownPeers(tmp_path / "known_peers.json")
    me = P.Identity.generate()

    async def visit(port, **kw):
        link = await connect_table("127.0.0.1", port, me, name="bob", known=known, **kw)
        await link.aclose()

    async def main():
        same = dict(dealer_only=True, name="host's table", host_name="host")
        async with live_table(config(2, **same)) as a:
            first = a.port
            await visit(first)
            assert known.get(host_pin("127.0.0.1", first)) == a.identity.static_public
            await visit(first)                        # the same key again: accepted
            async with live_table(config(2, **same)) as b:
                await visit(b.port)                   # same names, another table: no refusal
        async with live_table(config(2, port=first, **same)) as c:   # a new key where `a` was
            try:
                await visit(first)
            except N.Untrusted as exc:
                refused = exc
            else:
                raise AssertionError("a changed key at a pinned address was accepted")
            assert c.events == [] or all(e.kind != "joined" for e in c.events)  # it never saw us
            await visit(first, code=c.join_code)      # checked by its code: accepted, re-pinned
            await visit(first)
            assert known.get(host_pin("127.0.0.1", first)) == c.identity.static_public
        return refused

    refused = run(main)
    assert refused.code == "key-changed"
    line = str(describe_end(refused))
    assert "KEY CHANGED" in line and "host@127.0.0.1:" in line and "\n" not in line


def test_the_host_operator_is_told_of_a_joiner_turned_away_as_news():
    """The full-screen host's own screen hears what an elected host's does (`host_news`): a
    joiner refused at a full table is a `Notice` of kind "refused", never an alarm."""
    port = free_port()  # a port for the table (host_seat keeps its table to itself)
    told: list = []

    async def main():
        cfg = config(2, port=port)
        async with trio.open_nursery() as n:
            ch = await n.start(host_seat(cfg, identity=P.Identity.generate()))
            ana = await N.connect("127.0.0.1", port, P.Identity.generate(), name="ana",
                                  timeouts=N.Timeouts(idle=5.0))
            eve = await N.connect("127.0.0.1", port, P.Identity.generate(), name="eve",
                                  timeouts=N.Timeouts(idle=5.0))
            with trio.fail_after(10):
                async for v in ch.feed:
                    if isinstance(v, (F.Notice, F.TableProblem)):
                        told.append(v)
                        if isinstance(v, F.Notice) and v.kind == "refused":
                            break
            await ana.aclose()
            await eve.aclose()
            await ch.leave()
            n.cancel_scope.cancel()

    run(main)
    refused = [v for v in told if isinstance(v, F.Notice) and v.kind == "refused"]
    assert refused and refused[0].text.startswith("turned away eve (127.0.0.1:") \
        and "table full" in refused[0].text, told
    assert not [v for v in told if isinstance(v, F.TableProblem)], told


def test_the_host_operator_hears_a_joiner_with_a_wrong_code_as_no_one_joining():
    """A joiner whose --code names another key hangs up in the handshake: the host's screen
    read "* turned away 127.0.0.1:40462: peer 127.0.0.1:40462 closed the link in the middle
    of a frame or the handshake" (the play7 evening) - nobody was turned away."""
    from unonet.fingerprint import JoinCodeMismatchError
    from unonet.net._trust import require_join_code

    port = free_port()
    told: list = []

    async def main():
        cfg = config(2, port=port)
        async with trio.open_nursery() as n:
            ch = await n.start(host_seat(cfg, identity=P.Identity.generate()))
            try:
                await N.connect("127.0.0.1", port, P.Identity.generate(), name="eve",
                                trust=require_join_code("AAAA-BBBB-CC"))
            except Exception as exc:  # noqa: BLE001 - the joiner's own refusal, whatever wraps it
                assert "does not match join code" in str(exc) or isinstance(exc, JoinCodeMismatchError), exc
            else:
                raise AssertionError("a wrong join code was accepted")
            with trio.fail_after(10):
                async for v in ch.feed:
                    if isinstance(v, (F.Notice, F.TableProblem)):
                        told.append(v)
                        break
            await ch.leave()
            n.cancel_scope.cancel()

    run(main)
    (said,) = told
    assert isinstance(said, F.Notice) and said.kind == "refused", told
    assert said.text.startswith("127.0.0.1:") and "hung up during the handshake: nobody joined" in said.text, said
    assert "turned away" not in said.text and "middle of a frame" not in said.text, said


def test_a_joiner_seated_under_another_name_is_told_so():
    """Ann joined as "Pat" where a Pat sat already: her lobby read "2  Pat-2 ... you" and
    nothing else (the play7 evening) - she is told the name was taken and which is hers."""
    port = free_port()
    told: list = []

    async def main():
        cfg = config(3, port=port, host_name="Pat")
        async with trio.open_nursery() as n:
            host = await n.start(host_seat(cfg, identity=P.Identity.generate()))
            ch = await n.start(join_seat(f"127.0.0.1:{port}", name="Pat", identity=P.Identity.generate(),
                                         bind="127.0.0.1"))
            with trio.fail_after(10):
                async for v in ch.feed:
                    told.append(v)
                    if isinstance(v, F.Lobby) and len(v.seats) == 2:
                        break
                while not [v for v in told if isinstance(v, F.Notice)]:
                    with trio.move_on_after(1):
                        told.append(await ch.feed.receive())
                    break
            await ch.leave()
            await host.leave()
            n.cancel_scope.cancel()

    run(main)
    lobby = next(v for v in told if isinstance(v, F.Lobby) and len(v.seats) == 2)
    mine = next(s for s in lobby.seats if s.seat == lobby.me)
    assert mine.name == "Pat-2", lobby
    notes = [v for v in told if isinstance(v, F.Notice)]
    assert [(v.text, v.kind) for v in notes] == [("the name Pat is taken at this table: you play as Pat-2",
                                                  "renamed")], told
