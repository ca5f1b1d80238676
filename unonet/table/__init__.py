"""The fair table: the rules engine and the fair-play layer bridged, sans IO.

`FairRound` is an engine Round whose deck is the fair dealer's committed shuffle;
`TableHost` drives it with a FairDealer and in-memory `TableSeat`s (FairVerifiers);
`GameAuditor` replays the engine over a transcript's public record for `unonet audit`.
See docs/fair-play.md, "The engine bridge".
"""

from ._host import TableHost as TableHost
from ._host import TableSeat as TableSeat
from ._host import make_table as make_table
from ._replay import GameAuditor as GameAuditor
from ._replay import ReplayBackend as ReplayBackend
from ._replay import audit_transcript as audit_transcript
from ._round import Backend as Backend
from ._round import TABLE_DECKS as TABLE_DECKS
from ._round import FairRound as FairRound
