"""unonet's wire: message schemas, msgpack codec, framing and Noise links.

Pure and sans-IO (the h11 pattern): everything here turns values into bytes and
bytes into values; ``unonet.net`` owns the sockets.  The only IO is the identity
key store in the user's config directory.
"""

from ._errors import LocalProtocolError as LocalProtocolError
from ._errors import ProtocolError as ProtocolError
from ._errors import RemoteProtocolError as RemoteProtocolError
from ._noise import NOISE_PROTOCOL as NOISE_PROTOCOL
from ._noise import CipherState as CipherState
from ._noise import HandshakeState as HandshakeState
from ._noise import KeyPair as KeyPair
