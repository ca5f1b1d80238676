"""Engine-level cheats by the host: its record is signed and self-consistent, yet the
engine replay over the public record catches it — live, by every seat and the observer
before they co-sign the round (the same replay as the audit), and offline, naming the line."""

import pytest

from unonet.engine import Play, make_bot, make_rules, play_round
from unonet.fair.testing import det_randbytes
from unonet.table import audit_transcript, make_table

import json

from .helpers import edit, game_events


def json_of(line):
    return json.loads(line)["data"]


def _bots(n, seed):
    return [make_bot("heuristic", f"{seed}/{s}") for s in range(n)]


class Stop(Exception):
    pass


def play_until(t, bots, cond):
    """Play the round with bots until `cond()` holds after an action (the cheat is out)."""
    def check(action, events):
        if cond():
            raise Stop

    try:
        play_round(t.round, bots, on_events=check)
    except Stop:
        return
    raise AssertionError("the round ended before the cheat")


def finish_anyway(t, bots):
    """Play the round to its end after every party caught the host (they would have left):
    each party is handed the events it missed, without its engine copy, and the seats' owed
    messages are made by their verifiers directly, so the transcript is whole for the offline
    audit."""
    from unonet.table._host import _OWED

    for p in t.everyone:  # they listen on, without their engine copies, for the record's sake
        if p.violation is None:
            continue
        k = next(i for i, e in enumerate(t.host.events) if e is p.violation_event)
        p.violation, p.replay.current = None, None
        for e in t.host.events[k + 1:]:  # the ledger took the caught event before the engine replay refused it
            p.verifier.receive(e)
    t.strict = False
    for _ in range(5000):
        if t.host.finished:
            return
        o = t.host.owed()[0]
        if o.kind == "act":
            t.act(bots[o.seat].act(t.round, o.seat))
        else:
            t.send(o.seat, getattr(t.seats[o.seat].verifier, _OWED[o.kind])())
            t.pump()
    raise AssertionError("the round did not end")


def caught_live(table, match, at=None):
    """Every seat and the observer refused the round (blaming the host) and co-signed nothing;
    with `at`, each did so on receiving that very event (the one carrying the lie)."""
    for p in table.everyone:
        assert p.violation is not None and match in p.violation.reason and p.violation.seat is None, \
            (p.seat, p.violation)
        if at is not None:
            assert p.violation_event is at, (p.seat, p.violation_event, at)
    assert not any(e.EV == "round-sign" for e in table.host.events)


def game_event_of(table, data):
    """The published `game` event carrying `data` (what the host recorded)."""
    return next(e for e in table.host.events if e.EV == "game" and e.data == data)


def test_host_announces_an_illegal_play():
    """The host 'misremembers' the colour in force so that its engine accepts a card that
    does not match; the fair record (a real opening, signed) is consistent with it."""
    for i in range(50):
        host = make_table(make_rules(), 4, randbytes=det_randbytes(f"illegal-{i}"), strict=False)
        rnd = host.open_round()
        rnd.start()
        bots = _bots(4, i)
        seat = rnd.turn
        bad = [c for c in rnd.hands[seat] if not c.wild and c.color != rnd.color and c.rank != rnd.top.rank]
        if rnd.phase.value != "play" or rnd.pending or not bad:
            continue
        rnd.color = bad[0].color  # the lie
        rnd.apply(Play(seat, bad[0]))
        # caught at once, on the play's game record: every seat's own engine replay refuses it
        lie = next(e for e in reversed(host.host.events) if e.EV == "game" and e.data["g"] == "act")
        assert lie.data["a"]["t"] == "play"
        caught_live(host, f"illegal play '{bad[0].code}'", at=lie)
        finish_anyway(host, bots)
        line = next(k for k, d in game_events(host.lines) if d["g"] == "act" and d["a"]["t"] == "play") + 1
        report = audit_transcript(host.lines)
        assert not report.ok and report.line == line, report.summary
        assert f"illegal play '{bad[0].code}'" in report.reason
        caught_live(host, f"illegal play '{bad[0].code}'")
        return
    pytest.fail("no opening hand with an unplayable card")


@pytest.mark.parametrize("field,change", [
    ("winner", lambda d: d.update(winner=(d["winner"] + 1) % 4)),
    ("points", lambda d: d.update(points=d["points"] + 20)),
    ("hand_points", lambda d: d["hand_points"].__setitem__(1, d["hand_points"][1] + 1)),
])
def test_host_announces_a_wrong_result(field, change):
    def tamper(data):
        if data["g"] == "end":
            data = dict(data, hand_points=list(data["hand_points"]))
            change(data)
        return data

    host = make_table(make_rules(), 4, randbytes=det_randbytes("wrong-winner"), tamper_game=tamper, strict=False)
    rnd = host.open_round()
    rnd.start()
    play_round(rnd, _bots(4, "w"))
    end = next(k for k, d in game_events(host.lines) if d["g"] == "end") + 1
    report = audit_transcript(host.lines)
    assert not report.ok and report.line == end
    assert report.reason.startswith("game record: ")
    # live: on the `game {g: end}` record itself, before the reveals and the round-end
    caught_live(host, report.reason.split(": ", 1)[1], at=game_event_of(host, json_of(host.lines[end - 1])))


def test_host_announces_a_wrong_draw_count():
    from .helpers import draw_count_lie

    tamper = draw_count_lie()
    host = make_table(make_rules(), 3, randbytes=det_randbytes("draws-0"), tamper_game=tamper, strict=False)
    rnd = host.open_round()
    rnd.start()
    bots = _bots(3, "d")
    play_until(host, bots, lambda: tamper.done)
    # live, on the lying record, before anything of the next action
    caught_live(host, "draw gives", at=host.host.events[-1])
    finish_anyway(host, bots)
    report = audit_transcript(host.lines)
    assert not report.ok and "draw gives" in report.reason, report.summary


def test_host_omits_an_action_from_the_record():
    host = make_table(make_rules(), 4, randbytes=det_randbytes("omit"))
    rnd = host.open_round()
    rnd.start()
    play_round(rnd, _bots(4, "o"))
    lines = host.lines
    k = [i for i, d in game_events(lines) if d["g"] == "act"][3]
    # drop the game line (a re-chained, unsigned edit: the replay names the first wrong line)
    from .helpers import rechain

    cut = rechain(lines[:k] + lines[k + 1:])
    report = audit_transcript(cut)
    assert not report.ok and report.line is not None and report.line <= len(cut)


def test_a_game_event_edited_after_the_fact_is_named_even_when_rechained():
    host = make_table(make_rules(), 4, randbytes=det_randbytes("edit"))
    rnd = host.open_round()
    rnd.start()
    play_round(rnd, _bots(4, "e"))
    i = next(k for k, d in game_events(host.lines) if d["g"] == "act" and d["a"]["t"] == "play")
    edited = edit(host.lines, i, lambda o: o["data"]["a"].update(seat=(o["data"]["a"]["seat"] + 1) % 4))
    report = audit_transcript(edited)
    assert not report.ok and report.line == i + 1, report.summary
