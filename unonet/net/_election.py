"""Host election and migration (spec §7): a match that outlives its host.

Every joiner listens from the start on a port its hello names (`listen`); the host puts
``address-of-its-link:listen`` in the roster (`addr`).  A host silent for 3 s, or whose
link ends in the middle of a match, is gone.  Every peer then computes the successor
alike from the last roster (`successor`: the first peer of `succession` that is still
connected, is not the lost host and has an `addr`).

* The successor becomes the host (`host_as_successor`): a `HostTable` on the listener it
  opened at join, the same table id and seats; bots of the lost host (and the lost host's
  own seat) are bots of the new host, the remote seats wait for their own keys
  (`SuccessorTable`).
* Every other peer (`follow`) connects to the successor's `addr`, checks that the key
  there is the successor's, and sends `election {term, host, head, rounds}`.
* The new host waits up to `ELECTION_WAIT` s for every remote seat, then fixes the
  continuation: the last round **every** peer completed (the fewest rounds reported).  A
  report whose ledger head at its round count is not the new host's own head at that count
  is refused loudly (fatal `error` ``fair-play``): a head nobody can justify.  It confirms
  with its own `election` (the agreed head and rounds) to each seat, then deals a new fair
  match whose `match-start` continues the old one (unonet.table._handover), which every seat
  checks against its own record (`Follower.confirm` and the TableSeat).  The round in
  progress is void: it never ended, nobody co-signed it.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

import trio

from unonet import feed as F
from unonet.ledger import after_rounds, plural
from unonet.protocol import Election, Identity, Ledger

from ._carry import NO_HEAD, Carry, Follower, afresh, carry_at, heads, ledger_messages, signed_beyond, split_round  # noqa: F401 - re-exported
from ._errors import ConnectFailed, LinkError, PeerRefused
from ._seat import SeatProblem, SeatSide
from ._seats import HOST_KIND, REMOTE_KIND, Sitter
from ._host import Drop, HostTable, TableConfig
from ._join import JoinFailed, between_matches_end, take_seat
from ._link import Timeouts, connect
from ._game import HostGame, run_local_seat
from ._serve import listener_port
from ._spool import MessageSpool

__all__ = ["successor", "Carry", "Follower", "SuccessorTable", "host_lost", "play_with_elections", "ledger_messages",
           "ELECTION_WAIT", "FOLLOW_LIMIT"]

ELECTION_WAIT = 6.0    # the new host waits this long for every remote seat to come back
FOLLOW_LIMIT = 8.0     # a follower tries the successor's address this long


def successor(roster, lost: bytes):
    """The roster's `PlayerEntry` that takes over from ``lost`` (None: nobody can)."""
    by_id = {p.id: p for p in roster.players}
    for pid in roster.succession:
        p = by_id.get(pid)
        if pid != lost and p is not None and p.connected and not p.bot and p.addr:
            return p
    return None


