"""The lost host's bots at the elected host (spec §7: their keys kept, their seats away,
played by the new host's stand-ins) are bots in its rosters.  The play-test's Hal, the lost
host back by `unonet join` with a fresh process, read "3 Ben (bot) ... bot plays" and
"* a bot plays Ben (bot)'s seat until they are back"; a scorekeeper attached after the
election read "Ben (bot) (away)": a side that never saw the lost host's roster took the
seat for a player away."""

from __future__ import annotations

import trio

from unonet import feed as F
from unonet.net._seat import SeatSide

from .test_election import Joiner, _match_with_joiners


def test_the_elected_hosts_roster_says_the_lost_hosts_bot_is_a_bot():
    js = [Joiner("a"), Joiner("b")]
    original = {}

    def elected_roster():
        side = js[1].side
        if len(js[1].links) < 2 or side is None or side.roster is None:
            return False
        return side.roster.host != original.setdefault("host", js[1].links[0].peer_id)

    async def main():
        await _match_with_joiners(["--players", "4", "--bots", "1", "--target", "500"], js, until=elected_roster)

    trio.run(main)
    roster = js[1].side.roster
    bot = next(p for p in roster.players if p.name.endswith("(bot)"))
    assert bot.bot and not bot.connected, roster  # dealt absent, a bot's seat all the same
    lost = next(p for p in roster.players if p.id == original["host"])
    assert not lost.bot, roster  # the lost host itself is a player away
    # a side that never saw the lost host (a rejoiner's fresh process, a late scorekeeper)
    fresh = SeatSide(name="late", identity=js[0].identity, host_public=None)
    fresh.seat = 1
    fresh.receive(roster)
    seat = next(s for s in fresh.take_feed() if isinstance(s, F.Lobby)).seats[bot.seat]
    assert seat.bot, seat
