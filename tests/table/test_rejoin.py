"""A seat rebuilt from the host's replay (spec §7 `rejoin`): a player whose process died
comes back with the same key, reads every event of the match so far, and has its hand,
its act counter and its co-signs back -- then plays on as if nothing happened."""

from __future__ import annotations

import pytest

from unonet.engine import make_bot, make_rules, play_round
from unonet.fair import FairPlayViolation, Identity
from unonet.fair.testing import det_randbytes
from unonet.table import TableSeat, audit_transcript, make_table
from unonet.table._host import Owed


class Stop(Exception):
    pass


def table_and_ids(seed: str, players: int = 4):
    rb = det_randbytes(seed)
    ids = [Identity.generate(rb) for _ in range(players)]
    host_id = Identity.generate(rb)
    return make_table(make_rules(), players, randbytes=rb, identities=ids, host_identity=host_id), ids, host_id


def play_some(table, n: int, seed: str) -> None:
    """Play the current round for ``n`` actions (or to its end)."""
    count = [0]

    def on_events(action, events) -> None:
        count[0] += 1
        if count[0] >= n:
            raise Stop

    bots = [make_bot("heuristic", f"{seed}/{s}") for s in range(len(table.seats))]
    try:
        play_round(table.round, bots, on_events=on_events)
    except Stop:
        pass


def rebuilt(table, seat: int, ident: Identity, host_id: Identity) -> TableSeat:
    """Seat ``seat`` as a fresh process rebuilds it from everything the host published."""
    new = TableSeat(seat, ident, host_id.public)
    new.recovering = True
    for e in table.host.events:
        new.receive(e)
    new.recovering = False
    return new


@pytest.mark.parametrize("actions", [1, 7, 19])
def test_a_seat_rebuilt_mid_round_has_its_hand_back_and_plays_on(actions):
    table, ids, host_id = table_and_ids(f"rejoin-{actions}")
    table.start_round()
    table.round.start()
    play_some(table, actions, f"b{actions}")
    old = table.seats[2]
    assert not table.host.finished
    new = rebuilt(table, 2, ids[2], host_id)
    assert new.hand == old.hand and new.hand            # the same cards, opened from the replayed deals
    assert new.verifier.next_act == old.verifier.next_act  # its act counter stands where it stood
    assert new.owed() == []                             # it owes nothing it already sent
    assert new.round.hands[2] == old.round.hands[2]     # its engine copy sees the same hand
    table.seats[2] = new                                # the old process is gone: the new one plays
    play_round(table.round, [make_bot("heuristic", f"c{s}") for s in range(4)])
    table.pump()
    assert table.host.finished and not table.violations
    # and the next round goes on with the rebuilt seat signing and committing as usual
    table.start_round()
    table.round.start()
    play_round(table.round, [make_bot("heuristic", f"d{s}") for s in range(4)])
    table.pump()
    assert table.host.finished and not table.violations
    assert new.match.current.signs.get(2) is not None    # it co-signed the round


def test_a_seat_rebuilt_between_rounds_owes_nothing_and_plays_the_next_round():
    table, ids, host_id = table_and_ids("rejoin-between")
    table.start_round()
    table.round.start()
    play_round(table.round, [make_bot("heuristic", f"e{s}") for s in range(4)])
    table.pump()
    new = rebuilt(table, 1, ids[1], host_id)
    assert new.owed() == [] and new.match.current.signs.get(1) is not None
    table.seats[1] = new
    table.start_round()
    table.round.start()
    play_round(table.round, [make_bot("heuristic", f"f{s}") for s in range(4)])
    table.pump()
    assert table.host.finished and not table.violations


def test_without_recovery_a_fresh_seat_takes_its_own_old_words_for_forgeries():
    """Why the mode exists: a seat that does not know it is rebuilding calls its own
    signed events from before the crash forgeries by the host."""
    table, ids, host_id = table_and_ids("rejoin-strict")
    table.start_round()
    table.round.start()
    play_some(table, 3, "g")
    new = TableSeat(0, ids[0], host_id.public)
    with pytest.raises(FairPlayViolation, match="never made"):
        for e in table.host.events:
            new.receive(e)


def test_recovery_does_not_adopt_another_keys_words():
    """Recovering relaxes only "did I make this?" -- never the signature: a join in our
    seat's name signed by another key is still refused."""
    table, ids, host_id = table_and_ids("rejoin-forged")
    table.start_match()
    stranger = Identity.generate(det_randbytes("stranger"))
    new = TableSeat(3, stranger, host_id.public)  # someone else's key claiming seat 3
    new.recovering = True
    with pytest.raises(FairPlayViolation, match="identity that is not ours"):
        for e in table.host.events:
            new.receive(e)


def test_a_seat_that_died_after_committing_its_seed_cannot_reveal_and_the_round_is_dealt_again():
    table, ids, host_id = table_and_ids("rejoin-seed")
    table.start_match()
    table.broadcast(table.host.start_round())
    # every seat commits; nobody has revealed yet
    for s in table.seats:
        for m in s.owed():
            assert m.EV == "player-commit"
            table.send(s.seat, m)
    new = rebuilt(table, 1, ids[1], host_id)
    table.seats[1] = new
    assert new.owed() == []  # its secret died with the old process: it cannot reveal
    table.pump()             # the others reveal
    assert Owed(1, "reveal-seed") in table.host.owed()
    table.timeout(1, "reveal-seed")  # the host's seed deadline: the attempt is aborted
    table.broadcast(table.host.start_round())
    table.pump()
    assert table.host.round is not None  # the next attempt dealt, with the rebuilt seat's fresh seed
    table.round = None
    from unonet.table._driver import DrivenRound

    table.round = DrivenRound(table)
    table.round.start()
    play_round(table.round, [make_bot("heuristic", f"h{s}") for s in range(4)])
    table.pump()
    assert table.host.finished and not table.violations


