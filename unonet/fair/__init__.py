"""Fair play, level A: commit-reveal shuffle, card commitments, sealed openings, audit.

Pure and sans-IO: every function takes values (randomness included, as a
`randbytes` callable) and returns values and events. See docs/fair-play.md.
"""

from ._audit import AuditReport as AuditReport
from ._audit import audit as audit
from ._cards import KNOWN_DECKS as KNOWN_DECKS
from ._cards import Card as Card
from ._cards import classic_deck as classic_deck
from ._cards import face_colour as face_colour
from ._cards import is_wild_draw as is_wild_draw
from ._cards import wild_draw_four_legal as wild_draw_four_legal
from ._dealer import FairDealer as FairDealer
from ._errors import AuditFailure as AuditFailure
from ._errors import EventFormatError as EventFormatError
from ._errors import FairPlayViolation as FairPlayViolation
from ._errors import FairStateError as FairStateError
from ._errors import TranscriptFormatError as TranscriptFormatError
from ._events import Challenge as Challenge
from ._events import ChallengeDispute as ChallengeDispute
from ._events import ChallengeKey as ChallengeKey
from ._events import ChallengeResponse as ChallengeResponse
from ._events import ChallengeTimeout as ChallengeTimeout
from ._events import ChallengeVerdict as ChallengeVerdict
from ._events import VerdictTimeout as VerdictTimeout
from ._events import Commitments as Commitments
from ._events import Deal as Deal
from ._events import DealDispute as DealDispute
from ._events import DealKey as DealKey
from ._events import Event as Event
from ._events import Flip as Flip
from ._events import GameEvent as GameEvent
from ._events import Act as Act
from ._events import HostAct as HostAct
from ._events import MatchJoin as MatchJoin
from ._events import MatchStart as MatchStart
from ._events import PlayerCommit as PlayerCommit
from ._events import PlayerReveal as PlayerReveal
from ._events import Reveal as Reveal
from ._events import RoundAbort as RoundAbort
from ._events import RoundEnd as RoundEnd
from ._events import RoundSign as RoundSign
from ._events import RoundStart as RoundStart
from ._events import SeedCommit as SeedCommit
from ._events import SeedReveal as SeedReveal
from ._events import TurnUp as TurnUp
from ._identity import Identity as Identity
from ._seatsig import sign_seat_event as sign_seat_event
from ._identity import PublicIdentity as PublicIdentity
from ._identity import weak_sign_key as weak_sign_key
from ._ledger import Phase as Phase
from ._match import MatchLedger as MatchLedger
from ._ledger import RoundLedger as RoundLedger
from ._seal import SealError as SealError
from ._shuffle import Opening as Opening
from ._transcript import GENESIS as GENESIS
from ._transcript import TranscriptWriter as TranscriptWriter
from ._verifier import FairVerifier as FairVerifier


def _fixup_module_metadata() -> None:
    """Show the public path in reprs and tracebacks (trio's fixup_module_metadata)."""
    for name, obj in list(globals().items()):
        if not name.startswith("_") and getattr(obj, "__module__", "").startswith(__name__ + "._"):
            try:
                obj.__module__ = __name__
            except (AttributeError, TypeError):
                pass


_fixup_module_metadata()
del _fixup_module_metadata
