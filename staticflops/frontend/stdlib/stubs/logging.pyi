# The `logging` module as a clean process has it: loggers that accept every call and print
# nothing, no handlers installed, the root logger at WARNING.  Run by our interpreter (never
# by Python) on first use of `logging`.

CRITICAL = 50
FATAL = CRITICAL
ERROR = 40
WARNING = 30
WARN = WARNING
INFO = 20
DEBUG = 10
NOTSET = 0

_NAMES = {CRITICAL: "CRITICAL", ERROR: "ERROR", WARNING: "WARNING", INFO: "INFO", DEBUG: "DEBUG", NOTSET: "NOTSET"}


def getLevelName(level):
    if level in _NAMES:
        return _NAMES[level]
    for value, name in _NAMES.items():
        if name == level:
            return value
    return "Level %s" % level


class Filter:
    def __init__(self, name=""):
        self.name = name

    def filter(self, record):
        return True


class Filterer:
    def __init__(self):
        self.filters = []

    def addFilter(self, filter):
        if filter not in self.filters:
            self.filters.append(filter)

    def removeFilter(self, filter):
        if filter in self.filters:
            self.filters.remove(filter)

    def filter(self, record):
        return True


class Formatter:
    def __init__(self, fmt=None, datefmt=None, style="%", *args, **kwargs):
        self.fmt = fmt
        self.datefmt = datefmt

    def format(self, record):
        return ""


class Handler(Filterer):
    def __init__(self, level=NOTSET, *args, **kwargs):
        self.filters = []
        self.level = level
        self.formatter = None

    def setLevel(self, level):
        self.level = level

    def setFormatter(self, formatter):
        self.formatter = formatter

    def flush(self):
        pass

    def close(self):
        pass

    def emit(self, record):
        pass

    def handle(self, record):
        return True


class StreamHandler(Handler):
    def __init__(self, stream=None):
        self.filters = []
        self.level = NOTSET
        self.formatter = None
        self.stream = stream


class FileHandler(StreamHandler):
    def __init__(self, filename, *args, **kwargs):
        self.filters = []
        self.level = NOTSET
        self.formatter = None
        self.stream = None
        self.baseFilename = filename


class NullHandler(Handler):
    pass


class LogRecord:
    def __init__(self, name, level, pathname, lineno, msg, args, exc_info, *more, **kwargs):
        self.name = name
        self.levelno = level
        self.levelname = getLevelName(level)
        self.msg = msg


class Logger(Filterer):
    def __init__(self, name, level=NOTSET):
        self.name = name
        self.level = level
        self.handlers = []
        self.filters = []
        self.propagate = True
        self.disabled = False
        self.parent = None

    def setLevel(self, level):
        self.level = level

    def getEffectiveLevel(self):
        logger = self
        while logger is not None:
            if logger.level:
                return logger.level
            logger = logger.parent
        return NOTSET

    def isEnabledFor(self, level):
        return level >= self.getEffectiveLevel()

    def getChild(self, suffix):
        return getLogger(self.name + "." + suffix)

    def addHandler(self, handler):
        if handler not in self.handlers:
            self.handlers.append(handler)

    def removeHandler(self, handler):
        if handler in self.handlers:
            self.handlers.remove(handler)

    def hasHandlers(self):
        return False

    def debug(self, *args, **kwargs):
        pass

    def info(self, *args, **kwargs):
        pass

    def warning(self, *args, **kwargs):
        pass

    def warn(self, *args, **kwargs):
        pass

    def error(self, *args, **kwargs):
        pass

    def exception(self, *args, **kwargs):
        pass

    def critical(self, *args, **kwargs):
        pass

    def fatal(self, *args, **kwargs):
        pass

    def log(self, *args, **kwargs):
        pass


class LoggerAdapter:
    def __init__(self, logger, extra=None):
        self.logger = logger
        self.extra = extra

    def debug(self, *args, **kwargs):
        pass

    def info(self, *args, **kwargs):
        pass

    def warning(self, *args, **kwargs):
        pass

    def error(self, *args, **kwargs):
        pass

    def setLevel(self, level):
        self.logger.setLevel(level)


root = Logger("root", WARNING)
_loggers = {}


def getLogger(name=None):
    if not name or name == "root":
        return root
    if name not in _loggers:
        logger = Logger(name)
        logger.parent = root
        _loggers[name] = logger
    return _loggers[name]


def basicConfig(*args, **kwargs):
    pass


def captureWarnings(capture):
    pass


def disable(level=CRITICAL):
    pass


def debug(*args, **kwargs):
    pass


def info(*args, **kwargs):
    pass


def warning(*args, **kwargs):
    pass


def error(*args, **kwargs):
    pass


def critical(*args, **kwargs):
    pass


def exception(*args, **kwargs):
    pass