class SuccessorTable:
    """The elected host's election phase, hooked into its `HostTable` (``table.election``):
    seats the table from the old roster, admits only the roster's own keys, collects the
    `election` reports, then fixes the continuation and starts the match."""
    def __init__(self, roster, me: bytes, lost: bytes, follower: Follower, term: int, *,
                 on_done: Callable[[], None] | None = None) -> None:
        self.roster, self.me, self.lost, self.own, self.term = roster, me, lost, follower, term
        self.reports: dict[int, Election] = {}
        self.expected: dict[int, bytes] = {}
        self.deadline = float("inf")
        self.on_done = on_done
        self.started_at: float | None = None
        self.yielded: list = []  # set when this claimant yields to an earlier peer (see tick)
        self.alone = False       # set when no seat it waited for came: the others stay with the host
        self.observers: dict = {}  # scorekeepers that reported (peer -> its election): confirmed too
        #: scorekeepers that reported more rounds than this host completed (their last round
        #: reached them and not us): confirmed once their handed-over ledger checks as far as ours goes
        self.ahead: dict = {}
        self.confirm: Election | None = None  # once play resumed

    # -- the seats ----------------------------------------------------------------------
    def seat_table(self, table) -> None:
        """Seats as the old roster had them: this peer's own (it plays), remote players
        waiting for their keys.  Once the match had started, every other seat (the old
        host's bots, the lost host's own seat, a player already away) keeps its key too,
        away: this host plays it by stand-ins (spec §7: a hand-over never gives a seat to
        another key).  Before that, bots of this host take them."""
        book = table.book
        keys = self.old_keys()
        for p in sorted(self.roster.players, key=lambda p: p.seat):
            if p.id == self.me:
                table._add_local(HOST_KIND, p.name, table.identity, seat=p.seat)
            elif (p.bot or p.id == self.lost or not p.connected) and keys is not None:
                self._sit_away(table, p.seat, p.name, p.id, keys[p.seat], bot=p.bot)
            elif p.bot or p.id == self.lost or not p.connected:
                # a bot of this host plays it (`bot_for`: "Hal (bot)" for Hal, a name of its own for
                # the lost host's bot - never one name under two keys); its team never changes
                table.bot_for(p.seat, p.name)
            else:
                book.sit(lambda s, p=p: Sitter(s, p.name, REMOTE_KIND, p.id, None, b"", connected=False,
                                               addr=p.addr), seat=p.seat)
                self.expected[p.seat] = p.id
        table.state = "electing"
        table.elected = self  # (scorekeepers may report and hand their ledger over after it, too)
        self.started_at = trio.current_time()
        self.deadline = self.started_at + ELECTION_WAIT

    def old_keys(self) -> list | None:
        """The old match's seat identities (its match-start's), None before it started: a
        continuation seats exactly them."""
        seat = getattr(self.own.game, "seat", None)
        match = getattr(seat, "match", None)
        if match is None or match.start is None or match.match_id is None:
            return None
        return list(match.start.seats)

    @staticmethod
    def _sit_away(table, seat: int, name: str, pid: bytes, identity, bot: bool = False) -> None:
        """The seat keeps its old key, its player away: dealt absent, played by a stand-in
        (`HostGame`), until that key comes back and joins (a rejoin).  ``bot``: the lost
        host's bot - its rosters still say a bot (no player is away there)."""
        table.book.sit(lambda s: Sitter(s, name, REMOTE_KIND, pid, identity, b"", connected=False,
                                        dropped_at=float("-inf"), was_bot=bot), seat=seat)

    def admits(self, table, peer) -> bool:
        s = table.book.of_peer(peer.peer_id)
        if s is None or s.seat not in self.expected:

            peer.put(Drop("forbidden", "this table is resuming a match after an election: only its seats' "
                                       "own keys may come back"))
            table.refused_line(peer, "not a seat of the match being resumed", code="forbidden")
            return False
        return True

    # -- the reports --------------------------------------------------------------------
    def on_message(self, table, peer, msg) -> bool:
        if not isinstance(msg, Election):
            return False
        seat = peer.seat
        if peer.sitter is None:
            self.on_observer(table, peer, msg)
            return True
        if msg.host != self.me or msg.term != self.term:
            table.drop(peer, "unexpected", f"election term {msg.term} for host {msg.host.hex()[:16]}: this table "
                                           f"is host {self.me.hex()[:16]}, term {self.term}", field="election")
            return True
        if self.on_done is None or seat is None:
            table.drop(peer, "unexpected", "the election is over: play has resumed", field="election")
            return True
        self.reports[seat] = msg
        self.tick(table)
        return True

    # -- scorekeepers (observers) ----------------------------------------------------------
    def on_observer(self, table, peer, msg) -> None:
        """A scorekeeper following the election: its `election` report and its `ledger` are
        checked against this host's own chain (a head or an entry off it is refused loudly);
        it is never waited for and never counts in the agreed rounds.  Reported after play
        resumed, it is confirmed at once and given the continued match so far."""
        mine = self.own.heads
        if isinstance(msg, Election):
            if peer in self.observers:
                # an honest scorekeeper reports once: each report confirmed again replayed the
                # whole continued match to it (redteam16: a stranger could buy replays)
                table.drop(peer, "unexpected", f"election term {msg.term}: this scorekeeper reported already and "
                                               "follows this table", field="election")
                return
            if msg.host != self.me or msg.term != self.term:
                table.drop(peer, "unexpected", f"election term {msg.term} for host {msg.host.hex()[:16]}: this "
                                               f"table is host {self.me.hex()[:16]}, term {self.term}", field="election")
                return
            if msg.rounds >= len(mine):
                # beyond our chain: the lost host may have died while its last round_end was on
                # the wire, which reached the scorekeeper and not us (an unlucky table, not a
                # lie): its ledger, handed over next, must be ours as far as ours goes; the
                # confirmation then voids the rest at the scorekeeper (it is dealt again)
                self.ahead[peer] = msg
                return
            if mine[msg.rounds] != msg.head:
                self._turn_away_observer(table, peer, f"its ledger head {after_rounds(msg.rounds)} "
                                                      f"({msg.head.hex()[:16]}) is not on the match's chain")
                return
            self._confirm_observer(table, peer, msg)
            return
        if isinstance(msg, Ledger):
            game = self.own.game
            led = game.ledger if game is not None else None
            if led is None or msg.match != led.header.match:
                self._refuse_observer(table, peer, f"its ledger is of match {msg.match.hex()[:16]}, not this table's")
                return
            ours = {e.round: e for e in led.entries if e.counted}
            top, beyond = max(ours, default=0), 0
            for e in msg.entries:
                own = ours.get(e.round)
                if own is None and e.round > top and peer in self.ahead:
                    beyond += 1  # a round this host never saw end: checked by nobody, voided by the confirmation
                    continue
                if own is not None and own.hash == e.hash and own.winner != e.winner:
                    # (the hash binds the winner: this is the scorekeeper's own inconsistency)
                    self._refuse_observer(table, peer, f"its ledger gives round {e.round} the winner {e.winner}, "
                                                       f"but the hash it hands over is of winner {own.winner}")
                    return
                if own is None or own.hash != e.hash:
                    self._turn_away_observer(table, peer, f"its ledger differs from this table's at round {e.round}")
                    return
                # the hash alone does not bind the points it carries: they must be the result
                # the players co-signed (their tallies, kept with this table's own entry)
                points = [(p.seat, p.points) for p in e.points]
                if points != list(enumerate(own.hand_points)):
                    signed = len(led.cosigns.get(own.key, {}))
                    self._refuse_observer(table, peer, f"its ledger gives round {e.round} the hand points "
                                                       f"{[p for _, p in points]}, not {list(own.hand_points)} "
                                                       f"as {signed} player(s) co-signed it")
                    return
            if msg.rounds < len(mine) and mine[msg.rounds] != msg.head:
                self._turn_away_observer(table, peer, f"its ledger head {after_rounds(msg.rounds)} is not on the chain")
                return
            more = f"; {plural(beyond, 'round')} beyond it, which this table deals again" if beyond else ""
            table._emit("observer", f"{keeper_words(peer.name)} ledger agrees with this table's "
                                    f"({plural(len(msg.entries), 'round')} handed over{more})", rounds=msg.rounds)
            if peer in self.ahead and (not msg.entries or msg.entries[-1].hash == msg.head):  # (its last one)
                self._confirm_observer(table, peer, self.ahead.pop(peer))
            return
        table.drop(peer, "forbidden", f"an observer may not send {msg.TYPE}", field="t")

    def forget(self, peer) -> None:
        """A peer went: its report is no longer kept.  Anyone may attach as a scorekeeper and
        report (the roster names the host, the term is small): kept after its link ended, each
        report held a dead `Peer` (its link, its outbox) for as long as the table lived."""
        self.ahead.pop(peer, None)
        self.observers.pop(peer, None)

    def _confirm_observer(self, table, peer, report: Election) -> None:
        """A scorekeeper whose report checks follows this table: confirmed with the seats (at
        once, with the continued match so far, when play has resumed)."""
        self.observers[peer] = report
        if self.confirm is not None:
            table.send(peer, self.confirm)
            game = table.game
            if game is not None:  # the continued match so far (it starts at its match-start)
                table.replay(peer, game.history, len(getattr(table, "prefix", None) or ()))

    def _turn_away_observer(self, table, peer, why: str) -> None:
        """A scorekeeper whose record is not this table's chain cannot follow it, but that is
        no proof it lies: it co-signs nothing and cannot contest a waiver, so the lost host
        could have told it another story of any round (withholding the seats' co-signs from it
        and waiving them in what it showed it), or its last round may have reached it and not
        this host. Refused, loudly, without calling it a cheat (`unexpected`)."""
        # (a line per address, a few every few seconds: anyone may attach as a scorekeeper and report
        # whatever head it likes, and one line per attempt flooded the operator - lan7)
        table._emit_about(_about(peer), "problem", f"scorekeeper {peer.name} ({peer.address}): {why} (the lost host may have told it "
                               "another story, or its last round reached the scorekeeper and not this table): "
                               "refused")
        self.ahead.pop(peer, None)
        table.drop(peer, "unexpected", f"your {why.removeprefix('its ')}: this table cannot continue your record"[:256])

    def _refuse_observer(self, table, peer, why: str) -> None:
        table._emit_about(_about(peer), "problem", f"scorekeeper {peer.name} ({peer.address}): {why}: refused",
                          cheat=True)
        self.ahead.pop(peer, None)
        table.drop(peer, "fair-play", f"your {why.removeprefix('its ')}"[:256])

    def earlier(self) -> list:
        """Roster peers before this one in the succession (other than the lost host): if
        nobody follows this peer, one of them was elected by the others."""
        by_id = {p.id: p for p in self.roster.players}
        out = []
        for pid in self.roster.succession:
            if pid == self.me:
                break
            p = by_id.get(pid)
            if p is not None and pid != self.lost and p.addr and not p.bot:
                out.append(p)
        return out

    def tick(self, table) -> None:
        """Resume play once every expected seat reported (or the wait is over).  Two
        claimants (peers whose rosters differed): the one that nobody followed by half
        the wait, with a peer before it in the succession, yields and follows that one."""
        if self.on_done is None:
            return
        now = trio.current_time()
        if self.expected and not self.reports and self.earlier() and now >= self.started_at + ELECTION_WAIT / 2:
            self.yielded = self.earlier()
            table._emit("problem", f"nobody followed this election in {ELECTION_WAIT / 2:g} s: following "
                                   f"{self.yielded[0].name}, which comes first in the succession")
            self.on_done = None
            table.election = None
            table.close()
            return
        waiting = [s for s in self.expected if s not in self.reports]
        if waiting and trio.current_time() < self.deadline:
            return
        if self.expected and not self.reports:
            # players were connected in the last roster and not one of them came: they can
            # still reach the host (only this peer lost it), or they are all gone.  Resuming
            # alone with bots would make a second copy of the match (issue 23): this peer stops.
            self.alone = True
            table._emit("problem", f"nobody followed this election in {ELECTION_WAIT:g} s (the other players "
                                   "stay with the host, or are gone): not forming a second table")
            self.on_done = None
            table.election = None
            table.close()
            return
        self._resume(table, waiting)

    def _resume(self, table, missing: list[int]) -> None:
        mine = self.own.heads
        for seat, rep in list(self.reports.items()):
            signed = signed_beyond(self.own.game, seat, rep.rounds, mine)
            if signed is not None:
                # its own co-sign of a later round is in our record: taken, its report would drop
                # rounds every seat co-signed, which the followers that saw them blame on this host
                # (spec §7 step 5). Refused, not called a cheat: a seat whose host died while it
                # read a rejoin's replay reports the rounds it had read back, honestly
                peer = next((p for p in table.peers if p.seat == seat), None)
                table._emit("problem", f"seat {seat} reports its ledger {after_rounds(rep.rounds)}, but it "
                                       f"co-signed round {signed} (this table holds its co-sign): refused, the "
                                       "seat is away until it comes back")
                if peer is not None:
                    table.drop(peer, "unexpected", f"your ledger report {after_rounds(rep.rounds)} leaves out "
                                                   f"round {signed}, which you co-signed")
                del self.reports[seat]
                missing.append(seat)
                continue
            if split_round(self.own.game, seat, rep.rounds, rep.head, mine):
                # not provably the seat's lie: the lost host may have told it another story of
                # its last round and died before their co-signs crossed; that round is not one
                # every seat completed alike, so the match goes on from the round before it
                # (which the seat checks against its own chain when it reads the confirmation)
                table._emit("problem", f"seat {seat}'s ledger head {after_rounds(rep.rounds)} is "
                                       f"{rep.head.hex()[:16]}, not this table's {mine[rep.rounds].hex()[:16]}, and "
                                       f"its co-sign of round {rep.rounds} never reached this table: the lost host "
                                       "told the seats two stories of that round; resuming before it")
                self.reports[seat] = Election(term=rep.term, host=rep.host, head=mine[rep.rounds - 1],
                                              rounds=rep.rounds - 1)
                continue
            if afresh(rep.rounds, rep.head) or afresh(rep.rounds, mine[0]):
                # nothing completed on one side, no ledger yet (the lost host died sending round
                # 1's set-up, which one of us read and the other not): it agrees, the match
                # starts afresh below; a seat that co-signed a round was refused above
                continue
            if rep.rounds < len(mine) and mine[rep.rounds] != rep.head:
                peer = next((p for p in table.peers if p.seat == seat), None)
                table._emit("problem", f"seat {seat}'s ledger head {after_rounds(rep.rounds)} is "
                                       f"{rep.head.hex()[:16]}, not this table's {mine[rep.rounds].hex()[:16]}: "
                                       "refused", cheat=True)
                if peer is not None:
                    table.drop(peer, "fair-play", f"your ledger head {after_rounds(rep.rounds)} "
                                                  f"({rep.head.hex()[:16]}) is not on the match's chain")
                del self.reports[seat]
                missing.append(seat)
        agreed = min([len(mine) - 1] + [r.rounds for r in self.reports.values()])
        # a party (this host, or a seat counted) with no ledger after 0 rounds: nothing to
        # continue, a fresh match, confirmed with the all-zero head (spec §7 step 5)
        fresh = agreed == 0 and (mine[0] == NO_HEAD or any(afresh(r.rounds, r.head) for r in self.reports.values()))
        table.carry = Carry(None, None, (), self.term) if fresh else carry_at(self.own.game, agreed, self.term)
        confirm = Election(term=self.term, host=self.me, head=NO_HEAD if fresh else mine[agreed], rounds=agreed)
        # what a player rejoining this table later is replayed before this host's own messages:
        # the match as this peer received it, and the confirmation every seat received
        table.prefix = list(getattr(self, "history", ())) + [confirm]
        self.confirm = confirm
        for p in table.peers:
            if not p.local and p.seat in self.reports:
                table.send(p, confirm)
        for p in self.observers:  # the scorekeepers that followed
            if not p.gone:
                table.send(p, confirm)
        keys = self.old_keys() if table.carry.continuation is not None else None
        for seat in missing:  # a seat that did not come back: away under its own key (a bot before any match)
            sitter = table.book.seats[seat]
            for p in [p for p in table.peers if p.seat == seat]:
                if not p.gone:  # (connected, its report not in: it comes back as a rejoin)
                    table.drop(p, "unexpected", "the election is over: play resumed without this seat's report")
            table.peers = [p for p in table.peers if p.seat != seat]
            table.book.stand(seat)
            if keys is not None:
                self._sit_away(table, seat, sitter.name, sitter.peer_id, keys[seat])
            else:
                table.bot_for(seat, sitter.name)
        if keys is None:  # a fresh match: the seats kept for old keys go to bots of this host
            table._bots_for_the_away()
        away = sorted(s.seat for s in table.book.seats if s is not None and s.kind == REMOTE_KIND and not s.connected)
        how = "starting the match afresh (no round was completed, and a seat or this host had not read round " \
              "1's set-up)" if fresh else f"resuming the match {after_rounds(agreed)}"
        table._emit("elected", f"{how} (term {self.term}); seats back: "
                               f"{seats_words(table.book.seats, sorted(self.reports))}; played by this host for "
                               f"{seats_words(table.book.seats, away)}",
                    rounds=agreed, term=self.term, port=table.port,
                    waited=trio.current_time() - (self.started_at or 0.0))
        done, self.on_done = self.on_done, None
        table.election = None
        table.state = "lobby"
        table._start_now = True
        done()


