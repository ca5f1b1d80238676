"""Round 1's dealer is drawn from the match id (spec §6.1 "Dealer draw"), and the match id
hashes every seat's `match-join` nonce: whoever joins last, having seen the other nonces, can
try nonces until the draw gives the dealer it wants.  The host sees every join first (it relays
them), and its own seat's join is its own to hold back and make last; a seat that joins last
sees the others' joins relayed.  No verifier can tell a ground nonce from a drawn one.

This is a residual (docs/fair-play.md §11.16), not a closed cheat: the test shows it so that a
fix (a commit to each nonce before any is revealed, or a dealer drawn from round 1's joint seed)
is seen to close it.  What it buys: which seat deals round 1, hence who plays first (the
dealer's left); nothing of any card or seed."""

from __future__ import annotations

from unonet.engine import make_bot, make_rules, play_round
from unonet.fair import Identity, audit
from unonet.fair._match import NONCE_LEN, match_id
from unonet.fair.testing import det_randbytes
from unonet.table import LocalTable, TableHost, TableSeat
from unonet.table._match import first_dealer

PLAYERS = 4
HOST_SEAT = 0
WANTED = PLAYERS - 1  # the dealer whose left is the host's seat: the host plays first


def _grinding_table(seed: str) -> LocalTable:
    """A host whose own seat joins last, with a nonce ground (with its own randomness, its
    own key signing the join) so that round 1's draw makes seat WANTED the dealer."""
    rb = det_randbytes(seed)
    ids = [Identity.generate(rb) for _ in range(PLAYERS)]
    host = TableHost(make_rules(target=10_000), PLAYERS, identity=ids[HOST_SEAT], seats=[i.public for i in ids],
                     host_seat=HOST_SEAT, randbytes=rb)
    tries = det_randbytes(seed + "/grind")

    def ground(n: int) -> bytes:
        m = host.match
        if n != NONCE_LEN or m.start is None or m.joined or len(m.joins) != PLAYERS - 1:
            return rb(n)  # (its other randomness: drawn as any seat's)
        others = [m.joins[s].nonce for s in range(PLAYERS) if s != HOST_SEAT]
        for _ in range(200):
            nonce = tries(NONCE_LEN)
            nonces = others[:HOST_SEAT] + [nonce] + others[HOST_SEAT:]
            if first_dealer(match_id(m.start_hash, nonces), PLAYERS) == WANTED:
                return nonce
        raise AssertionError("no nonce found")  # (each try wins with about 1 in PLAYERS)

    class LastJoiner(TableSeat):
        """The host's own seat: it holds its join until every other seat's is in."""

        def owed(self):
            if host.match.start is not None and not host.match.joined and len(host.match.joins) < PLAYERS - 1:
                return []
            return super().owed()

    seats = [(LastJoiner if s == HOST_SEAT else TableSeat)(s, ids[s], ids[HOST_SEAT].public,
                                                          randbytes=ground if s == HOST_SEAT else rb)
             for s in range(PLAYERS)]
    return LocalTable(host, seats, [TableSeat(None, None, ids[HOST_SEAT].public)], strict=True)


def test_the_last_joiner_picks_round_ones_dealer_unseen_a_residual():
    for k in range(6):
        t = _grinding_table(f"grind-{k}")
        rnd = t.start_round()
        rnd.start()
        if not rnd.over:
            play_round(rnd, [make_bot("heuristic", f"grind-{k}/{s}") for s in range(PLAYERS)])
        t.pump()  # (the co-signs)
        assert t.host.finished
        setup = next(e for e in t.host.events if e.EV == "game" and e.data.get("g") == "setup")
        assert setup.data["dealer"] == WANTED, k
        # every seat, the observer and the audit take it: the nonce is as good as a drawn one
        assert not t.violations and all(s.violation is None for s in t.everyone), k
        assert audit(t.lines).ok, audit(t.lines).summary
