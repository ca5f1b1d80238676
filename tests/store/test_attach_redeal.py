"""The scorekeeper when the new host deals again a round it had recorded (spec §7 step 6,
"redealt"): the lost host's last co-sign relay reached some seats and not the elected one, a
seat reported another head for that round, so the new host continues from the round before.
The round as recorded is void (kept in the database's history, counted nowhere); the round
dealt again counts; the scorekeeper says so and records the match to its end.  A CLI host
(SIGKILLed), in-process joiners (one lying in its report, as in tests/net/test_election.py),
a real `unonet score` process and a real SQLite file."""

from __future__ import annotations

import dataclasses as _dc
import json
import os
import signal

import trio

from ..net.session_helpers import finish, first_json, lines, reaped, unonet
from ..net.test_election import LOOP, Joiner, _free_udp_port, seated
from .test_attach import _attached_async, _db, _overs, _rounds, _score_cli


def _liars(js):
    """on_lost for the joiners: a never got b's co-sign of the last round; b reports another
    head for it (its own lie, as tests/net/test_election.py plays it)."""
    last = {}

    def on_lost(j):
        g = j.side.game
        ended = [x for x in g.seat.match.attempts if x.status == "ended"]
        last[j.name] = g.offset + len(ended)
        liar = js[1].side.game.seat.seat
        if j.name == "a":
            ended[-1].signs.pop(liar, None)  # the relay of b's co-sign never reached a
        if j.name == "b":
            led = g.ledger
            led.entries[-1] = _dc.replace(led.entries[-1], digest=bytes(32))
            led.head = led.entries[-1].hash

    for j in js:
        j.on_lost = on_lost
    return last


async def _redealt_match(db: str, limit: float = 240, late: tuple = ()):
    js = [Joiner("a"), Joiner("b"), Joiner("c")]
    last = _liars(js)
    host = unonet("host", "--no-ui", "--json", *LOOP, "--discovery-port", str(_free_udp_port()),
                  "--players", "4", "--bots", "0")
    with reaped(host):
        port = first_json(host)["port"]
        keeper = unonet("score", "--db", db, "--no-ui", "--json", f"127.0.0.1:{port}")
        with reaped(keeper):
            await _attached_async(keeper)
            with trio.fail_after(limit):
                async with trio.open_nursery() as nursery:
                    for j in js:
                        nursery.start_soon(j.run, port)
                        await seated(j)  # in order: the succession is the seat order
                    while True:  # the host dies once round 1 is done and the next is under way
                        g = js[0].side.game if js[0].side is not None else None
                        if g is not None and g.ledger is not None and g.ledger.rounds >= 1 \
                                and g.seat.round is not None and g.seat.round.turn is not None \
                                and g.round_no > 1 and g.records > 3:
                            break
                        assert host.poll() is None, "the host ended the match before round 2 was under way"
                        await trio.sleep(0.01)
                    os.kill(host.pid, signal.SIGKILL)
                    if late:  # more scorekeepers, attached to the elected host once it dealt again
                        while not any(x.get("kind") == "redealt" for x in js[2].out):
                            await trio.sleep(0.02)
                        heir = js[0].listeners
                        from unonet.net._serve import listener_port

                        later = [unonet("score", "--db", d, "--no-ui", *(("--json",) if i < 2 else ()),
                                        f"127.0.0.1:{listener_port(heir)}") for i, d in enumerate(late)]
                while keeper.poll() is None:
                    await trio.sleep(0.05)
            host.wait(timeout=10)
            if late:
                with reaped(*later):
                    return js, last, finish(keeper, 30), [finish(k, 60) for k in later]
            return js, last, finish(keeper, 30)


def test_a_round_the_new_host_deals_again_voids_the_recorded_one_and_the_scorekeeper_goes_on():
    db = _db()
    js, last, (kcode, kout, kerr) = trio.run(_redealt_match, db)
    c = js[2]
    assert c.result is not None and all(j.error is None and j.result == c.result for j in js), [j.error for j in js]
    told = [x for x in c.out if x.get("t") == "notice" and x.get("kind") == "redealt"]
    assert told, "the table did not go through the redealt case"
    again = last["c"]
    assert kcode == 0, kerr[-3000:]
    got = lines(kout)
    voided = [x for x in got if x["t"] == "voided"]
    # the round dealt again (c's last co-signed round, or under load the keeper's own last)
    assert voided and voided[0]["round"] in (again, again + 1) and "dealt again" in voided[0]["text"], voided
    first, last_voided = voided[0]["round"], voided[-1]["round"]
    numbers = [r["round"] for r in _rounds(got)]
    # every round once, and each voided round twice: as first recorded, and as dealt again
    assert numbers == list(range(1, last_voided + 1)) + list(range(first, c.result["rounds"] + 1)), numbers
    assert [o["ledger"] for o in _overs(got)] == [c.result["ledger"]], (_overs(got), c.result)
    v = _score_cli("verify", "--db", db, "--json")
    assert v.returncode == 0, v.stdout + v.stderr
    assert json.loads(v.stdout)["rounds"] == c.result["rounds"]
    assert json.loads(v.stdout)["voided"] == len(voided)
    m = json.loads(_score_cli("match", "1", "--db", db, "--json").stdout)["match"]
    assert m["head"] == c.result["ledger"] and m["rounds"] == c.result["rounds"], m
    assert [x["round"] for x in m["voided"]] == [x["round"] for x in voided] and m["voided"][0]["hash"] == voided[0]["head"], m["voided"]
    text = _score_cli("match", "1", "--db", db).stdout
    assert f"round {first} as first recorded" in text and "voided, not counted" in text, text


def test_scorekeepers_attached_after_the_round_was_dealt_again_record_it_once_on_the_same_file_and_a_new_one():
    # (and one more on a file of its own without --json: its words)
    """After the redealt case, a second scorekeeper on the same file (which holds the voided round
    already) and a third on a file of its own attach to the elected host: each is replayed the
    old transcript (the round as first dealt), the confirmation and the continued match. The
    one on the shared file finds the first deal voided already and records nothing twice; the
    one on its own file records it, voids it at the confirmation and records the round dealt
    again: both files end on the players' head with one voided round each."""
    db, own, words = _db(), _db(), _db()
    js, last, (kcode, kout, kerr), later = trio.run(lambda: _redealt_match(db, late=(db, own, words)))
    later, (tcode, tout, terr) = later[:2], later[2]
    # without --json the scorekeeper says it in words, and its last line counts it
    assert tcode == 0, terr[-2000:]
    assert "as recorded is void (the new host deals round" in tout and "the round dealt again counts" in tout, tout
    assert "voided and dealt again) in" in tout.strip().splitlines()[-1], tout
    c = js[2]
    assert c.result is not None and all(j.error is None and j.result == c.result for j in js), [j.error for j in js]
    assert kcode == 0, kerr[-3000:]
    for code, out, err in later:
        assert code == 0, err[-3000:]
        assert [o["ledger"] for o in _overs(lines(out))] == [c.result["ledger"]], lines(out)[-3:]
    voided = [x for x in lines(kout) if x["t"] == "voided"]
    assert not [x for x in lines(later[0][1]) if x["t"] == "voided"]   # the shared file had it voided already
    assert [x["round"] for x in lines(later[1][1]) if x["t"] == "voided"] == [x["round"] for x in voided]
    for path in (db, own):
        v = _score_cli("verify", "--db", path, "--json")
        assert v.returncode == 0, v.stdout + v.stderr
        got = json.loads(v.stdout)
        assert got["rounds"] == c.result["rounds"] and got["voided"] == len(voided), got
