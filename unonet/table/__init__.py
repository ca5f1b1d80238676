"""The fair table: the rules engine and the fair-play layer bridged, sans IO.

`FairRound` holds an engine Round's deck as the fair dealer's committed shuffle (its hooks;
`fair_of(rnd)`);
`TableHost` (message-driven: `start_round`, `receive`, `owed`, `timeout`) runs it with a
FairDealer; `TableSeat` checks every public event for a player or an observer and signs
what its seat says; `LocalTable` wires them in memory (simulate, tests, benchmarks);
`GameAuditor` replays the engine over a transcript's public record for `unonet audit`.
See docs/fair-play.md, "The engine bridge" and "Sans-IO table".
"""

from ._driver import DrivenRound as DrivenRound
from ._driver import LocalTable as LocalTable
from ._driver import make_table as make_table
from ._host import Owed as Owed
from ._host import Refusal as Refusal
from ._host import TableHost as TableHost
from ._host import TableSeat as TableSeat
from ._replay import GameAuditor as GameAuditor
from ._replay import Replay as Replay
from ._replay import audit_transcript as audit_transcript
from ._round import Backend as Backend
from ._round import TABLE_DECKS as TABLE_DECKS
from ._round import FairRound as FairRound
from ._round import fair_of as fair_of
from ._handover import Continuation as Continuation
from ._handover import cosigned_rounds as cosigned_rounds
from ._handover import holds_cosign as holds_cosign
