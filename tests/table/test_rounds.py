"""Fair rounds across house rules, decks, player counts and teams: every transcript audits clean,
the engine's card movements are exactly the fair record's, and the rare paths are exercised."""

import json

import pytest

from unonet.engine import HeuristicBot, make_rules
from unonet.fair import FairVerifier
from unonet.table import TABLE_DECKS, audit_transcript

from .helpers import BluffBot, HoarderBot, LastWildFourBot, engine_events, fair_round, game_events

CASES = [
    ("official", (), None, 4, False),
    ("official", ("stacking",), None, 3, False),
    ("official", ("seven-o",), None, 4, False),
    ("official", ("jump-in",), None, 5, False),
    ("official", ("keep-drawing",), None, 6, False),
    ("2018", (), "2018", 4, False),
    ("house", ("keep-drawing",), "2018", 6, False),
    ("official", ("stacking", "seven-o", "jump-in"), None, 2, False),
    ("official", (), None, 4, True),
    ("house", (), None, 6, True),
]


@pytest.mark.parametrize("preset,house,deck,players,teams", CASES)
def test_rounds_audit_clean(preset, house, deck, players, teams):
    rules = make_rules(preset, house, deck=deck, teams=teams)
    for k in range(4):
        host, rnd = fair_round(rules, players, seed=f"{preset}-{house}-{players}-{k}")
        report = audit_transcript(host.lines)
        assert report.ok, report.summary
        assert report.games == 1 and (f"1 round replayed by the rules engine ({len(host.lines)} lines); host key "
                                      f"{host.dealer.identity.public.fingerprint}") in report.summary
        # every seat's verifier and the observer followed the whole round
        for v in [s.verifier for s in host.seats] + host.observers:
            assert v.ledger.digest == host.dealer.ledger.digest


def _find(rules, players, want, *, tries=200, bots=None, prefix="find"):
    """Play rounds until one records the engine event `want`; it must audit clean."""
    for i in range(tries):
        host, rnd = fair_round(rules, players, seed=f"{prefix}-{want}-{i}",
                               bots=bots() if bots else None)
        if want in engine_events(host.lines):
            report = audit_transcript(host.lines)
            assert report.ok, report.summary
            return host, rnd
    pytest.fail(f"no round with {want} in {tries} tries")


def test_a_wild_draw_four_turned_up_first_is_returned_and_the_pile_reshuffled_fairly():
    host, _ = _find(make_rules(), 4, "ReturnedToDeck", tries=400)
    ev = [json.loads(ln)["ev"] for ln in host.lines]
    i = ev.index("turn-up")
    assert ev[i + 1] == "seed-commit"  # epoch 1 over the W+4 and the undealt pile
    first = json.loads(host.lines[i])["opening"]["card"]
    assert first == "W+4"


def test_the_discard_pile_reshuffle_is_a_fair_epoch():
    host, _ = _find(make_rules("official", ["keep-drawing"]), 6, "Reshuffled")
    lg = host.dealer.ledger
    assert len(lg.epochs) >= 2 and all(lg.positions[j].played_by is not None for j in lg.epochs[1].sources)


def test_wild_shuffle_hands_redeals_through_a_fair_epoch():
    host, _ = _find(make_rules("2018"), 4, "HandsShuffled", tries=300)
    assert any(len(e.sources) > 10 for e in host.dealer.ledger.epochs[1:])


@pytest.mark.parametrize("what", ["Swapped", "HandsPassed"])
def test_seven_o_hands_move_as_fair_epochs_sealed_to_the_new_holder(what):
    host, rnd = _find(make_rules("official", ["seven-o"]), 4, what)
    # each seat's own verifier knows exactly the cards the engine says it holds
    for s in host.seats:
        assert sorted(c.secret for c in s.hand.values()) == sorted(c.code for c in rnd.hands[s.seat]) or rnd.over


def test_challenges_guilty_and_innocent_are_decided_on_evidence():
    seen = set()
    for i in range(60):
        host, rnd = fair_round(make_rules(), 3, seed=f"bluff-{i}",
                               bots=[BluffBot(i), HeuristicBot(i + 1), BluffBot(i + 2)])
        report = audit_transcript(host.lines)
        assert report.ok, report.summary
        for ch in host.dealer.ledger.challenges:
            seen.add(ch.guilty)
        if seen == {True, False}:
            return
    pytest.fail(f"verdicts seen: {seen}")


def test_a_seat_caught_between_its_wild_draw_four_and_the_challenge():
    """Evidence is the hand at the play: the 2 cards drawn for a missed UNO are not shown."""
    for i in range(100):
        host, rnd = fair_round(make_rules(), 2, seed=f"caught-{i}", bots=[HoarderBot(i), BluffBot(i + 1)])
        names = engine_events(host.lines)
        seq = [row for _, d in game_events(host.lines) for row in d.get("ev", [])]
        hit = any(a[0] == "Played" and a[2] == "W+4" and b[0] == "Caught" and b[2] == a[1]
                  for a, b in zip(seq, seq[1:]))
        if hit and "Challenged" in names:
            report = audit_transcript(host.lines)
            assert report.ok, report.summary
            return
    pytest.fail("no caught-then-challenged Wild Draw Four found in 100 seeded rounds")


@pytest.mark.parametrize("preset,deck,house", [("office", "office", ("six-smackdown",)),
                                               ("power", "power", ()), ("deadly", None, ())])
def test_other_decks_and_variants(preset, deck, house):
    rules = make_rules(preset, house, deck=deck)
    for k in range(3):
        host, _ = fair_round(rules, 4, seed=f"{preset}-{k}")
        report = audit_transcript(host.lines)
        assert report.ok, report.summary


def test_ten_players():
    host, _ = fair_round(make_rules(), 10, seed="ten")
    assert audit_transcript(host.lines).ok


def test_table_decks_match_the_fair_layers_named_decks():
    from unonet.fair import KNOWN_DECKS

    for name, deck in KNOWN_DECKS.items():
        assert TABLE_DECKS[name] == deck
    flip = TABLE_DECKS["flip"]
    assert len(flip) == 112 and all(c.two_sided for c in flip)


def test_the_observer_never_learns_a_hand_before_it_is_played_or_opened():
    rules = make_rules()
    from unonet.fair.testing import det_randbytes
    from unonet.table import fair_of, make_table

    host = make_table(rules, 4, randbytes=det_randbytes("privacy"))
    rnd = host.open_round()
    rnd.start()
    obs: FairVerifier = host.observers[0].verifier
    for s in range(4):
        for j in fair_of(host.host.round).hand_positions(s):
            assert obs.card(j) is None
            assert all(host.seats[t].verifier.card(j) is None for t in range(4) if t != s)
            assert host.seats[s].verifier.card(j).secret == fair_of(host.host.round).card_at(j).code


def test_a_challenge_of_a_wild_draw_four_played_as_the_last_card_crosses_the_wire():
    """The challenged seat went out with it: its hand, the challenge's evidence, is empty (the
    challenge fails). Every event of such a round is a valid wire message (an empty
    `positions` once stopped the table: "fair.body.positions: must hold 1..256 items")."""
    import unonet.protocol as P

    host, _ = fair_round(make_rules(), 2, seed="lw-27", bots=[LastWildFourBot(27), LastWildFourBot(28)])
    empty = [c for c in host.dealer.ledger.challenges if not c.positions]
    assert empty and empty[0].guilty is False, host.dealer.ledger.challenges
    for ev in host.host.events:
        msg = P.decode_message(P.encode_message(P.Fair.of(ev, 1)))
        assert msg.event() == ev
