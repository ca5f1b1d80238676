"""Honest hand-overs keep every seat's key (issue 22 class 5, class 8): a player that
follows the election too late finds its seat away under its own key, is given it back as
a rejoin (the replay confirms the election), joins late and plays the match to its end
with everyone else; nobody is accused.

The follower waits for the elected host's ``elected`` line (play resumed without it), not a
fixed time: with stand-ins at four seats the rest of the match can take well under a second,
and a follower that slept past the end of the match found the table gone (its seat had nothing
to come back to), which is not what this test is about."""

from __future__ import annotations

import trio

import unonet.net._election as E

from .test_election import Joiner, _match_with_joiners

RESUMED_LIMIT = E.ELECTION_WAIT + 30.0  # c waits this long at most for the elected host to resume


def test_a_player_that_follows_too_late_rejoins_the_elected_table_under_its_own_key(monkeypatch):
    honest = E.follow
    js = [Joiner("a"), Joiner("b"), Joiner("c")]

    async def follow(nxt, side, identity, **kw):
        if side.name == "c":  # c reaches the elected host once it resumed without c
            with trio.move_on_after(RESUMED_LIMIT):  # (else it follows anyway: the asserts say why)
                while not any(x.get("t") == "elected" for j in js for x in j.out):
                    await trio.sleep(0.01)
        return await honest(nxt, side, identity, **kw)

    monkeypatch.setattr(E, "follow", follow)
    trio.run(_match_with_joiners, ("--players", "5", "--bots", "1"), js)
    assert all(j.error is None for j in js), [str(j.error) for j in js]
    assert js[0].result == js[1].result == js[2].result and js[0].result["scores"]
    c = js[2]
    hosts = [j for j in js if any(x.get("t") == "elected" for x in j.out)]
    assert len(hosts) == 1 and hosts[0] is not c, [j.name for j in hosts]  # (a, first in the succession, as a rule)
    a = hosts[0]
    elected = next(x for x in a.out if x.get("t") == "elected")
    seat_c = c.side.seat
    assert str(seat_c) in elected["text"].split("played by this host for")[1]  # away when play resumed
    back = [x for x in c.out if x.get("t") == "rejoined"]
    assert back and back[-1]["hosts"] == 2  # its seat given back: the replay read two hosts' transcripts
    assert not any(x.get("cheat") for j in js for x in j.out), "an honest table accused someone"
    # the elected host gave the seat back (a rejoin) and took its late join without a refusal
    assert any(x.get("t") == "rejoined" and x.get("seat") == seat_c for x in a.out)
    assert not any(x.get("t") in ("refusal", "problem") and "match-join" in x.get("text", "") for x in a.out)


def test_the_new_hosts_lines_name_seats_and_scorekeepers_in_words():
    """play13, a new host's stderr: "scorekeeper scorekeeper's ledger agrees with this table's
    (1 round(s) handed over)" and "seats back: [2]; played by this host for [0]"."""
    from types import SimpleNamespace

    from unonet.net._election import keeper_words, seats_words

    assert keeper_words("scorekeeper") == "the scorekeeper's" and keeper_words("Kim") == "scorekeeper Kim's"
    seats = [SimpleNamespace(name="Hal"), None, SimpleNamespace(name="Jo")]
    assert seats_words(seats, [2]) == "2 (Jo)" and seats_words(seats, [0, 1]) == "0 (Hal), 1"
    assert seats_words(seats, []) == "none"
