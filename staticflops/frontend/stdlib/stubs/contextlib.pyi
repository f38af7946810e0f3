# The parts of `contextlib` whose behaviour the analysis needs, written as Python and run by
# our interpreter (never by Python) on first use of `contextlib`.  `contextmanager` is left out:
# our generators run to the end when called, so a `@contextmanager` function stays as written.


class AbstractContextManager:
    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        return None


class ContextDecorator:
    """A context manager usable as a decorator: the function runs inside `with self`."""

    def _recreate_cm(self):
        return self

    def __call__(self, func):
        def inner(*args, **kwds):
            with self._recreate_cm():
                return func(*args, **kwds)
        inner.__wrapped__ = func
        return inner


class suppress(AbstractContextManager):
    """Swallows the listed exceptions (and their subclasses) raised in its body."""

    def __init__(self, *exceptions):
        self._exceptions = exceptions

    def __enter__(self):
        return None

    def __exit__(self, exc_type, exc_value, traceback):
        return exc_type is not None and issubclass(exc_type, self._exceptions)


class nullcontext(AbstractContextManager):
    def __init__(self, enter_result=None):
        self.enter_result = enter_result

    def __enter__(self):
        return self.enter_result

    def __exit__(self, *excinfo):
        return None
