"""A seat's act in another form than the engine's (spec §6.1.1 "action"): a bad peer's wedge.

The `game` record that closes an action repeats the signed act's `action` exactly, and the host
writes it in the engine's form (`action_json`: every field, `color` null for a card that is not
wild, `uno`). The wire lets a play leave `color` and `uno` out, so a seat could sign a legal
play in a shorter form: the host took it, played it, published the act - and then its own
ledger refused its own record of it. The act stood in the host's transcript with no record
after it, and every later act of every honest seat was "before the game record of seat 0's act
0": the honest host named each one a cheat (dropping them all) and its table was wedged. The
host now refuses, before it plays anything, an action that is not in the engine's form
(`illegal`, not a cheat: nothing false was said), and the round goes on."""

from __future__ import annotations

import pytest

from unonet.fair._events import Act
from unonet.protocol import Fair
from unonet.protocol._codec import decode_message, encode_message
from unonet.table import Refusal
from unonet.table._round import action_json

from .helpers import match_table


def _short_play():
    t = match_table("adv-act-forms", 3, strict=False)
    rnd = t.start_round()
    rnd.start()
    r = t.host.round
    seat = r.turn
    play = next(a for a in r.legal_actions(seat) if type(a).__name__ == "Play")
    full = action_json(r, play)
    short = {k: v for k, v in full.items() if k not in ("uno",) and not (k == "color" and v is None)}
    assert short != full
    return t, seat, t.seats[seat].act(short, short["pos"])


def test_the_short_form_is_a_valid_wire_message():
    """Any peer can send it: the decoder takes it (the fields are optional on the wire)."""
    t, seat, ev = _short_play()
    msg = Fair.of(ev, t.host.round_no)
    assert isinstance(decode_message(encode_message(msg)), Fair)


def test_an_act_in_another_form_is_refused_and_the_table_goes_on_blaming_nobody():
    t, seat, ev = _short_play()
    before = len(t.host.lines)
    with pytest.raises(Refusal) as info:
        t.host.receive(seat, ev)
    assert info.value.code == "illegal" and "form" in info.value.reason, info.value.reason
    assert len(t.host.lines) == before  # nothing published, nothing played
    t.seats[seat].withdraw(ev)
    # the seat (or the next one) plays on in the engine's form: taken, nobody blamed
    for _ in range(6):
        r = t.host.round
        s = r.turn
        a = next(iter(r.legal_actions(s)))
        js = action_json(r, a)
        t.send(s, t.seats[s].act(js, js.get("pos")))
        t.pump()
    assert t.violations == [], t.violations


# ------------------------------------------------------------------ an act whose opening lies
def _lying_acts():
    """(name, make(t, seat, r) -> the seat's own signed act whose opening fails the fair check
    while the engine would take its action)."""
    import dataclasses

    from unonet.fair import sign_seat_event

    def signed(t, seat, act):
        v = t.seats[seat].verifier
        lg = v.ledger
        out = sign_seat_event(v.identity, lg.table, lg.round_no, lg.start_digest, dataclasses.replace(act, sig=b""))
        v._made.add(out.canonical())
        return out

    def play(t, seat, r):
        a = next(a for a in r.legal_actions(seat) if type(a).__name__ == "Play")
        js = action_json(r, a)
        return t.seats[seat].act(js, js["pos"]), js

    def bad_salt(t, seat, r):
        good, _ = play(t, seat, r)
        return signed(t, seat, dataclasses.replace(good, opening=dataclasses.replace(good.opening, salt=bytes(32))))

    def no_opening(t, seat, r):
        good, _ = play(t, seat, r)
        return signed(t, seat, dataclasses.replace(good, opening=None))

    def opening_on_a_draw(t, seat, r):
        good, _ = play(t, seat, r)
        return signed(t, seat, dataclasses.replace(good, action={"t": "draw", "seat": seat}))

    return [("bad salt", bad_salt), ("no opening", no_opening), ("opening on a draw", opening_on_a_draw)]


@pytest.mark.parametrize("name,make", _lying_acts(), ids=[n for n, _ in _lying_acts()])
def test_an_act_whose_opening_lies_is_the_seats_cheat_and_moves_nothing(name, make):
    """The host's engine used to play the act's action before its fair check of the opening
    refused it: the seat was rightly dropped, but the host's engine had played its card (the
    turn moved on) while no peer ever saw it, so the next honest act's game record was illegal
    in every peer's replay and every seat and the observer convicted the honest host."""
    from unonet.fair import FairPlayViolation

    for i in range(50):  # a deal where the first seat to move can play a card
        t = match_table(f"adv-act-opening-{i}", 3, strict=False)
        rnd = t.start_round()
        rnd.start()
        r = t.host.round
        seat = r.turn
        if any(type(a).__name__ == "Play" for a in r.legal_actions(seat)):
            break
    lie = make(t, seat, r)
    before, hands = len(t.host.lines), [len(h) for h in r.hands]
    with pytest.raises(FairPlayViolation) as info:
        t.host.receive(seat, lie)
    assert info.value.seat == seat, info.value  # the cheat is the seat's (its own link)
    assert len(t.host.lines) == before and t.host.round.turn == seat and [len(h) for h in r.hands] == hands
    # the dropped seat's turn is the table's default move, then the honest seats play on
    t.broadcast(t.host.timeout(seat, "act"))
    t.seats[seat].violation = FairPlayViolation("dropped")  # (it no longer listens)
    for _ in range(6):
        r = t.host.round
        if r is None or r.over:
            break
        s = r.turn
        if s == seat:
            t.broadcast(t.host.timeout(s, "act"))
            continue
        a = next(iter(r.legal_actions(s)))
        js = action_json(r, a)
        t.send(s, t.seats[s].act(js, js.get("pos")))
        t.pump()
    assert t.violations == [], t.violations


def test_a_play_of_a_card_the_seat_no_longer_holds_is_refused_not_called_a_cheat():
    """Whether the seat still holds the card is the rules engine's to refuse (a jump-in on its
    way while the hands were passed or swapped is a race): the early fair check takes only what
    no race can make false - the opening against its commitment - so a true opening of a card
    the seat no longer holds is refused, never a cheat."""
    from unonet.fair import sign_seat_event

    for i in range(50):
        t = match_table(f"adv-act-gone-{i}", 3, strict=False)
        rnd = t.start_round()
        rnd.start()
        r = t.host.round
        seat = r.turn
        play = next((a for a in r.legal_actions(seat) if type(a).__name__ == "Play"), None)
        if play is not None:
            break
    js = action_json(r, play)
    first = t.seats[seat].act(js, js["pos"])
    t.send(seat, first)
    t.pump()
    v = t.seats[seat].verifier
    lg = v.ledger
    again = sign_seat_event(v.identity, lg.table, lg.round_no, lg.start_digest,
                            Act(seat=seat, n=lg.acts[seat], action=js, opening=first.opening))
    with pytest.raises(Refusal):
        t.host.receive(seat, again)
    assert t.violations == []
