"""The feed values, re-exported from `unonet.feed` (where they live, below `net/` and `tui/`,
so that a LAN seat builds the same feed as the local table)."""

from ..feed import Election as Election
from ..feed import Lobby as Lobby
from ..feed import LobbySeat as LobbySeat
from ..feed import MatchOver as MatchOver
from ..feed import Notice as Notice
from ..feed import Ready as Ready
from ..feed import Refused as Refused
from ..feed import Resumed as Resumed
from ..feed import Resync as Resync
from ..feed import RoundScored as RoundScored
from ..feed import RoundStarted as RoundStarted
from ..feed import Start as Start
from ..feed import TableInfo as TableInfo
from ..feed import TableProblem as TableProblem
from ..feed import TurnState as TurnState
from ..feed import match_over as match_over
from ..feed import note_uno as note_uno
from ..feed import round_scored as round_scored
from ..feed import turn_state as turn_state
