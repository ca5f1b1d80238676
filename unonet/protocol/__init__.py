"""unonet's wire: message schemas, msgpack codec, framing and Noise links.

Pure and sans-IO (the h11 pattern): everything here turns values into bytes and
bytes into values; ``unonet.net`` owns the sockets.  The only IO is the identity
key store in the user's config directory (``UNONET_HOME`` overrides it).
"""

from ._errors import ProtocolError as ProtocolError
from ._errors import LocalProtocolError as LocalProtocolError
from ._errors import RemoteProtocolError as RemoteProtocolError
from ._schema import Message as Message
from ._schema import Record as Record
from ._schema import is_card_code as is_card_code
from ._schema import MESSAGE_TYPES as MESSAGE_TYPES
from ._schema import HOST as HOST
from ._schema import PLAYER as PLAYER
from ._schema import OBSERVER as OBSERVER
from ._schema import ROLES as ROLES
from ._schema import LINK as LINK
from ._schema import DATAGRAM as DATAGRAM
from ._messages import PROTOCOL_VERSION as PROTOCOL_VERSION
from ._messages import MIN_PROTOCOL_VERSION as MIN_PROTOCOL_VERSION
from ._messages import AWAY_START as AWAY_START
from ._messages import TURN_LEFT as TURN_LEFT
from ._messages import WORD_LEFT as WORD_LEFT
from ._messages import FEATURES as FEATURES
from ._messages import MAX_SEATS as MAX_SEATS
from ._messages import MAX_POSITIONS as MAX_POSITIONS
from ._messages import MAX_HAND as MAX_HAND
from ._messages import MAX_SEALED as MAX_SEALED
from ._messages import PlayerEntry as PlayerEntry
from ._messages import ObserverEntry as ObserverEntry
from ._messages import SeatPoints as SeatPoints
from ._messages import LedgerEntry as LedgerEntry
from ._messages import Beacon as Beacon
from ._messages import Probe as Probe
from ._messages import Hello as Hello
from ._messages import SeatAssignment as SeatAssignment
from ._messages import Roster as Roster
from ._messages import Leave as Leave
from ._messages import Ready as Ready
from ._messages import MatchOver as MatchOver
from ._messages import MAX_BEACON_HOUSE as MAX_BEACON_HOUSE
from ._messages import MAX_LEDGER_ENTRIES as MAX_LEDGER_ENTRIES
from ._messages import Heartbeat as Heartbeat
from ._messages import ErrorReport as ErrorReport
from ._messages import Turn as Turn
from ._messages import Fair as Fair
from ._messages import PLAYER_FAIR_EVENTS as PLAYER_FAIR_EVENTS
from ._messages import check_fair_event as check_fair_event
from ._messages import RoundEnd as RoundEnd
from ._messages import Ledger as Ledger
from ._messages import Election as Election
from ._messages import Rejoin as Rejoin
from ._codec import encode_message as encode_message
from ._codec import encode_plaintext as encode_plaintext
from ._codec import decode_plaintext as decode_plaintext
from ._codec import decode_plaintext_kept as decode_plaintext_kept
from ._codec import pad_length as pad_length
from ._codec import PAD_BLOCK as PAD_BLOCK
from ._codec import MAX_MESSAGE as MAX_MESSAGE
from ._codec import decode_message as decode_message
from ._codec import encode_datagram as encode_datagram
from ._codec import decode_datagram as decode_datagram
from ._codec import MAX_PLAINTEXT as MAX_PLAINTEXT
from ._codec import message_to_json as message_to_json
from ._codec import message_from_json as message_from_json
from ._codec import MAX_DATAGRAM as MAX_DATAGRAM
from ._framing import FrameReader as FrameReader
from ._framing import encode_frame as encode_frame
from ._framing import NEED_DATA as NEED_DATA
from ._framing import CLOSED as CLOSED
from ._framing import MAX_FRAME as MAX_FRAME
from ._noise import NOISE_PROTOCOL as NOISE_PROTOCOL
from ._noise import CipherState as CipherState
from ._noise import HandshakeState as HandshakeState
from ._noise import KeyPair as KeyPair
from ._identity import Identity as Identity
from ._identity import TrustError as TrustError
from ._identity import IdentityError as IdentityError
from ._identity import PeerKeyChangedError as PeerKeyChangedError
from ._identity import JoinCodeMismatchError as JoinCodeMismatchError
from ._identity import InvalidJoinCodeError as InvalidJoinCodeError
from ._identity import KnownPeers as KnownPeers
from ._identity import config_dir as config_dir
from ._identity import load_or_create_identity as load_or_create_identity
from ._identity import fingerprint as fingerprint
from ._identity import short_fingerprint as short_fingerprint
from ._identity import join_code as join_code
from ._identity import check_join_code as check_join_code
from ._identity import normalize_join_code as normalize_join_code
from ._identity import hello_binding as hello_binding
from ._identity import verify_signature as verify_signature
from ._link import SecureLink as SecureLink
from ._link import HandshakeComplete as HandshakeComplete
from ._link import HANDSHAKE as HANDSHAKE
from ._link import AWAIT_PEER as AWAIT_PEER
from ._link import PeerKey as PeerKey
from ._link import OPEN as OPEN
from ._link import ERROR as ERROR
from ._link import PROLOGUE as PROLOGUE
from ._link import negotiate_version as negotiate_version
from ._link import may_send as may_send

from .._exports import fixup_module_metadata as _fixup

_fixup(globals(), __name__)
del _fixup
