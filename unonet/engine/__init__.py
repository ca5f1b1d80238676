"""The rules engine: pure, deterministic given a seed, no IO.

The public face re-exports from the private modules. `COMPILED`: is the compiled engine
running (mypyc, built where a C compiler is: setup.py), or the pure Python one?
"""

from ._load import load as _load_engine

COMPILED: bool = _load_engine()

from ._actions import ActionError as ActionError
from ._actions import CallUno as CallUno
from ._actions import Catch as Catch
from ._actions import Challenge as Challenge
from ._actions import ChooseColor as ChooseColor
from ._actions import CloseRace as CloseRace
from ._actions import Respond as Respond
from ._actions import Draw as Draw
from ._actions import IllegalActionError as IllegalActionError
from ._actions import InvalidActionError as InvalidActionError
from ._actions import OutOfTurnError as OutOfTurnError
from ._actions import Pass as Pass
from ._actions import Play as Play
from ._actions import Swap as Swap
from ._bots import Bot as Bot
from ._bots import HeuristicBot as HeuristicBot
from ._bots import RandomBot as RandomBot
from ._bots import make_bot as make_bot
from ._bots import play_round as play_round
from ._cards import COLORS as COLORS
from ._cards import DARK_COLORS as DARK_COLORS
from ._cards import UNKNOWN as UNKNOWN
from ._cards import AnyCard as AnyCard
from ._cards import Card as Card
from ._cards import CardPool as CardPool
from ._cards import InvalidCardError as InvalidCardError
from ._cards import deck_cards as deck_cards
from ._cards import parse_card as parse_card
from ._cards import parse_color as parse_color
from ._events import Event as Event
from ._match import Match as Match
from ._match import RoundRecord as RoundRecord
from ._match import choose_dealer as choose_dealer
from ._match import classic_draw_values as classic_draw_values
from ._match import highest_draw as highest_draw
from ._round import Outcome as Outcome
from ._round import Phase as Phase
from ._round import Round as Round
from ._round import Termination as Termination
from ._rules import HOUSE_RULES as HOUSE_RULES
from ._rules import PRESETS as PRESETS
from ._rules import RuleSet as RuleSet
from ._rules import RulesError as RulesError
from ._rules import find_preset as find_preset
from ._rules import make_rules as make_rules
from ._narrate import narrate as narrate
from ._scenario import ScenarioError as ScenarioError
from ._scenario import run_scenario as run_scenario