# ---------------------------------------------------------------------------- absent seats
def _joins_late(t, back: TableSeat, seat: int) -> None:
    """A player back at a match that started with its seat away: its seat, rebuilt from the
    replay (where it reads itself away: no cheat then), signs its `match-join` late, is taken
    off the away list and is dealt in (its seed again) from the next round, played to its end."""
    back.recovering = True
    for e in t.host.events:
        back.receive(e)
    back.recovering = False
    assert [e.EV for e in back.owed()][:1] == ["match-join"]
    t.seats.append(back)
    t.pump()
    assert seat in t.host.match.joins and not t.host.match.away and not t.violations
    rnd = t.start_round()
    assert [e for e in t.host.events if e.EV == "round-start"][-1].absent is None  # its share again
    play_round(rnd, [make_bot("heuristic", f"back/{s}") for s in range(len(t.host.seat_ids))])
    t.pump()
    assert not t.violations and all(s.violation is None for s in t.seats + t.observers)


def _play_with_absent(table, away: int, seed: str, limit: int = 3000) -> None:
    """Play the current round to its end: the seats present act by their bots through their
    own signed acts; the host stands in for the absent seat (`stand_in`, a host-act)."""
    rnd = table.host.round
    bots = [make_bot("heuristic", f"{seed}/{s}") for s in range(rnd.players)]
    for _ in range(limit):
        if rnd.over:
            break
        owed = [o.kind for o in table.host.owed() if o.seat == away and o.kind in ("answer-challenge", "disclose-key")]
        if owed:  # a present seat challenged the absent seat's Wild Draw Four: nobody answers
            table.timeout(away, owed[0])
            continue
        seat = rnd.turn
        action = bots[seat].act(rnd, seat)
        if seat == away:
            if type(action).__name__ == "Challenge":
                table.timeout(seat, "act")
            else:
                table.broadcast(table.host.stand_in(seat, action))
                table.pump()
        else:
            table.act(action)
    table.pump()


def test_an_absent_seat_gives_no_seed_and_the_host_stands_in_for_it_everyone_checking():
    table, ids, host_id = table_and_ids("absent")
    table.start_match()
    away_seat = table.seats[3]
    table.seats = table.seats[:3]  # its player is away: nothing reaches it
    table.broadcast(table.host.start_round(absent=[3]))
    table.pump()
    assert table.host.round is not None, "dealt with three seeds (and the host's)"
    assert 3 not in table.host.dealer.ledger.epochs[0].commits
    _play_with_absent(table, 3, "abs")
    assert table.host.finished and not table.violations  # every present seat and the observer checked it
    # the player comes back: its seat rebuilds from the replay (its absence is no cheat then)
    back = rebuilt(table, 3, ids[3], host_id)
    assert back.violation is None and away_seat.violation is None
    # it checked the round it missed and co-signs it like everyone (the host still waits for it)
    assert [e.EV for e in back.owed()] == ["round-sign"]
    table.seats.append(back)
    table.pump()
    assert not table.host.owed()
    assert back.hand == {j: table.host.dealer.card(j) for j in table.host.dealer.ledger.held_by(3)}
    report = audit_transcript(table.lines)  # the offline audit agrees
    assert report.ok, report


def test_a_host_that_calls_a_present_seat_absent_is_caught_by_that_seat():
    """Leaving seats out of the seed is how a host would pick the shuffle: a seat at the
    table refuses a round-start that calls it absent."""
    table, ids, host_id = table_and_ids("absent-lie")
    table.start_match()
    with pytest.raises(FairPlayViolation, match="without seat 2's seed, calling it absent while it is at the table"):
        table.broadcast(table.host.start_round(absent=[2]))


def test_a_round_start_with_a_malformed_absent_list_is_refused_by_everyone():
    table, ids, host_id = table_and_ids("absent-bad")
    table.start_match()
    with pytest.raises(FairPlayViolation, match="absent seats"):
        table.host.start_round(absent=[7])  # (the dealer's own ledger refuses it before anyone sees it)


def test_a_seat_whose_seeds_come_from_its_key_reveals_after_a_crash_what_it_committed_before():
    """With `secrets_from_key` (the net layer's seats) the secret is derived from the seat's
    signing key: the rebuilt seat finds the committed secret again and reveals it, so the
    round goes on without the seed clock's abort."""
    table, ids, host_id = table_and_ids("rejoin-seed-key")
    for s in table.seats:
        s.secrets_from_key = s.verifier.secrets_from_key = True
    table.start_match()
    table.broadcast(table.host.start_round())
    for s in table.seats:
        for m in s.owed():
            table.send(s.seat, m)
    new = TableSeat(1, ids[1], host_id.public)
    new.secrets_from_key = new.verifier.secrets_from_key = True
    new.recovering = True
    for e in table.host.events:
        new.receive(e)
    new.recovering = False
    table.seats[1] = new
    assert new.verifier.pending_action == "reveal-seed"  # (owed() would hand it out: pump sends it)
    table.pump()
    assert table.host.round is not None and table.host.attempt == 1  # dealt, no abort
    from unonet.table._driver import DrivenRound

    table.round = DrivenRound(table)
    table.round.start()
    play_round(table.round, [make_bot("heuristic", f"k{s}") for s in range(4)])
    table.pump()
    assert table.host.finished and not table.violations
