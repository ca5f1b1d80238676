"""Who broke the rules, where, and how.

Split the h11 way: `FairPlayViolation` blames another party (the host or a
seat) for evidence that does not verify; `FairStateError` means *we* called
the API out of order. Auditing adds the transcript line.
"""

from __future__ import annotations


class FairPlayViolation(Exception):
    """Evidence from another party failed to verify.

    `seat` is the seat to blame, or None when the host (dealer) is to blame.
    `position` is the deck position involved, if any; `line` the transcript
    line (1-based) carrying the false claim, when known. `relayed`: a seat's message the
    host passed on failed (the host is blamed because it relayed it: live, its link proves
    that; in a file, only a later host signature over that line does).
    """

    relayed = False
    #: the host is blamed on evidence its own signature carries (a `commitments` list it signed
    #: that the seed it revealed contradicts, ...): a file proves that without a later host
    #: signature over the line; any other host-blamed failure in a file needs one (`unonet audit`)
    signed = False
    plain = ""  # (relayed: what failed, told without naming who)

    def __init__(
        self,
        reason: str,
        *,
        seat: int | None = None,
        position: int | None = None,
        line: int | None = None,
    ) -> None:
        self.reason = reason
        self.seat = seat
        self.position = position
        self.line = line
        super().__init__(self._text())

    @property
    def party(self) -> str:
        return "host" if self.seat is None else f"seat {self.seat}"

    def _text(self) -> str:
        where = f"line {self.line}: " if self.line is not None else ""
        return f"{where}{self.reason}"

    def with_line(self, line: int) -> "FairPlayViolation":
        """A copy pinned to a transcript line (keeps an earlier pin)."""
        cls = type(self) if isinstance(self, AuditFailure) else AuditFailure
        return cls(
            self.reason,
            seat=self.seat,
            position=self.position,
            line=self.line if self.line is not None else line,
        )


class AuditFailure(FairPlayViolation):
    """A transcript failed the offline audit at `line`."""


class FairStateError(RuntimeError):
    """The local caller asked for something the round's state does not allow."""


class EventFormatError(ValueError):
    """An event or transcript line does not have the expected shape."""


class TranscriptFormatError(ValueError):
    """The transcript file itself is unreadable (not JSON Lines)."""

    def __init__(self, reason: str, *, line: int | None = None) -> None:
        self.reason = reason
        self.line = line
        super().__init__(f"line {line}: {reason}" if line is not None else reason)