def _about(peer) -> tuple:
    """What a line about a scorekeeper's refusal is budgeted under: the address it came from."""
    return ("scorekeeper", peer.address.rsplit(":", 1)[0])


def host_lost(exc: BaseException, side: SeatSide) -> bool:
    """Did the session end because the host died mid-match (silent, or its link ended)?"""
    code = getattr(exc, "code", None)
    return code in ("timeout", "closed") and side.over is None and not side.closed and side.roster is not None \
        and side.game is not None


def decided(side: SeatSide) -> dict | None:
    """The match-over line when this seat's own record shows the match won (`SeatSide.decided`)."""
    return side.decided()


async def reach_elected(nxt, identity: Identity, *, name: str, role: str | None = None,
                        listen: int | None = None, limit: float = FOLLOW_LIMIT):
    """The link to the elected host ``nxt`` (a roster entry), retried up to ``limit`` s; a
    peer with another key at its address is refused loudly (a stale peer cannot claim the
    table).  ``role`` observer for a scorekeeper."""
    host, _, port = nxt.addr.rpartition(":")
    link = None
    with trio.move_on_after(limit):
        while link is None:
            try:
                link = await connect(host.strip("[]"), int(port), identity, name=name, role=role,
                                     timeouts=Timeouts(idle=20.0),
                                     hello_fields={"listen": listen} if listen else None)
            except ConnectFailed:
                await trio.sleep(0.1)
    if link is None:
        raise JoinFailed(f"the elected host {nxt.name} ({nxt.addr}) cannot be reached", code="timeout", cut_off=True)
    if link.peer_id != nxt.id:
        msg = (f"the peer at {nxt.addr} ({link.peer_name}) is not the elected host {nxt.name}: its key "
               f"{link.peer_id.hex()[:16]} is not the roster's {nxt.id.hex()[:16]}")
        try:
            await link.drop("fair-play", msg[:256])
        except LinkError:
            pass
        raise JoinFailed(msg, cheat=True, code="fair-play")
    return link


