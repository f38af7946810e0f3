# `contextvars`, written as Python and run by our interpreter (never by Python) on first use.
# The analysis runs one thread in one context, so a context variable is a value with a history:
# `set` returns a token that `reset` uses to restore the value before it (transformers'
# output capturing keeps its collector in one).

_NO_DEFAULT = object()


class Token:
    MISSING = _NO_DEFAULT

    def __init__(self, var, old_value):
        self.var = var
        self.old_value = old_value


class ContextVar:
    def __init__(self, name, *, default=_NO_DEFAULT):
        self.name = name
        self._default = default
        self._value = _NO_DEFAULT

    def get(self, *default):
        if self._value is not _NO_DEFAULT:
            return self._value
        if default:
            return default[0]
        if self._default is not _NO_DEFAULT:
            return self._default
        raise LookupError(self.name)

    def set(self, value):
        token = Token(self, self._value)
        self._value = value
        return token

    def reset(self, token):
        self._value = token.old_value


def copy_context():
    return None
