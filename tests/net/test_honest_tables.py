"""Honest tables never cry cheat (issue 21): an in-process `HostTable` on loopback (its own
seat a bot) and two remote seats (bots over real Noise links), through a seeded random
schedule of drops (the link cut without a word), polite quits and rejoins with the same key,
over two matches.  Whatever the schedule, no party reports a cheat or a fair-play problem:
not the host's events, not a seat's feed, not a seat's failure; and the table closes after
its matches with a result."""

from __future__ import annotations

import random

import pytest
import trio

import unonet.net as N
import unonet.protocol as P
from unonet.engine import make_rules
from unonet.net._game import HostGame, SeatGame, bot_step, run_local_seat
from unonet.net._join import JoinFailed, play_seat
from unonet.net._seat import SeatSide

from .net_helpers import run
from .session_helpers import config, live_table

NAMES = ("ana", "bo", "cy", "di", "ed")
ACTIONS = ("drop", "quit", "rejoin", "rejoin")
SUSPECT = ("cheat", "fair-play", "fairplay", "violation", "forged", "tamper")


def suspect(text: str) -> bool:
    return any(word in text.lower() for word in SUSPECT)


class Seat:
    """One remote player: the same key across its comings and goings."""

    def __init__(self, name: str) -> None:
        self.name, self.identity = name, P.Identity.generate()
        self.scope: trio.CancelScope | None = None
        self.leave: trio.Event | None = None
        self.feed: list = []
        self.failures: list[str] = []
        self.results: list = []

    @property
    def seated(self) -> bool:
        return self.scope is not None

    async def sit(self, table, task_status=trio.TASK_STATUS_IGNORED) -> None:
        self.scope, self.leave = trio.CancelScope(), trio.Event()
        port = table.port
        task_status.started()
        try:
            with self.scope:
                link = await N.connect("127.0.0.1", port, self.identity, name=self.name,
                                       timeouts=N.Timeouts(idle=5.0))
                side = SeatSide(name=self.name, identity=self.identity, host_public=link.peer_fair_identity,
                                game_factory=SeatGame, bot=True)
                self.results.append(await play_seat(link, side, bot_step=bot_step, on_feed=self.feed.append,
                                                    leave=self.leave, matches=None))
        except (JoinFailed, OSError, trio.BrokenResourceError) as exc:
            self.failures.append(f"{type(exc).__name__}: {exc}")
        except N.LinkClosed as exc:
            # honest only when the table has closed after its last match while we knocked
            assert table.matches_played >= 2, (self.name, table.matches_played, str(exc))
            self.failures.append(f"LinkClosed: {exc}")
        finally:
            self.scope = None


async def honest_evening(seed: int, steps: int, rules=None, players: int = 3, teams: bool = False,
                         limit: float = 90) -> dict:
    """Two matches of an honest table (the host's own bot and ``players - 1`` remote seats)
    while its players drop, quit and come back at random moments (``steps`` tries)."""
    rnd = random.Random(seed)
    cfg = config(players, rules=rules or make_rules("official", [], target=500), autostart=True, hold_seats=0.3,
                 matches=2, ready_timeout=2.0, teams=teams)
    seats = [Seat(n) for n in NAMES[:players - 1]]
    schedule = []
    async with live_table(cfg, game_factory=HostGame, local_seat=run_local_seat(None)) as table:
        with trio.fail_after(limit):
            async with trio.open_nursery() as n:
                for s in seats:
                    await n.start(s.sit, table)
                for _ in range(steps):
                    # a random moment of the table's life: a few of its messages later
                    await trio.sleep(rnd.uniform(0.02, 0.3))
                    if table.matches_played >= 2:
                        break
                    s, action = rnd.choice(seats), rnd.choice(ACTIONS)
                    if action == "drop" and s.seated:
                        s.scope.cancel()  # the process died: its link closes without a word
                    elif action == "quit" and s.seated:
                        s.leave.set()     # q, y: it says goodbye
                    elif action == "rejoin" and not s.seated:
                        await n.start(s.sit, table)
                    else:
                        continue
                    schedule.append((s.name, action))
                # everyone back for the rest of the evening, till the table closes
                while table.matches_played < 2:
                    for s in seats:
                        if not s.seated:
                            await n.start(s.sit, table)
                    await trio.sleep(0.2)
                n.cancel_scope.cancel()
        events = list(table.events)
        return {"schedule": schedule, "events": events, "seats": seats, "result": table.result,
                "matches": table.matches_played}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_honest_tables_through_drops_quits_rejoins_and_match_ends_never_report_a_cheat(seed):
    out = run(honest_evening, seed, 30)
    assert {"drop", "rejoin"} <= {a for _, a in out["schedule"]}, out["schedule"]  # something happened
    assert_nobody_cried_cheat(out)


def assert_nobody_cried_cheat(out: dict) -> None:
    """Neither the host nor any seat said a word of cheating, and both matches were played."""
    host_said = [(e.kind, e.text) for e in out["events"] if e.data.get("cheat") or suspect(e.text)]
    assert not host_said, (out["schedule"], host_said)
    for s in out["seats"]:
        feed = [v for v in s.feed if isinstance(v, dict) and (v.get("cheat") or suspect(str(v)))]
        assert not feed, (s.name, out["schedule"], feed)
        assert not [f for f in s.failures if suspect(f)], (s.name, out["schedule"], s.failures)
    assert out["result"] is not None and out["matches"] == 2, \
        (out["schedule"], [(e.kind, e.text) for e in out["events"]][-15:])
