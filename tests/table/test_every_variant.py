"""Every seat's own engine copy follows every variant `unonet play` offers, whole rounds long.

Bots play from their own seat's copy (as remote bots do, `join --bot`); after every `game`
record every seat's and the observer's copy agrees with the host's round on what that party
may know, the seat the host waits for is the seat its own copy says must act (a wrong copy
stalls a remote bot), `TableSeat.owed()` is idempotent, and nobody raises a violation. Keep-
drawing and Flip's draw-until-colour (a hidden card decides how many are drawn) included."""

from __future__ import annotations

from collections import Counter

import pytest

from unonet.engine import Respond, make_bot, make_rules, play_round
from unonet.engine._rules import CONFLICTS, DECK_CONFLICTS, HOUSE_RULES, PRESETS, REQUIRES
from unonet.fair.testing import det_randbytes
from unonet.table import audit_transcript, make_table
from unonet.table._round import action_from_json, action_json


def _house_cases():
    out = []
    for h in HOUSE_RULES:
        house = {h} | ({REQUIRES[h]} if h in REQUIRES else set())
        out.append(("official", tuple(sorted(house))))
    # the hidden-card steps on UNO Flip's deck, and the rules that read another seat's hand
    out += [("flip", ("keep-drawing",)), ("flip", ("draw-and-play",)), ("house", ("keep-drawing", "jump-in")),
            ("official", ("deadly", "must-play-wd4", "wd4-strict")), ("official", ("keep-drawing", "draw-and-play"))]
    return out


CASES = [(p.name, ()) for p in PRESETS] + _house_cases()


def _must_act(rnd, seat) -> bool:
    if rnd is None or rnd.over:
        return False
    if rnd.phase.value == "race":
        return rnd.race is not None and seat in rnd.race.waiting
    return rnd.turn == seat


def _agree(t, where):
    h = t.host.round
    for s in t.everyone:
        who = "observer" if s.seat is None else f"seat {s.seat}"
        assert s.violation is None, (where, who, s.violation)
        c = s.round
        assert c is not None, (where, who)
        assert (c.turn, c.phase, c.color, c.top.full_code, [len(x) for x in c.hands], len(c.draw_pile),
                len(c.discard), c.over, c.side) == (h.turn, h.phase, h.color, h.top.full_code,
                                                    [len(x) for x in h.hands], len(h.draw_pile), len(h.discard),
                                                    h.over, h.side), (where, who)
        if s.seat is not None:
            assert Counter(x.full_code for x in c.hands[s.seat]) == Counter(x.full_code for x in h.hands[s.seat])
            waited = any(o.seat == s.seat and o.kind == "act" for o in t.host.owed())
            assert waited == _must_act(c, s.seat), (where, who, t.host.owed())
            if not h.over:
                mine = sorted(str(action_json(c, a)) for a in c.legal_actions(s.seat))
                assert mine == sorted(str(action_json(h, a)) for a in h.legal_actions(s.seat)), (where, who)
            first = [e.canonical() for e in s.owed()]
            assert [e.canonical() for e in s.owed()] == first, (where, who, "owed() is not idempotent")


def _play(rules, players, seed, *, check=True):
    t = make_table(rules, players, randbytes=det_randbytes(seed))
    rnd = t.start_round()
    rnd.start()
    bots = [make_bot("heuristic", f"{seed}/{s}") for s in range(players)]
    if check:
        _agree(t, "start")
    actions = 0
    for _ in range(3000):
        if t.host.round.over:
            break
        seat = t.host.owed()[0].seat  # whose move the table waits for (the turn, or a racer)
        mine = t.seats[seat].round
        choice = Respond(seat) if mine.phase.value == "race" else bots[seat].act(mine, seat)
        t.act(action_from_json(t.host.round, action_json(mine, choice)))
        actions += 1
        if check:
            _agree(t, f"action {actions}")
    assert t.host.finished, "the round did not end"
    return t, actions


