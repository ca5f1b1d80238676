"""A seat's name survives an election.  The play-testers' screens read "Ana (bot)" become
"Ben (bot)" at the elected host's next match, and "Ana (bot)" again after the next election
(a third key under a name a second had had), while the scorekeeper kept "Ana (bot)": the
elected host named the lost host's bot's seat with the first free bot name.  In the continued
match every seat keeps its name and key (spec §7); at the next match the seat is a new key,
so its name is the seat's numbered on ("Ana-2 (bot)"): the seat the screens knew, and no
name under two keys."""

from __future__ import annotations

import os
import signal

import trio

from unonet.names import successor_bot_name

from .session_helpers import finish, lines
from .test_election import Joiner, _match_with_joiners
from .test_follow_matches import _wait, stays_and_goes


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
        if side.roster.host == seen["before"].host:
            return False
        seen["after"] = side.roster
        return True

    async def main():
        await _match_with_joiners(["--players", "4", "--bots", "1", "--target", "500"], js, until=elected_roster)

    trio.run(main)
    before = {p.seat: p.name for p in seen["before"].players}
    after = {p.seat: p.name for p in seen["after"].players}
    assert after == before and before[3] == "Ana (bot)", (before, after)


def test_the_elected_hosts_next_match_names_the_lost_hosts_bots_seat_after_it():
    # Stays, first in the succession, is elected and hosts the next match
    with stays_and_goes(("--players", "4", "--bots", "1", "--target", "30", "--matches", "4"), 4, 4) \
            as (host, stays, goes):
        _wait(goes, "round", 2)  # a second round is dealt (match 1's or 2's): the host dies in it
        os.kill(host.pid, signal.SIGKILL)
        host.wait(timeout=10)
        code, out, err = finish(goes, 200)
    seen = lines(out)
    assert code == 0, err[-2000:]
    kinds = [x.get("t") for x in seen]
    assert kinds.count("election") == 1 and kinds.count("match-over") == 4, kinds
    elected = kinds.index("election")
    ended = kinds.index("match-over", elected)  # the continued match's end

    def names(part):
        return {tuple(s["name"] for s in x["seats"]) for x in part if x.get("t") == "lobby"}
    before = names(seen[max(i for i, k in enumerate(kinds[:elected]) if k == "lobby"):elected])
    assert before == {("host", "Stays", "Goes", "Ana (bot)")}, before
    assert names(seen[elected:ended]) == before, names(seen[elected:ended])  # the continued match
    # a new match, new keys for the seats the new host's bots play: the seat's name, numbered on
    after = names(seen[ended:])
    assert after == {("host (bot)", "Stays", "Goes", "Ana-2 (bot)")}, after
    # (a joiner's lobby line shows its host's join code: the new host's after the election)
    codes = [{x["code"] for x in part if x.get("t") == "lobby"} for part in (seen[:elected], seen[elected:])]
    assert len(codes[0]) == len(codes[1]) == 1 and "" not in codes[0] | codes[1] and codes[0] != codes[1], codes

def test_a_bots_seat_never_gets_back_a_name_it_had():
    """Election after election, the bot in the lost host's bot's seat goes on numbering."""
    chain = ["Ana (bot)"]
    for _ in range(4):
        chain.append(successor_bot_name(chain[-1], ["Hal", "Jo"]))
    assert chain == ["Ana (bot)", "Ana-2 (bot)", "Ana-3 (bot)", "Ana-4 (bot)", "Ana-5 (bot)"]
    assert successor_bot_name("hal (bot)", ["hal-2 (bot)"]) == "hal-3 (bot)"  # (a name taken at the table)
    long = successor_bot_name("x" * 26 + " (bot)")
    assert long == "x" * 24 + "-2 (bot)" and len(long) == 32


def test_a_bot_an_elected_table_seats_anew_takes_no_name_another_keys_bot_had_there():
    """eve12: Kim's link was down as Pat's elected table started the next match; the bot that
    took Kim's seat was named "Ana (bot)" - the name of Hal's bot (the lost host's) in the
    match before the election - and the scorekeeper's standings listed "Ana (bot)" twice,
    under two keys.  A fresh bot at an elected table skips the names of the old host's roster."""
    import unonet.protocol as P
    from unonet.net._host import BOT_KIND, HostTable

    from .session_helpers import config

    old = P.Roster(table=b"t" * 16, epoch=3, host=b"\1" * 32, rules="official", players=tuple(
        P.PlayerEntry(seat=i, id=bytes([i + 1]) * 32, name=n, bot=n.endswith("(bot)"))
        for i, n in enumerate(("Hal", "Pat", "Kim", "Ana (bot)"))))
    names = {}
    for elected in (False, True):
        table = HostTable(config(4), P.Identity.generate())
        if elected:
            table.news_from = old  # (what `host_as_successor` leaves on the table it runs)
        names[elected] = table._add_local(BOT_KIND, None, None, seat=2).name
    assert names[False] == "Ana (bot)", names          # a table of its own: the first bot name
    assert names[True] != "Ana (bot)" and names[True].endswith("(bot)"), names