async def follow(nxt, side: SeatSide, identity: Identity, *, term: int, listen: int | None,
                 game_factory, limit: float = FOLLOW_LIMIT) -> tuple[Any, SeatSide]:
    """Connect to the elected host, check its key, report; the new link and seat side."""
    follower = Follower(side.game, term, nxt.id)
    link = await reach_elected(nxt, identity, name=side.name, role=side.role, listen=listen, limit=limit)
    new = side.like(link, identity, game_factory)
    new.history = MessageSpool(side.history)  # (an elected host replays it all to a player that rejoins)
    new.election = follower
    await link.send(follower.report())
    for m in side.handover():  # (a scorekeeper's ledger, for the new host to check)
        await link.send(m)
    return link, new


async def host_as_successor(side: SeatSide, identity: Identity, listeners, *, term: int, lost: bytes,
                            emit: Callable[[dict], None] | None, on_event=None,
                            discovery_port: int | None = None, operator=None, matches: int = 1) -> dict | None:
    """Become the host: the old table resumed on our listener; the match-over line.
    ``operator`` (a `_game.Operator`): a person plays our own seat (else a bot does).
    ``matches``: how many matches this peer still stays for, the one resumed included (its
    `join --matches`); a person at a screen goes on as long as it likes.  Each but the last
    is told on ``emit`` as a joiner's are (a ``match-over`` line)."""
    from unonet.engine import make_rules


    r = side.roster
    game = side.game
    rules = getattr(game, "rules", None) or make_rules(r.rules, list(r.house), teams=r.teams,
                                                        scoring=r.scoring, target=r.target)
    me = next(p for p in r.players if p.id == side.peer_id)
    screen = operator is not None and operator.feed is not None
    # the same table under its old name (the roster's; a joiner that typed an address has no beacon's)
    config = TableConfig(rules=rules, name=r.name or side.table_name or "unonet", host_name=me.name,
                         players=len(r.players),
                         teams=r.teams, preset=r.rules, house=tuple(r.house), target=r.target, scoring=r.scoring,
                         # a person at a screen may go on to another match here; else as asked
                         matches=None if screen else max(1, matches),
                         turn_timeout=r.clock / 1000 if r.clock else None,  # the same limit as before
                         autostart=side.bot,
                         # (a person at a screen starts the next match with a key; stdin has none)
                         start_next=not screen,
                         # bots are ready at once; a person (stdin, a screen) reads the result first
                         ready_timeout=10.0 if side.bot else TableConfig.ready_timeout,
                         # it announces the table like any host (where this peer listens: its
                         # --bind's interface, or all), so a player who lost it finds it again
                         announce=discovery_port is not None, bind=_listen_bind(listeners),
                         discovery_port=discovery_port or 0)
    def on_table_event(e) -> None:
        if e.kind == "ended" and emit is not None and table.matches_played < (config.matches or 0):
            emit({"t": "match-over", **e.data})  # (the last match's line is the caller's)
        if on_event is not None:
            on_event(e)

    table = HostTable(config, identity, game_factory=HostGame, on_event=on_table_event,
                      local_seat=run_local_seat(emit, operator))
    table.table_id = r.table
    table.reached_at = me.addr  # (where the followers come: the roster's, as the election line says)
    table.news_from = r  # our own seat's screen: what changed since the old host's roster
    table.listeners = listeners
    follower = Follower(game, term, side.peer_id)
    election = SuccessorTable(r, side.peer_id, lost, follower, term, on_done=lambda: None)
    election.history = list(side.history)
    table.election = election
    async def close_on_leave() -> None:
        await operator.leave.wait()
        table.close()  # the person quit: close the table as a host does (its last words sent)

    async with trio.open_nursery() as nursery:
        if operator is not None and operator.leave is not None:
            nursery.start_soon(close_on_leave)
        await table.run()
        nursery.cancel_scope.cancel()
    if election.yielded:
        raise Yielded(election.yielded)
    if election.alone:
        raise JoinFailed("the host is out of reach and no other player followed this seat's election (they "
                         "stay with the host, or are gone): not forming a second table", code="closed",
                         cut_off=True)
    return table.result


