"""Small result objects: attribute access plus ``to_dict()``."""


class Result:
    """A result with named fields, readable as attributes or as a dict.

    >>> r = Result(epsilon=1.5, alpha=None)
    >>> r.epsilon
    1.5
    >>> r.to_dict()
    {'epsilon': 1.5, 'alpha': None}
    """

    __slots__ = ("_fields",)

    def __init__(self, fields=None, **kwargs):
        d = dict(fields or {})
        d.update(kwargs)
        object.__setattr__(self, "_fields", d)

    def __getattr__(self, name):
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        raise AttributeError("results are read-only")

    def __getitem__(self, key):
        return self._fields[key]

    def __eq__(self, other):
        return isinstance(other, Result) and self._fields == other._fields

    def __dir__(self):
        return list(self._fields) + ["to_dict"]

    def to_dict(self):
        """The fields as a new dict (the CLI's ``--json`` keys)."""
        return dict(self._fields)

    def __repr__(self):
        inner = ", ".join(f"{k}={v!r}" for k, v in self._fields.items())
        return f"{type(self).__name__}({inner})"