@pytest.mark.parametrize("preset,house", CASES, ids=[f"{p}-{'+'.join(h) or 'plain'}" for p, h in CASES])
def test_every_seats_copy_follows_every_variant_for_whole_rounds(preset, house):
    conflicts = {a for a, b, _ in CONFLICTS for x in [(a, b)] if set(x) <= set(house)}
    assert not conflicts
    rules = make_rules(preset, set(house))
    assert not set(house) & set(DECK_CONFLICTS.get(rules.deck, ()))
    players = 2 if "seven-o" in house else 4
    total = 0
    for k in range(2):
        t, n = _play(rules, players, f"variant-{preset}-{'+'.join(house)}-{k}")
        total += n
        assert all(s.violation is None for s in t.everyone)
        report = audit_transcript(t.lines)
        assert report.ok, report.summary
    assert total > 10


def test_keep_drawing_by_other_seats_is_followed_without_seeing_the_cards():
    """Keep-drawing: a seat draws until a card fits; the others cannot see the cards, yet their
    copies follow how many were drawn (their placeholders are made to agree with the record)."""
    rules = make_rules("house", {"keep-drawing"})
    for k in range(6):
        t, _ = _play(rules, 4, f"keep-{k}")
        many = [len(r) for _, d in _games(t) if d["g"] == "act" and d["a"]["t"] == "draw"
                for r in [[e for e in d["ev"] if e[0] == "Drew"]] if len(r) > 1]
        if many:
            return
    pytest.fail("no draw of several cards in six rounds")


def _games(t):
    import json

    return [(i, json.loads(ln)["data"]) for i, ln in enumerate(t.lines) if json.loads(ln)["ev"] == "game"]


def test_owed_is_idempotent_and_hands_each_message_out_once():
    """`TableSeat.owed()` twice with no event between: the same signed messages, nothing drawn
    anew (a second seed commitment would be a new secret); once handed out and with other
    events arriving before it is relayed, it is not handed out again."""
    t = make_table(make_rules(), 3, randbytes=det_randbytes("owed-idem"))
    t.broadcast(t.host.start_match())
    joins = [s.owed() for s in t.seats]
    assert all(len(j) == 1 and j[0].EV == "match-join" for j in joins)
    assert [[e.canonical() for e in s.owed()] for s in t.seats] == [[j[0].canonical()] for j in joins]
    for s, j in zip(t.seats, joins):
        t.send(s.seat, j[0])
    t.broadcast(t.host.start_round())
    commits = {s.seat: s.owed() for s in t.seats}
    assert all(len(c) == 1 and c[0].EV == "player-commit" for c in commits.values())
    again = {s.seat: s.owed() for s in t.seats}
    assert {k: [e.canonical() for e in v] for k, v in again.items()} == \
        {k: [e.canonical() for e in v] for k, v in commits.items()}
    # seat 0's commitment goes first; seats 1 and 2 see it relayed before theirs is: their
    # commitments are on their way, so owed() has nothing new for them
    t.send(0, commits[0][0])
    assert t.seats[1].owed() == [] and t.seats[2].owed() == []
    t.send(1, commits[1][0])
    t.send(2, commits[2][0])
    t.pump()
    assert t.host.round is not None and all(s.violation is None for s in t.everyone)


def test_a_deadly_draw_from_a_hidden_hand_never_accuses_an_honest_host():
    """Deadly: a draw is legal only when nothing in the hand plays.  Another seat's copy holds
    placeholders for that hand; random ones rarely make a hand without a play (a few worlds
    in a hundred for seven hidden cards), so 64 random tries refused honest draws (seeds 2, 9,
    10, 11, 12 below, at six players, before the copy looked for such a world on purpose)."""
    rules = make_rules("official", {"deadly"})
    for seed in range(13):
        t = make_table(rules, 6, randbytes=det_randbytes(f"build-{seed}"))
        rnd = t.open_round()
        rnd.start()
        if not rnd.over:
            play_round(rnd, [make_bot("random", f"f/{seed}/{s}") for s in range(6)])
        assert all(s.violation is None for s in t.everyone), seed
        assert audit_transcript(t.lines).ok, seed