REJOIN_FIRST = 1.5     # before electing, the lost host is tried again this long (it may only be our link)


def elections_seen(side: SeatSide) -> int:
    """The elections of the match in play this side has seen (spec §7 step 2: the next one's
    `term` is one more): the new hosts' confirmations its history holds, followed live or read
    in a replay.  Not a count kept by this process: one that came back after an election
    (a rejoin) has seen it too, and an election in an earlier match is not this match's."""
    return side.history.types.get(Election.TYPE, 0)


class _HostTry:
    """One try at the lost host with our key: connect, check that the key that answers is the
    host's, take our seat back (an observer has none: the host replays the match to it).
    What `rejoin_lost_host` and `rejoin_between_matches` share; they differ in what a failure
    means.  ``back`` is ``(link, side)`` once the seat is back; else ``link`` (when one was
    made: the key that answered) and ``error`` tell why not."""

    def __init__(self, address: str, side: SeatSide, identity: Identity, *, listen: int | None,
                 game_factory, want: bytes | None, same_seat: bool) -> None:
        self.host, _, port = address.rpartition(":")
        self.port = int(port) if self.host and port.isdigit() else None
        self.address, self.side, self.identity = address, side, identity
        self.listen, self.game_factory, self.want, self.same_seat = listen, game_factory, want, same_seat
        self.link = self.back = self.error = None

    async def once(self, seat_limit: float) -> None:
        """Try (call it under a deadline: a host that never answers holds it)."""
        side = self.side
        self.link = self.back = self.error = None
        try:
            self.link = await connect(self.host.strip("[]"), self.port, self.identity, name=side.name,
                                      role=side.role, timeouts=Timeouts(idle=20.0),
                                      hello_fields={"listen": self.listen} if self.listen else None)
            if self.want is not None and self.link.peer_id != self.want:
                raise LinkError(f"the peer at {self.address} is not the host we lost")
            new = side.like(self.link, self.identity, self.game_factory)
            if not side.observer:
                await take_seat(self.link, new, seat_limit)
                if self.same_seat and new.seat != side.seat:
                    raise LinkError(f"the host gave us seat {new.seat}, not our seat {side.seat}")
            self.back = (self.link, new)
        except (LinkError, SeatProblem, JoinFailed) as exc:
            self.error = exc

    async def close(self) -> None:
        """A try that did not get the seat back: its link closed (briefly)."""
        if self.link is not None and self.back is None:
            with trio.move_on_after(0.5):
                await self.link.aclose()


