"""The host quits (q, y) in the middle of a match: its table closes, every seat is told
`leave` (docs/network.md, "The end of a match").  The play-test's players were not: their
screens went on showing "Bo's turn" and a running clock, and only a move typed answered
"the table is closed"."""

from __future__ import annotations

import math

import trio

import unonet.net as N
import unonet.protocol as P
from unonet import feed as F
from unonet.engine import make_rules
from unonet.net._game import HostGame, SeatGame, bot_step, run_local_seat
from unonet.net._join import JoinFailed, play_seat
from unonet.net._seat import SeatSide

from .net_helpers import run
from .session_helpers import config, live_table


def test_a_host_closing_its_table_mid_match_tells_the_seat_the_match_did_not_finish():
    async def main():
        cfg = config(2, rules=make_rules("official", [], target=500), autostart=True, bot_pace=0.05)
        async with live_table(cfg, game_factory=HostGame, local_seat=run_local_seat(None)) as table:
            me = P.Identity.generate()
            link = await N.connect("127.0.0.1", table.port, me, name="bo", timeouts=N.Timeouts(idle=5.0))
            side = SeatSide(name="bo", identity=me, host_public=link.peer_fair_identity, game_factory=SeatGame,
                            bot=True)
            send, receive = trio.open_memory_channel(math.inf)
            seen, out = [], {}

            async def seat():
                try:
                    out["result"] = await play_seat(link, side, feed=send, bot_step=bot_step, matches=None)
                except JoinFailed as exc:
                    out["failed"] = exc

            with trio.fail_after(60):
                async with trio.open_nursery() as n:
                    n.start_soon(seat)
                    async for value in receive:  # the first deal, then a few moves of round 1
                        seen.append(value)
                        if sum(1 for v in seen if isinstance(v, dict) and v.get("t") == "game") == 3:
                            break
                    assert side.game is not None and side.over is None
                    table.close()  # the host's q, y
                    async for value in receive:
                        seen.append(value)
            return out, seen

    out, seen = run(main)
    assert "result" not in out, out  # (it used to return as after a whole match: None, nothing said)
    failed = out["failed"]
    assert failed.code == "closed" and not failed.cheat and failed.goodbye, failed
    # (closed in round 1: nothing of it recorded yet, and the seat says so - evening19)
    assert str(failed) == "the host closed the table: the match did not finish (no round of it was finished)", failed
    problem = seen[-1]
    assert isinstance(problem, F.TableProblem) and problem.fatal and not problem.cheat, problem
    assert problem.goodbye  # (the screen says it plainly, not as a table problem)
    assert problem.message == str(failed)


def test_a_host_closing_its_lobby_tells_the_joiners_screen():
    """The host leaving its lobby (q) closed the table; the joiner's lobby screen went on
    saying "Waiting for the host to start the match." for as long as it was left open."""
    from unonet.net._clients import join_seat

    async def main():
        async with live_table(config(4), game_factory=HostGame, local_seat=run_local_seat(None)) as table:
            open_seat = join_seat(f"127.0.0.1:{table.port}", name="bo", identity=P.Identity.generate(),
                                  bind="127.0.0.1")
            seen = []
            with trio.fail_after(30):
                async with trio.open_nursery() as n:
                    channel = await n.start(open_seat)
                    async for value in channel.feed:
                        seen.append(value)
                        if isinstance(value, F.Lobby):
                            break
                    table.close()  # the host's q in its lobby
                    async for value in channel.feed:
                        seen.append(value)
        return seen

    seen = run(main)
    last = seen[-1]
    assert isinstance(last, F.TableProblem) and last.fatal and not last.cheat, seen
    assert last.message == "the host closed the table before the match started" and last.goodbye, last


