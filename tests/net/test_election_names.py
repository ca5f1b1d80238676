"""A seat's name survives an election.  The play-testers' screens read "Ana (bot)" become
"Ben (bot)" after the host was lost (and "Ana (bot)" again at the next election), while the
scorekeeper kept "Ana (bot)": the elected host named the lost host's bot anew."""

from __future__ import annotations

import trio

from .test_election import Joiner, _match_with_joiners


def test_every_seat_keeps_its_name_in_the_elected_hosts_roster():
    js = [Joiner("a"), Joiner("b")]
    seen = {}

    def elected_roster():
        side = js[1].side
        if side is None or side.roster is None:
            return False
        if len(js[1].links) < 2:
            seen["before"] = side.roster
            return False
        host = seen["before"].host
        if side.roster.host == host:
            return False
        seen["after"] = side.roster
        return True

    async def main():
        await _match_with_joiners(["--players", "4", "--bots", "1", "--target", "500"], js, until=elected_roster)

    trio.run(main)
    before = {p.seat: p.name for p in seen["before"].players}
    after = {p.seat: p.name for p in seen["after"].players}
    print(before, after)
    assert after == before, (before, after)
