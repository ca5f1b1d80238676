"""A player back in its seat between rounds (its process killed and started again with the
same key, or its link cut): no round is in play, so no hand is back; and a round its seat won
while a bot played it was not won by the player (words15)."""

from __future__ import annotations

import trio

import unonet.net as N
import unonet.protocol as P
from unonet import feed as F
from unonet.engine import make_rules
from unonet.net._game import HostGame, SeatGame, bot_step, run_local_seat
from unonet.net._join import play_seat
from unonet.net._seat import SeatSide
from unonet.net._text_feed import text_feed

from unonet.tui.screen import result_lines
from unonet.tui.session import SessionView

from .net_helpers import run
from .session_helpers import config, live_table


async def _life(port, ident, name, out, *, killed=None, submit=None, manual_ready=False, screen=False, pace=0.0):
    """One process of a bot-played seat over real TCP; cancel ``killed`` and it dies without a word."""
    link = await N.connect("127.0.0.1", port, ident, name=name, timeouts=N.Timeouts(idle=5.0))
    side = SeatSide(name=name, identity=ident, host_public=link.peer_fair_identity, game_factory=SeatGame, bot=True)
    side.screen, side.manual_ready, side.bot_pace = screen, manual_ready, pace
    with killed or trio.CancelScope():
        await play_seat(link, side, bot_step=bot_step, on_feed=out.append, submit=submit)
    return side


def rejoin_after_a_round_a_bot_won_for_us(won: bool = True):
    """A dealer-only table of two: "holder" reads each result and says ready when the test
    lets it (the table waits between rounds); "comeback" dies once round 1 is dealt, a bot
    stands in for it, and once a round ends that its seat won (``won``; else one it lost), it
    comes back (a new process, the same key) while the table waits for the holder.  Returns
    the comeback's feed after the rejoin (None: the match ended before such a round)."""
    rules = make_rules("official", [], target=3000)
    cfg = config(2, rules=rules, target=3000, dealer_only=True, autostart=True, hold_seats=0.2)
    ident = P.Identity.generate()
    holder: list = []
    first: list = []
    second: list = []

    async def main():
        async with live_table(cfg, game_factory=HostGame, local_seat=run_local_seat(None)) as table:
            with trio.fail_after(120):
                async with trio.open_nursery() as n:
                    ready_in, ready_out = trio.open_memory_channel(8)
                    killed = trio.CancelScope()
                    n.start_soon(lambda: _life(table.port, P.Identity.generate(), "holder", holder,
                                               submit=ready_out, manual_ready=True))
                    await trio.sleep(0.05)
                    n.start_soon(lambda: _life(table.port, ident, "comeback", first, killed=killed, pace=5.0))
                    while not any(isinstance(v, dict) and v.get("t") == "round" for v in first):
                        await trio.sleep(0.005)
                    killed.cancel()  # gone before its first act: a bot plays its seat from here on
                    seat = next(v.me for v in first if isinstance(v, F.Lobby))
                    ends = 0
                    while True:
                        done = [v for v in holder if isinstance(v, dict) and v.get("t") == "round-end"]
                        if len(done) > ends:
                            ends = len(done)
                            if done[-1]["final"]:
                                n.cancel_scope.cancel()
                                return None
                            if (done[-1]["winner"] == seat) == won:
                                break
                            await ready_in.send(F.Ready(1 - seat))
                        await trio.sleep(0.005)
                    n.start_soon(lambda: _life(table.port, ident, "comeback", second, screen=True, manual_ready=True))
                    while not any(isinstance(v, dict) and v.get("t") == "rejoined" for v in second):
                        await trio.sleep(0.005)
                    await trio.sleep(0.2)  # (the screen's values after the rejoin line)
                    n.cancel_scope.cancel()
            return seat, list(second)

    return run(main)


def test_back_between_rounds_after_a_bot_won_the_round_for_the_seat():
    got = None
    for _ in range(3):  # (a match that ends before the bot wins a round for the seat: play another)
        got = rejoin_after_a_round_a_bot_won_for_us()
        if got is not None:
            break
    assert got is not None, "the seat's bot never won a round in three matches"
    seat, out = got
    notices = [v.text for v in out if isinstance(v, F.Notice) and v.kind == "reconnected"]
    scored = [v for v in out if isinstance(v, F.RoundScored)]
    v = SessionView()
    for value in out:
        if not isinstance(value, dict):
            v.apply(value)
    head = [text for _, text in result_lines(v)][0]
    assert notices and all(n.endswith("; the next round is dealt once every player is ready") for n in notices), notices
    assert not any("hand is back" in line for line in v.log), v.log
    assert scored and scored[-1].winner == seat and scored[-1].stand_in, scored
    assert "Your seat goes out (a bot played it); you score" in head and "You go out" not in head, head
    # and `join --no-ui` says it in its words, from the same feed
    said: list[str] = []
    on = text_feed(said.append)
    for value in out:
        on(value)
    assert any(line.startswith(f"round {scored[-1].number}: your seat wins (a bot played it) ") for line in said), said
    assert not any(line.startswith(f"round {scored[-1].number}: you win") for line in said), said
    assert not any(line.rstrip().endswith("your hand:") or "your hand: ;" in line for line in said), said


def test_back_between_rounds_the_typed_seat_says_no_leftover_hand():
    """Neither in words nor in the `rejoined` line's `hand`.  Seen (`join --no-ui` killed after round 1 ended, started again while Kim had not said
    ready): "your hand: G1 Y3 G+2 YS; on top: B+2" - the finished round's leftover cards, said
    as a hand - above "reconnected: ...; the next round is dealt once every player is ready"."""
    got = None
    for _ in range(3):  # (a match that ends before the seat loses a round: play another)
        got = rejoin_after_a_round_a_bot_won_for_us(won=False)
        if got is not None:
            break
    assert got is not None, "the seat never lost a round in three matches"
    seat, out = got
    scored = [v for v in out if isinstance(v, F.RoundScored)]
    assert scored and scored[-1].winner != seat and scored[-1].hands[seat], scored  # cards were left
    said: list[str] = []
    on = text_feed(said.append)
    for value in out:
        on(value)
    assert not any("your hand" in line for line in said), said
    assert said[-1].endswith("; the next round is dealt once every player is ready"), said
    # nor does the `--json` line: its `hand` is the seat's cards in play, and none are
    back = [v for v in out if isinstance(v, dict) and v.get("t") == "rejoined"]
    assert back and back[-1]["hand"] == [], back
