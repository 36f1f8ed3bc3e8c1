from . import kernel as kernel, privacy as privacy, smooth as smooth, verify as verify
from ._qrenyi import (
    Pair as Pair,
    QrenyiError as QrenyiError,
    State as State,
    __version__ as __version__,
    backends as backends,
    divergence as divergence,
    kinds as kinds,
    validate as validate,
)