def test_a_host_gone_between_matches_leaves_the_last_match_standing_and_offers_no_next_one():
    """The play7 evening: the host was killed after match 2 was won; Pat's final screen still
    offered "Enter: the next match", and Enter opened the lobby of a table whose host was gone
    ("Waiting for the host to start the match").  Quitting between matches (q) did the same.
    The seat ends with the last match's result and tells its screen there is no next match."""
    from unonet.net._host import HostTable

    def seen_over(seen):
        return any(isinstance(v, F.MatchOver) for v in seen)

    for how in ("killed", "quit", "killed, full screen"):
        async def main():
            cfg = config(2, rules=make_rules("official", [], target=40), autostart=True, bot_pace=0.0)
            async with trio.open_nursery() as outer:
                async def host(task_status=trio.TASK_STATUS_IGNORED):
                    with trio.CancelScope() as scope:
                        async with trio.open_nursery() as tn:
                            table = HostTable(cfg, P.Identity.generate(), game_factory=HostGame,
                                              local_seat=run_local_seat(None))
                            await tn.start(table.run)
                            task_status.started((table, scope))
                            await trio.sleep_forever()

                table, scope = await outer.start(host)
                if how.endswith("full screen"):   # `unonet join`'s own session (through elections)
                    from unonet.net._clients import join_seat

                    ch = await outer.start(join_seat(f"127.0.0.1:{table.port}", name="pat", bind="127.0.0.1",
                                                     identity=P.Identity.generate(), bot=True))
                    seen = []
                    with trio.fail_after(60):
                        async for value in ch.feed:
                            seen.append(value)
                            if seen_over(seen):
                                break
                        await trio.sleep(0.3)
                        scope.cancel()
                        async for value in ch.feed:
                            seen.append(value)
                    outer.cancel_scope.cancel()
                    return {"result": {"ledger": "(the screen's session)"}}, seen
                me = P.Identity.generate()
                link = await N.connect("127.0.0.1", table.port, me, name="pat", timeouts=N.Timeouts(idle=5.0))
                side = SeatSide(name="pat", identity=me, host_public=link.peer_fair_identity, game_factory=SeatGame,
                                bot=True)
                side.screen = True
                send, receive = trio.open_memory_channel(math.inf)
                seen, out = [], {}

                async def seat():
                    try:
                        out["result"] = await play_seat(link, side, feed=send, bot_step=bot_step, matches=None)
                    except JoinFailed as exc:
                        out["failed"] = exc
                    send.close()

                with trio.fail_after(60):
                    outer.start_soon(seat)
                    async for value in receive:
                        seen.append(value)
                        if seen_over(seen):
                            break
                    await trio.sleep(0.3)     # (the next match's lobby comes)
                    if how == "killed":
                        scope.cancel()        # its process is gone: the links just end
                    else:
                        table.close()         # q at the final standings
                    async for value in receive:
                        seen.append(value)
                outer.cancel_scope.cancel()
            return out, seen

        out, seen = run(main)
        assert "failed" not in out and out["result"] and "ledger" in out["result"], (how, out)
        problems = [v for v in seen if isinstance(v, F.TableProblem)]
        assert not problems, (how, problems)
        said = [v for v in seen if isinstance(v, F.Notice) and v.kind == "closed"]
        assert len(said) == 1 and said[0].text.endswith("there is no next match"), (how, said)
        assert "did not finish" not in said[0].text


def test_a_link_that_went_silent_between_matches_is_not_said_to_be_a_table_gone():
    """eve12: Kim's link was down 20 s after a match; Kim's screen read "the host is gone (the
    host went silent (no message for 10 s); the table is gone): there is no next match" while
    Pat's table lived and dealt the next match.  Silence may be our own link: the screen says
    the link was lost and how to sit down again; a host that closed is still said to be gone."""
    from unonet.net._join import LOBBY_SILENT, between_matches_end

    silent = JoinFailed(f"the host went silent (no message for {LOBBY_SILENT:g} s); the table is gone", code="timeout")
    said = between_matches_end(silent)
    assert "table is gone" not in said and "host is gone" not in said, said
    assert said.startswith("the link to the host was lost between matches") and "`unonet join` again" in said, said
    closed = JoinFailed("host 127.0.0.1:47800 closed the link", code="closed")
    assert between_matches_end(closed) == "the host is gone (host 127.0.0.1:47800 closed the link): there is no next match"


def test_a_host_closing_after_announcing_a_next_match_it_never_dealt_leaves_the_last_match_standing():
    """The host closed its table between matches, right after it started the next one (its
    `match-start` sent, nothing dealt): the seat said "the host closed the table: the match did
    not finish", of a match that never began, after one that did finish."""
    from .test_between_matches import _kim_after_match_one

    async def main():
        with trio.fail_after(120):
            async with _kim_after_match_one() as (kim, table, _, _):
                table.start()   # match 2 announced ...
                table.close()   # ... and the table closed before its first deal
                await kim.done.wait()
                return kim, table

    kim, table = run(main)
    assert table.matches_played == 1
    assert kim.error is None, kim.error
    over = kim.seen("match-over")
    assert len(over) == 1 and kim.result == {k: v for k, v in over[0].items() if k != "t"}, kim.out[-5:]


def test_the_screen_is_told_the_table_closed_before_the_next_match_was_dealt():
    """The same close, at the full-screen client's seat: one notice that says what happened
    (after the match, before the next one was dealt), no fatal problem."""
    from unonet.net._clients import join_seat

    async def main():
        cfg = config(2, rules=make_rules("official", [], target=30), matches=2)
        seen = []
        with trio.fail_after(120):
            async with live_table(cfg, game_factory=HostGame, local_seat=run_local_seat(None)) as table:
                async with trio.open_nursery() as n:
                    ch = await n.start(join_seat(f"127.0.0.1:{table.port}", name="pat", bind="127.0.0.1",
                                                 identity=P.Identity.generate(), bot=True))
                    table.start()
                    async for value in ch.feed:
                        seen.append(value)
                        if isinstance(value, F.MatchOver):
                            break
                    table.start()   # match 2 announced ...
                    table.close()   # ... and the table closed before its first deal
                    async for value in ch.feed:
                        seen.append(value)
        return seen

    seen = run(main)
    assert not [v for v in seen if isinstance(v, F.TableProblem)], seen[-3:]
    said = [v.text for v in seen if isinstance(v, F.Notice) and v.kind == "closed"]
    assert said == ["the host closed the table after the match, before the next match was dealt"], said