async def rejoin_lost_host(address: str, side: SeatSide, identity: Identity, *, listen: int | None,
                           game_factory, limit: float = REJOIN_FIRST):
    """Our link to the host ended, or it went silent: it may be only our link (our network
    dropped, a half-dead connection).  Join it again with the same key before electing: a
    host that lives gives our seat back (spec §7 rejoin) and ``(link, side)`` is returned;
    None when it is gone (the connection refused: its process died; no answer within
    ``limit``: silent, its machine gone) -- the election follows.  A host that answers
    with its key but does not give the seat back lives: ``JoinFailed`` (no election, which
    would make a second table of one match)."""
    attempt = _HostTry(address, side, identity, listen=listen, game_factory=game_factory,
                       want=side.roster.host, same_seat=True)
    if attempt.port is None:
        return None
    with trio.move_on_after(limit):
        await attempt.once(limit)
    if attempt.back is not None:
        return attempt.back
    alive = attempt.link is not None and attempt.link.peer_id == side.roster.host
    await attempt.close()
    if alive:
        # the host's own key answered: it lives, and an election now would split the table
        # in two (issue 23); this seat's session ends instead
        why = attempt.error or "no seat in time"
        raise JoinFailed(f"the host at {address} lives (it answered with its key) but did not give our seat "
                         f"back ({why}); not electing a second table", code="closed")
    return None


