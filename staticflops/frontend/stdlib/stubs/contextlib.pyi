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


class ExitStack(AbstractContextManager):
    """Enters context managers one by one; leaving it leaves them, the last entered first."""

    def __init__(self):
        self._exits = []

    def enter_context(self, cm):
        enter = getattr(cm, "__enter__", None)
        if enter is None:  # torch.no_grad() and the like are modelled as nothing to enter
            return None
        result = enter()
        self._exits.append(cm.__exit__)
        return result

    def push(self, exit):
        self._exits.append(exit)
        return exit

    def callback(self, callback, *args, **kwds):
        def _exit_wrapper(exc_type, exc, tb):
            callback(*args, **kwds)
        self._exits.append(_exit_wrapper)
        return callback

    def pop_all(self):
        new_stack = ExitStack()
        new_stack._exits = self._exits
        self._exits = []
        return new_stack

    def close(self):
        self.__exit__(None, None, None)

    def __exit__(self, exc_type, exc_value, traceback):
        suppressed = False
        while self._exits:
            if self._exits.pop()(exc_type, exc_value, traceback):
                suppressed = True
                exc_type = exc_value = traceback = None
        return suppressed
