"""The host's lines about a player who said goodbye are true: Jo, who left (its `leave`,
"its matches are played") as the host announced the next match, was said to have "not
joined the match in time"."""

from __future__ import annotations

import re
import time

import trio

from unonet.engine import make_rules
from unonet.net._game import HostGame, run_local_seat

from .net_helpers import run
from .session_helpers import config, finish, live_table, reaped, unonet
from .test_between_matches import MatchesJoiner


def test_a_player_who_left_after_its_matches_is_said_to_have_left_not_to_be_late():
    async def main():
        cfg = config(3, rules=make_rules("official", [], target=1), matches=2, autostart=True)
        jo, al = MatchesJoiner("Jo", 1), MatchesJoiner("Al", 2)
        with trio.fail_after(120):
            async with live_table(cfg, game_factory=HostGame, local_seat=run_local_seat(None)) as table:
                async with trio.open_nursery() as n:
                    n.start_soon(jo.run, table.port)
                    n.start_soon(al.run, table.port)
                    await jo.done.wait()
                    await al.done.wait()
                return table, jo, al

    table, jo, al = run(main)
    assert jo.error is None and al.error is None, (jo.error, al.error)
    texts = [e.text for e in table.events]
    assert any(t.startswith("Jo (seat ") and t.endswith(": left (its matches are played)") for t in texts), texts
    late = [t for t in texts if "did not join the match in time" in t]
    assert not late, late
    if table.matches_played == 2 and sum(e.kind == "started" for e in table.events) > 2:
        # the next match was announced before Jo's goodbye came: it starts again without Jo, said so
        again = [t for t in texts if t.startswith("seat ") and "(Jo) left: a bot takes the seat" in t]
        assert len(again) == 1, texts


def test_a_table_short_of_a_player_after_a_match_says_what_it_waits_for():
    """Jo quits in the middle of match 1 (a goodbye: a bot plays the seat to the match's end);
    the table that starts its next match by itself then waits for a player, and says so (seen:
    "the match is over", then nothing)."""
    async def main():
        cfg = config(2, rules=make_rules("official", [], target=200), matches=2, autostart=True)
        jo = MatchesJoiner("Jo", 2)
        with trio.fail_after(120):
            async with live_table(cfg, game_factory=HostGame, local_seat=run_local_seat(None)) as table:
                async with trio.open_nursery() as n:
                    n.start_soon(jo.run, table.port)
                    while not jo.seen("game"):  # (bounded by the fail_after above)
                        await trio.sleep(0.01)
                    jo.leave.set()
                    await jo.done.wait()
                    while table.matches_played < 1:
                        await trio.sleep(0.05)
                    await trio.sleep(0.5)
                return table

    table = run(main)
    texts = [e.text for e in table.events]
    waiting = [e for e in table.events if e.kind == "waiting"]
    assert [e.text for e in waiting] == ["the next match starts when 1 more player sits down; seat 1 (Jo) left"], texts
    assert table.state == "lobby" and table.matches_played == 1, texts
    # the match's end names its winner and the scores by name (it said only "the match is over")
    ended = [e for e in table.events if e.kind == "ended"]
    r = ended[0].data
    host_name = table.config.host_name  # (the host's own seat, a bot here)
    winner = [host_name, "Jo"][r["winner"]]
    assert len(ended) == 1 and ended[0].text == (
        f"the match is over: {winner} wins; {host_name} {r['scores'][0]}, Jo {r['scores'][1]} "
        f"after {r['rounds']} round{'' if r['rounds'] == 1 else 's'}"), ended[0].text


def test_a_headless_host_in_words_says_the_match_end_once_by_name():
    """`host --no-ui` in words: "the match is over: player wins; host 91, player 117 after 4
    rounds", then the older "unonet host: match over: seat 1 wins; scores [91, 117] ..." said
    it again by seat number (words15 noticed it; `join --no-ui` had the same double)."""
    host = unonet("host", "--no-ui", "--bind", "127.0.0.1", "--port", "0", "--players", "2", "--target", "60")
    with reaped(host):
        port = None
        for _ in range(750):  # bounded: the table opens in well under 15 s
            m = re.search(r"open on 127\.0\.0\.1:(\d+)", host.out_path.read_text())
            if m or host.poll() is not None:
                break
            time.sleep(0.02)
        assert m, host.err_path.read_text()
        port = m.group(1)
        seat = unonet("join", "--bot", "--no-ui", "--name", "Jo", f"127.0.0.1:{port}")
        with reaped(seat):
            assert finish(seat, 120)[0] == 0
            code, out, err = finish(host, 60)
    assert code == 0, err[-2000:]
    ends = [line for line in out.splitlines() if "match over" in line or "match is over" in line]
    assert len(ends) == 1 and re.fullmatch(r"unonet host: the match is over: (host|Jo) wins; host \d+, Jo \d+ "
                                          r"after \d+ rounds?", ends[0]), out[-800:]
