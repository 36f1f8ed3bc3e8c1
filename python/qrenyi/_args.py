"""Argument checks of the pure-Python wrappers: a wrong type is a QrenyiError, as in the binding."""
import os

from . import _qrenyi


def fspath(what, p):
    """``os.fspath(p)`` (a str or an ``os.PathLike``); anything else is a QrenyiError."""
    try:
        p = os.fspath(p)
    except TypeError:
        raise _qrenyi.QrenyiError(
            f"cannot parse {what}: expected a path (a str or os.PathLike), got {p!r} "
            f"(of type {type(p).__name__})"
        ) from None
    if isinstance(p, bytes):
        try:
            return os.fsdecode(p)
        except UnicodeDecodeError:
            raise _qrenyi.QrenyiError(f"cannot parse {what}: {p!r} is not a valid path") from None
    return p


def listed(what, x):
    """``list(x)`` of an iterable that is not a string; a number, None or a string is a
    QrenyiError (the binding then checks the items)."""
    if isinstance(x, (str, bytes, dict)):
        raise _qrenyi.QrenyiError(
            f"cannot parse {what}: expected a sequence, got {x!r} (of type {type(x).__name__})"
        )
    try:
        return list(x)
    except TypeError:
        raise _qrenyi.QrenyiError(
            f"cannot parse {what}: expected a sequence, got {x!r} "
            f"(of type {type(x).__name__})"
        ) from None


def is_median(bandwidth):
    """Whether ``bandwidth`` is the string "median" (never compares an array with ``==``)."""
    return isinstance(bandwidth, str) and bandwidth == "median"
