"""The host's seat book: who sits where, and the `roster` every peer agrees on.

Plain values, no IO, so the lobby's rules are tested without a socket: joiners take
the lowest free seat (with ``--teams`` the seats alternate teams, even seats team 0,
odd seats team 1, so partners sit opposite); seats reserved for bots (``--bots K``)
are the highest ones; the host's own seat, when it plays, is seat 0.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

from unonet.names import stand_in_name
from unonet.protocol import PlayerEntry, Roster

__all__ = ["Sitter", "SeatBook", "TableFull", "HOST_KIND", "BOT_KIND", "REMOTE_KIND"]

HOST_KIND, BOT_KIND, REMOTE_KIND = "host", "bot", "remote"


class TableFull(Exception):
    """No free seat; ``str()`` is the line the joiner is told."""


@dataclasses.dataclass
class Sitter:
    """Who holds a seat: the host's own player, a bot of the host, or a remote peer.

    ``identity`` is the seat's fair ``PublicIdentity`` (signing and seal keys from its
    hello); ``peer_id`` its 32-byte fingerprint; ``key`` its Noise static key."""

    seat: int
    name: str
    kind: str
    peer_id: bytes
    identity: object
    key: bytes = b""
    connected: bool = True
    addr: str = ""
    dropped_at: float | None = None   # (trio clock) when its link ended in the middle of a match
    stalls: int = 0                   # seed exchanges this seat's connected player let time out (this match)
    left: bool = False                # its player said goodbye (`leave`) in a match: not a lost link
    was_bot: bool = False             # a lost host's bot, seated away at its elected successor (its key
                                      # kept, played by stand-ins): a bot's seat in every roster
    away_ok: bool = False             # its player's client announced `away-start` (spec §4.4): a fresh
                                      # match may start with this seat away under its key

    @property
    def bot(self) -> bool:
        return self.kind == BOT_KIND


class SeatBook:
    """``players`` seats; ``reserved`` of the highest are kept for the host's bots."""

    def __init__(self, players: int, *, teams: bool = False, reserved: int = 0) -> None:
        if not 2 <= players <= 10:
            raise ValueError(f"a table seats 2..10 players, not {players}")
        if teams and (players < 4 or players % 2):
            raise ValueError(f"--teams needs an even number of players, 4 or more (not {players})")
        if not 0 <= reserved <= players:
            raise ValueError(f"--bots {reserved}: the table has only {players} seats")
        self.players = players
        self.teams = teams
        self.reserved = reserved
        self.seats: list[Sitter | None] = [None] * players
        self.epoch = 0

    # -- queries ----------------------------------------------------------------
    def team(self, seat: int) -> int | None:
        return seat % 2 if self.teams else None

    @property
    def taken(self) -> int:
        return sum(s is not None for s in self.seats)

    @property
    def full(self) -> bool:
        return all(s is not None for s in self.seats)

    def free_for_people(self) -> list[int]:
        return [i for i in range(self.players - self.reserved) if self.seats[i] is None]

    def bot_giving_way(self, name: str, kept: frozenset[str] = frozenset()) -> Sitter | None:
        """The bot that leaves for a person finding no free seat: one sitting where a person
        may sit (never a reserved seat), the one standing in under the person's name first
        ("Hal (bot)" for Hal), else the lowest.  A bot standing in for a player in ``kept`` (one
        the host knows with another key than the newcomer's) keeps that player's seat: never
        taken by that name, and last."""
        bots = [s for s in self.seats[:self.players - self.reserved] if s is not None and s.bot]
        if name not in kept:
            own = next((s for s in bots if s.name == stand_in_name(name)), None)
            if own is not None:
                return own
        held = {stand_in_name(k) for k in kept}
        return min(bots, key=lambda s: s.name in held, default=None)  # (the lowest of the first kind)

    def of_peer(self, peer_id: bytes) -> Sitter | None:
        for s in self.seats:
            if s is not None and s.peer_id == peer_id:
                return s
        return None

    # -- changes (each bumps the roster epoch) -----------------------------------
    def sit(self, sitter_at: callable, *, seat: int | None = None) -> Sitter:
        """Seat someone: at ``seat`` or the lowest free seat a person may take.
        ``sitter_at(seat) -> Sitter``. Raises TableFull."""
        if seat is None:
            free = self.free_for_people()
            if not free:
                raise TableFull(f"all {self.players} seats are taken")
            seat = free[0]
        elif self.seats[seat] is not None:
            raise TableFull(f"seat {seat} is taken")
        s = sitter_at(seat)
        self.seats[seat] = s
        self.epoch += 1
        return s

    def stand(self, seat: int) -> None:
        self.seats[seat] = None
        self.epoch += 1

    def touch(self) -> None:
        self.epoch += 1

    def empty(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s is None]

    # -- the wire ----------------------------------------------------------------
    def roster(self, *, table: bytes, host: bytes, rules: str, house: Sequence[str], target: int,
               scoring: str, name: str = "", clock: float | None = None) -> Roster:
        players = tuple(
            PlayerEntry(seat=s.seat, id=s.peer_id, name=s.name, team=self.team(s.seat), addr=s.addr[:64],
                        connected=s.connected, bot=s.bot or s.was_bot, left=s.left and not s.connected)
            for s in self.seats if s is not None)
        succession = tuple(s.peer_id for s in self.seats if s is not None and not s.bot)
        return Roster(table=table, epoch=self.epoch, host=host, players=players, succession=succession,
                      rules=rules, house=tuple(house)[:32], target=target, teams=self.teams,
                      scoring=scoring, name=name[:32], clock=int(round((clock or 0) * 1000)),
                      seats=self.players)