OUTAGE_LIMIT = 30.0   # the lost host tried again this long once its successor could not be reached


async def rejoin_after_outage(address: str, side: SeatSide, identity: Identity, *, listen: int | None,
                              game_factory, limit: float = OUTAGE_LIMIT):
    """The successor could not be reached either: try the lost host again for ``limit`` s
    (it holds our seat; a rejoin takes it back at any time of the match).  ``(link, side)``
    or None (the host is gone too: the table is out of our reach)."""
    deadline = trio.current_time() + limit
    while trio.current_time() < deadline:
        back = await rejoin_lost_host(address, side, identity, listen=listen, game_factory=game_factory,
                                      limit=min(REJOIN_FIRST * 2, max(0.1, deadline - trio.current_time())))
        if back is not None:
            return back
        await trio.sleep(0.5)
    return None


async def rejoin_between_matches(address: str, side: SeatSide, identity: Identity, *, listen: int | None,
                                 game_factory, limit: float = OUTAGE_LIMIT):
    """Our link to the host ended between matches without its goodbye: most likely only our
    link (gap12: a laptop's network down 15 s after a match).  The host is tried again with
    the same key for ``limit`` s, as after an outage mid-match (`rejoin_after_outage`): it
    holds our seat (spec §7) and gives it back in its lobby or, the next match under way,
    as a rejoin.  ``((link, side), None)`` back in a seat; ``(None, refusal)`` when the host
    answered and refused us (its word is final: no more tries); ``(None, None)`` when it
    never answered within ``limit``, or its machine said nothing listens there (the host's
    process is gone: no 30 s of tries before "no next match")."""
    attempt = _HostTry(address, side, identity, listen=listen, game_factory=game_factory,
                       want=side.roster.host if side.roster is not None else side.host_seen, same_seat=False)
    if attempt.port is None:
        return None, None
    deadline = trio.current_time() + limit
    while trio.current_time() < deadline:
        with trio.move_on_at(min(deadline, trio.current_time() + REJOIN_FIRST * 2)):
            await attempt.once(REJOIN_FIRST * 2)
        if attempt.back is not None:
            return attempt.back, None
        if isinstance(attempt.error, PeerRefused):  # the host lives and said no: trying again changes nothing
            return None, str(attempt.error)
        if isinstance(attempt.error, ConnectFailed) and attempt.error.refused:
            return None, None  # its machine answered that nothing listens there: the host is gone
        await attempt.close()  # (no answer yet: our network may still be down)
        await trio.sleep(0.5)
    return None, None


async def _back_after_outage(exc: JoinFailed, address: str, side: SeatSide, identity: Identity, *,
                             listen: int | None, game_factory, emit) -> tuple:
    """An election that found nobody (``exc.cut_off``): ``(link, side)`` back at the lost
    host, which still holds our seat (the ``reconnected`` line said); else ``exc`` is raised."""
    back = await rejoin_after_outage(address, side, identity, listen=listen, game_factory=game_factory) \
        if exc.cut_off else None
    if back is None:
        raise exc
    if emit is not None:
        emit({"t": "reconnected", "why": str(exc)})
    return back


def _listen_bind(listeners) -> str | None:
    """The address a joiner's listeners are bound to (None: every interface)."""
    try:
        addr = listeners[0].socket.getsockname()[0]
    except (IndexError, AttributeError, OSError):
        return None
    return None if addr in ("0.0.0.0", "::") else addr


def _name_of(roster, pid: bytes, link) -> str:
    """A peer's name for the screen: the roster's, else (a dealer-only host holds no seat)
    the name its link's hello gave, else the start of its key."""
    name = next((p.name for p in roster.players if p.id == pid), None)
    if name is None and link is not None and link.peer_id == pid:
        name = link.peer_name
    return name or pid.hex()[:16]


def keeper_words(name: str) -> str:
    """``the scorekeeper's``, or ``scorekeeper Kim's`` (play13: the default name read
    "scorekeeper scorekeeper's ledger agrees ...")."""
    return "the scorekeeper's" if name.strip().lower() in ("", "scorekeeper") else f"scorekeeper {name}'s"


def seats_words(seats, numbers) -> str:
    """``2 (Jo), 3 (Ana)`` or ``none`` for the operator's lines (play13: "seats back: [2];
    played by this host for [0]", a Python list where the names were known)."""
    def one(n: int) -> str:
        sitter = seats[n] if 0 <= n < len(seats) else None
        return f"{n} ({sitter.name})" if sitter is not None and getattr(sitter, "name", "") else str(n)
    return ", ".join(one(n) for n in numbers) or "none"


def election_news(line: dict):
    """A screen's `feed.Election` from the ``election`` line `play_with_elections` emits
    (a player's screen and the scorekeeper's are told alike)."""
    return F.Election(line.get("lost_name") or "?", line.get("successor_name"), bool(line.get("me")),
                      int(line.get("term", 1)), line.get("successor_addr") or "")


