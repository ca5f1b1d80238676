"""The scorekeeper's database: matches and their hash-chained rounds in SQLite.

The IO shell around `unonet.ledger`: `ScoreStore` opens a file safely (refusing, with one
line and the file untouched, one that is not ours, locked, corrupted or newer), migrates
its schema and records rounds each in one transaction; the views read it; `verify`
re-checks every row against the chain and the rules engine.  docs/scorekeeper.md.
"""

from ._errors import DatabaseCorrupt as DatabaseCorrupt
from ._errors import DatabaseLocked as DatabaseLocked
from ._errors import MissingDatabase as MissingDatabase
from ._errors import NewerSchema as NewerSchema
from ._errors import NotOurDatabase as NotOurDatabase
from ._errors import RecordRefused as RecordRefused
from ._errors import RoundConflict as RoundConflict
from ._errors import StoreError as StoreError
from ._errors import UnknownMatch as UnknownMatch
from ._schema import APPLICATION_ID as APPLICATION_ID
from ._schema import MIGRATIONS as MIGRATIONS
from ._schema import SCHEMA_VERSION as SCHEMA_VERSION
from ._store import ScoreStore as ScoreStore
from ._store import default_db_path as default_db_path
from ._verify import VerifyReport as VerifyReport
from ._verify import verify as verify
from ._views import MatchView as MatchView
from ._views import RoundLine as RoundLine
from ._views import Standing as Standing
from ._views import LeftOut as LeftOut
from ._views import checked_standings as checked_standings
from ._views import export_csv as export_csv
from ._views import history as history
from ._views import match_view as match_view
from ._views import standings as standings
from ._board import Board as Board
from ._board import board as board
from ._board import board_from as board_from
