# `subprocess`, written as Python and run by our interpreter (never by Python) on first use.
# staticflops never runs a program, so to the analysed code every program is missing, as on a
# machine without it: starting one raises FileNotFoundError, what CPython raises there.  A probe
# inside `try` (transformers' is_ninja_available: `check_output(["ninja", "--version"])`) then
# answers "not installed"; a model that needs a program's output fails where it asks, located.

PIPE = -1
STDOUT = -2
DEVNULL = -3


class SubprocessError(Exception):
    pass


class CalledProcessError(SubprocessError):
    def __init__(self, returncode, cmd, output=None, stderr=None):
        self.returncode = returncode
        self.cmd = cmd
        self.output = output
        self.stderr = stderr


class TimeoutExpired(SubprocessError):
    def __init__(self, cmd, timeout, output=None, stderr=None):
        self.cmd = cmd
        self.timeout = timeout
        self.output = output
        self.stderr = stderr


def _missing(args):
    program = args[0] if isinstance(args, (list, tuple)) and args else args  # a command line, or its program
    error = FileNotFoundError(2, "No such file or directory (staticflops runs no program)", program)
    error.errno, error.strerror, error.filename = 2, "No such file or directory", program  # (as CPython sets them)
    raise error


class Popen:
    def __init__(self, args, *rest, **options):
        _missing(args)


def run(args, *rest, **options):
    _missing(args)


def call(args, *rest, **options):
    _missing(args)


def check_call(args, *rest, **options):
    _missing(args)


def check_output(args, *rest, **options):
    _missing(args)


def getoutput(cmd):
    _missing(cmd)


def getstatusoutput(cmd):
    _missing(cmd)