class Yielded(Exception):
    """A claimant nobody followed gives way to the peers before it in the succession."""
    def __init__(self, candidates) -> None:
        super().__init__("yielded")
        self.candidates = candidates


async def play_with_elections(link, side: SeatSide, *, identity: Identity, listeners, play, game_factory,
                              emit: Callable[[dict], None] | None = None, on_event=None,
                              discovery_port: int | None = None, operator=None, matches: int = 1) -> dict | None:
    """Play the seat (``play(link, side) -> result``) through any number of host
    elections: the match-over line, or raises as `play_seat` does.  ``emit`` gets the
    ``election`` (and ``reconnected``) lines; ``operator`` (a `_game.Operator`): elected,
    a person plays our own seat through it (stdin, the screen), else a bot does.
    ``matches``: the matches the seat stays for (`play_seat`'s), kept elected too.

    The one loop for every side: a joiner's seat (a bot, JSON lines, the screen) and a
    scorekeeper's `ObserverSide` (``side.role`` observer: it rejoins or follows as an
    observer and hands its ledger over; it is never in the succession)."""
    listen = listener_port(listeners) if listeners else None
    while True:
        side.rejoin_between = not side.observer
        try:
            return await play(link, side)
        except JoinFailed as exc:
            if exc.between:  # lost between matches: back to the host for OUTAGE_LIMIT (spec §7)
                if emit is not None:
                    emit({"t": "link-lost", "why": str(exc),
                          "text": f"the link to the host was lost between matches ({exc}): trying it again "
                                  f"for {OUTAGE_LIMIT:g} s"})
                back, refused = await rejoin_between_matches(link.address, side, identity, listen=listen,
                                                             game_factory=game_factory)
                if back is None:
                    text = between_matches_end(exc) if refused is None else \
                        f"the host answered again but refused this seat ({refused}): no next match here"
                    if emit is not None:
                        emit({"t": "host-gone", "why": refused or str(exc), "text": text})
                    return side.last_over
                if emit is not None:
                    emit({"t": "reconnected", "why": str(exc)})
                link, side = back
                continue
            if not host_lost(exc, side) or not (listeners or side.observer):
                raise  # (a seat that cannot listen cannot be followed: it cannot host either)
            over = decided(side)
            if over is not None:
                # the last round is signed and the match won: nothing is left to continue
                # (an election would only replay a finished match): the result stands
                if emit is not None:
                    emit({"t": "host-gone", "why": str(exc), "text": "the host left after the match was won"})
                side.end_on_record(over)
                return over
            lost = side.roster.host
            why = str(exc)
        back = await rejoin_lost_host(link.address, side, identity, listen=listen, game_factory=game_factory)
        if back is not None:  # the host lives: only our link was lost, and our seat is back
            if emit is not None:
                emit({"t": "reconnected", "why": why})
            link, side = back
            continue
        term = elections_seen(side) + 1
        nxt = successor(side.roster, lost)
        if emit is not None:
            emit({"t": "election", "term": term, "lost": lost.hex(), "why": why,
                  "successor": nxt.id.hex() if nxt else None, "me": nxt is not None and nxt.id == side.peer_id,
                  "lost_name": _name_of(side.roster, lost, link), "successor_name": nxt.name if nxt else None,
                  "successor_addr": nxt.addr if nxt else None})
        if nxt is None:
            raise JoinFailed("the host is gone and no connected peer can take over the table", code="closed")
        if nxt.id == side.peer_id:
            try:
                return await host_as_successor(side, identity, listeners, term=term, lost=lost, emit=emit,
                                               on_event=on_event, discovery_port=discovery_port,
                                               operator=operator, matches=matches - side.matches_played)
            except JoinFailed as exc:
                # nobody followed us: they stay with the host, which our own network may
                # only have hidden from us - its seat for us is held: try it again
                link, side = await _back_after_outage(exc, link.address, side, identity, listen=listen,
                                                      game_factory=game_factory, emit=emit)
                continue
            except Yielded as y:
                link = None
                for cand in y.candidates:
                    with contextlib.suppress(JoinFailed):
                        # it still listens: the table it follows may elect it later (spec §7)
                        link, new = await follow(cand, side, identity, term=term, listen=listen,
                                                 game_factory=game_factory, limit=2.0)
                        break
                if link is None:
                    raise JoinFailed("nobody followed this peer's election and no earlier peer hosts: the table "
                                     "is gone", code="closed") from None
                side = new
                continue
        try:
            link, side = await follow(nxt, side, identity, term=term, listen=listen, game_factory=game_factory)
        except JoinFailed as exc:
            # nobody answers, the lost host nor its successor: most likely our own network
            # went (play10: a laptop's link down 15 s ended its client for good, "the elected
            # host Ana cannot be reached", while the host lived and held the seat)
            link, side = await _back_after_outage(exc, link.address, side, identity, listen=listen,
                                                  game_factory=game_factory, emit=emit)
