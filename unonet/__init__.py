"""unonet: UNO played for real across a LAN."""

__version__ = "0.1.0"
