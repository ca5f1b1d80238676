"""unonet's network shell (trio): secure links, serving, discovery.

The sans-IO protocol (``unonet.protocol``) decides what bytes mean; this
package moves them over TCP and UDP with structured concurrency.  Every wait is
under a timeout; every failure is a ``LinkError`` with a one-line message.
"""

from ._errors import LinkError as LinkError
from ._errors import BindFailed as BindFailed
from ._errors import ConnectFailed as ConnectFailed
from ._errors import LinkClosed as LinkClosed
from ._errors import LinkTimeout as LinkTimeout
from ._errors import PeerViolation as PeerViolation
from ._errors import PeerRefused as PeerRefused
from ._errors import Untrusted as Untrusted
from ._trust import accept_any as accept_any
from ._trust import require_join_code as require_join_code
from ._trust import pin_key as pin_key
from ._trust import pin_hello_name as pin_hello_name
from ._link import Link as Link
from ._link import Timeouts as Timeouts
from ._link import open_link as open_link
from ._link import connect as connect
from ._link import peer_address as peer_address
from ._serve import serve as serve
from ._serve import open_listeners as open_listeners
from ._serve import listener_port as listener_port
from ._discovery import DISCOVERY_PORT as DISCOVERY_PORT
from ._discovery import Interface as Interface
from ._discovery import interfaces as interfaces
from ._discovery import broadcast_targets as broadcast_targets
from ._discovery import announce as announce
from ._discovery import discover as discover
from ._discovery import FoundTable as FoundTable
from ._discovery import fingerprint_code as fingerprint_code


from .._exports import fixup_module_metadata as _fixup

_fixup(globals(), __name__)
del _fixup
