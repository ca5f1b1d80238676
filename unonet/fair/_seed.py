"""Round seeds by commit-reveal: nobody, host included, can choose the deck order.

The host commits to r_h before any player speaks; players commit to r_i before
any player reveals, so a player colluding with the host cannot pick r_i after
seeing the others'. r_h stays secret until round end because it also keys the
per-position salts.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._encoding import hmac_sha256, lp, round_context, sha256, tag, u32

SECRET_LEN = 32


def _check_secret(r: bytes, what: str) -> None:
    if not isinstance(r, bytes) or len(r) != SECRET_LEN:
        raise ValueError(f"{what} must be {SECRET_LEN} bytes")


def epoch_secret(secret: bytes, epoch: int) -> bytes:
    """The secret a party brings to epoch `epoch` of a round: its round secret itself for
    epoch 0, else HMAC(secret, epoch). One seed exchange per round (before the first
    deck) then keys every later epoch (reshuffles, moved hands): the host commits to r_h
    before any r_i, so it can deal a new epoch at once without choosing its order."""
    _check_secret(secret, "a round secret")
    return secret if epoch == 0 else hmac_sha256(secret, tag("epoch-secret"), u32(epoch))


def host_seed_commit(table: bytes, round_no: int, epoch: int, host_secret: bytes) -> bytes:
    _check_secret(host_secret, "r_h")
    return sha256(tag("host-seed-commit"), round_context(table, round_no), u32(epoch), lp(host_secret))


def player_seed_commit(table: bytes, round_no: int, epoch: int, seat: int, secret: bytes) -> bytes:
    _check_secret(secret, "r_i")
    return sha256(tag("player-seed-commit"), round_context(table, round_no), u32(epoch), u32(seat), lp(secret))


def player_commit_message(
    table: bytes, round_no: int, epoch: int, seat: int, host_commit: bytes, commit: bytes, context: bytes = b""
) -> bytes:
    """What a player signs: its commitment, bound to the host's (seen first) and to the
    round's context digest (its start, its whole set-up and the host's commitment)."""
    return (
        tag("player-commit-signature")
        + round_context(table, round_no)
        + u32(epoch)
        + u32(seat)
        + lp(host_commit)
        + lp(commit)
        + lp(context)
    )


def derive_seed(
    table: bytes, round_no: int, epoch: int, host_secret: bytes, contributions: Sequence[tuple[int, bytes]]
) -> bytes:
    """seed = SHA-256(tag || table || round || epoch || r_h || n || (seat, r_i)... ) in seat order."""
    _check_secret(host_secret, "r_h")
    parts = [tag("seed"), round_context(table, round_no), u32(epoch), lp(host_secret), u32(len(contributions))]
    for seat, r in sorted(contributions):
        _check_secret(r, f"r_{seat}")
        parts += [u32(seat), lp(r)]
    return sha256(*parts)


def contributions_digest(contributions: Sequence[tuple[int, bytes, bytes]]) -> bytes:
    """Digest of (seat, commit, reveal) for the host's commitment-list signature."""
    parts = [tag("contributions"), u32(len(contributions))]
    for seat, commit, r in sorted(contributions):
        parts += [u32(seat), lp(commit), lp(r)]
    return sha256(*parts)


def seat_secret_from_key(sign, table: bytes, round_no: int, attempt: int, epoch: int) -> bytes:
    """A seat's round secret r_i derived from its own signing key (``sign``: its Ed25519
    sign function; Ed25519 signatures are deterministic): nobody without the key can predict
    it, and the seat finds the same one again after a crash, so it can reveal what it
    committed before it died (a rejoin, spec §7).  One per round attempt and epoch."""
    msg = tag("seat-secret") + round_context(table, round_no) + u32(attempt) + u32(epoch)
    return sha256(tag("seat-secret"), lp(sign(msg)))


def challenge_secret_from_key(sign, table: bytes, round_no: int, start_digest: bytes, challenge_no: int) -> bytes:
    """The ephemeral X25519 key a challenged seat seals its answer under, derived from its
    own signing key (as `seat_secret_from_key`): a seat rebuilt from the host's replay after
    answering finds it again and can still disclose it if the challenger disputes the answer
    (else a false dispute ends in a timeout: guilty).  One per round (its context digest
    `start_digest`) and challenge; the same answer sealed twice under it is the same blob."""
    msg = tag("challenge-secret") + round_context(table, round_no) + lp(start_digest) + u32(challenge_no)
    return sha256(tag("challenge-secret"), lp(sign(msg)))
