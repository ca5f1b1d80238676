"""The scorekeeper's feed as the net layer makes it (`unonet.net._observe.watch_table`), at a real
`unonet host` on loopback that is killed (SIGKILL) mid-match: the observer is told the table, its
host and its seats while the players gather, each round as it is dealt, the host's election and
where the new host continues the record - a ledger head that is the players' own - and the
screen's view model (`ScoreView`) built from that feed says so."""

from __future__ import annotations

import trio

import unonet.protocol as P
from unonet import feed as F
from unonet.net._join import JoinFailed, connect_table
from unonet.net._observe import ObserverSide, watch_table
from unonet.protocol._schema import OBSERVER
from unonet.tui.score_view import ScoreView

from .session_helpers import first_json, reaped, unonet
from .test_election import LOOP, Joiner, _free_udp_port
from .test_observe_election import kill_in_round_two


class FeedKeeper:
    """A scorekeeper in this process: everything its feed gave, in order, with the rounds it
    signed off among them (``("recorded", entry)``)."""

    def __init__(self) -> None:
        self.identity = P.Identity.generate()
        self.log: list = []
        self.sides: list[ObserverSide] = []
        self.error: BaseException | None = None

    def values(self, kind) -> list:
        return [v for v in self.log if isinstance(v, kind)]

    async def run(self, port: int) -> None:
        link = await connect_table("127.0.0.1", port, self.identity, name="keeper", role=OBSERVER)
        side = ObserverSide(name="keeper", host_public=link.peer_fair_identity,
                            on_round=lambda led, e, names: self.log.append(("recorded", e)),
                            on_match_over=lambda line: self.log.append(("over", line)))
        try:
            await watch_table(link, side, identity=self.identity, on_feed=self.log.append, on_side=self.sides.append)
        except JoinFailed as exc:
            self.error = exc


def test_the_observers_feed_names_the_table_then_follows_the_host_change_on_the_players_ledger():
    keeper = FeedKeeper()
    joiners = [Joiner("bea"), Joiner("cy")]

    async def main():
        host = unonet("host", "--no-ui", "--json", *LOOP, "--discovery-port", str(_free_udp_port()),
                      "--name", "ana", "--table", "lan-night", "--players", "4", "--bots", "1")
        with reaped(host):
            port = first_json(host)["port"]
            with trio.fail_after(300):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(keeper.run, port)
                    while not keeper.values(F.Lobby):  # attached while the table gathers players
                        await trio.sleep(0.01)
                    for j in joiners:  # in order: the first joiner is the first in the succession
                        nursery.start_soon(j.run, port)
                        await trio.sleep(0.2)
                    await kill_in_round_two(joiners[0], host)
            host.wait(timeout=10)

    trio.run(main)
    assert keeper.error is None, keeper.error
    assert all(j.error is None and j.result is not None for j in joiners), [j.error for j in joiners]
    log = keeper.log
    first_recorded = next(i for i, v in enumerate(log) if isinstance(v, tuple) and v[0] == "recorded")

    # 1. before the first round ends: the table, its host, its seats, the round dealt
    before = log[:first_recorded]
    lobbies = [v for v in before if isinstance(v, F.Lobby)]
    assert lobbies[0].table == "lan-night" and lobbies[0].hosted_by == "ana" and lobbies[0].me is None
    seated = {s.name for s in lobbies[-1].seats}
    assert {"ana", "bea", "cy"} <= seated and len(seated) == 4, lobbies[-1]
    assert any(isinstance(v, F.RoundStarted) and v.number == 1 for v in before)

    # 2. the host change: who is gone, who hosts now, and where the record goes on
    [election] = keeper.values(F.Election)
    assert (election.lost, election.successor, election.me) == ("ana", "bea", False)
    [resumed] = keeper.values(F.Resumed)
    assert log.index(resumed) > log.index(election) and resumed.host == "bea"
    # the head it continues from is our own record's at that round; and that record ends on
    # the players' head (below), so it is on the players' chain too
    ours = [v[1] for v in log if isinstance(v, tuple) and v[0] == "recorded"]
    assert [e.round for e in ours] == list(range(1, len(ours) + 1))  # every round once, none lost
    assert resumed.rounds >= 1 and resumed.head == ours[resumed.rounds - 1].hash.hex()
    # the new host's table: its roster (before its confirmation) keeps the table's name
    after = [v for v in log[log.index(election):] if isinstance(v, F.Lobby)]
    assert after and after[0].hosted_by == "bea" and after[0].table == "lan-night", after[:1]
    assert any(isinstance(v, F.RoundStarted) and v.number == resumed.rounds + 1 for v in log[log.index(resumed):])

    # the match ends on the players' ledger: the keeper's last head is the one in their line
    [over] = keeper.values(F.MatchOver)
    assert over.ledger == joiners[1].result["ledger"] == ours[-1].hash.hex()

    # the screen's view model, fed this feed, says all of it
    view = ScoreView()
    view.apply_all(v for v in log if not isinstance(v, tuple))
    text = "\n".join(view.lines(120))
    assert text.splitlines()[0].startswith("table lan-night, hosted by bea")
    assert "HOST CHANGED: bea took the table over from ana (election 1)" in text
    assert f"bea hosts now; the record continues after round {resumed.rounds},\n  on ledger head {resumed.head[:16]}" \
        in text
    assert "the match is over" in text
