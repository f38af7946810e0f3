"""Python semantics real libraries rely on (timm's registry, diffusers' config plumbing), each
checked against what CPython 3.11 does: every model below carries a Python value into a
layer width, so the asserted parameter count is derived by hand from CPython's behaviour
(written next to it) and fails if the interpreter gets the value wrong."""

import json
import textwrap

import pytest

import staticflops
from staticflops.diagnostics import AnalysisError
from staticflops.cli.app import app
from typer.testing import CliRunner


def analyse(tmp_path, source, inputs=("1x4",), **options):
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent(source))
    return staticflops.analyze(path, inputs=list(inputs), **options)


def widths(report):
    """name -> out_features of each Linear(1, n): its params are n weights + n biases."""
    return {row.name: row.params // 2 for row in report.layers if row.type == "Linear"}


def probes(names):
    """Model code: one Linear(1, value) per name, so each value shows as a layer width."""
    lines = "\n".join(f"        self.{name} = nn.Linear(1, {name})" for name in names)
    return f"""
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        {{body}}
{lines}

    def forward(self, x):
        return x
"""


def run_probes(tmp_path, header, body, names, **options):
    body = textwrap.indent(textwrap.dedent(body), " " * 8).lstrip()
    report = analyse(tmp_path, "import torch.nn as nn\n" + textwrap.dedent(header) + probes(names).replace("{body}", body),
                     **options)
    assert report.unknown == [], report.unknown
    return widths(report)


# ---- decorators ----------------------------------------------------------------------------

REGISTRY = """
import functools
import sys
from collections import defaultdict

_entrypoints = {}
_module_to_models = defaultdict(set)


def register_model(fn):
    # timm's shape: look the module up, extend its __all__, fill the registries, return fn
    mod = sys.modules[fn.__module__]
    if hasattr(mod, "__all__"):
        mod.__all__.append(fn.__name__)
    else:
        mod.__all__ = [fn.__name__]
    _entrypoints[fn.__name__] = fn
    _module_to_models[fn.__module__.split(".")[-1]].add(fn.__name__)
    return fn


def times(factor):
    def decorator(fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            return fn(*args, **kwargs) * factor
        return inner
    return decorator


def plus_one(fn):
    def inner(*args, **kwargs):
        return fn(*args, **kwargs) + 1
    return inner


@register_model
@times(3)
def small(width=2):
    return width


@register_model
@plus_one
@times(2)
def large(width=5):
    return width
"""


def test_function_decorators_and_a_registry_they_fill(tmp_path):
    body = """
    a = _entrypoints["small"](width=4)
    b = _entrypoints["inner"]()
    c = len(_module_to_models["__analysed__"]) + len(__all__)
    d = small.__wrapped__(7)
    e = len(small.__name__)
    """
    found = run_probes(tmp_path, REGISTRY, body, ["a", "b", "c", "d", "e"])
    # CPython: @times(3) wraps `small` and functools.wraps copies __name__ 'small', so the
    # registry key is 'small' and small(width=4) == 4 * 3 == 12.
    assert found["a"] == 12
    # `large` is plus_one(times(2)(large)): plus_one's inner has no wraps, so register_model sees
    # __name__ 'inner'; inner() == large() * 2 + 1 == 5 * 2 + 1 == 11.
    assert found["b"] == 11
    # both land in module '__analysed__' (our name for the analysed file's __main__): a set of
    # 2 names, and __all__ == ['small', 'inner']: 2 + 2 == 4
    assert found["c"] == 4
    # __wrapped__ is the undecorated function: 7; len('small') == 5
    assert found["d"] == 7
    assert found["e"] == 5


def test_method_decorators_property_setter_classmethod_staticmethod_cached_property(tmp_path):
    header = """
from functools import cached_property


class Block(nn.Module):
    scale = 3

    def __init__(self, width):
        super().__init__()
        self._width = width
        self.calls = 0

    @property
    def width(self):
        return self._width

    @width.setter
    def width(self, value):
        self._width = value * 10

    @classmethod
    def make(cls, width):
        return cls(width * cls.scale)

    @staticmethod
    def double(value):
        return 2 * value

    @cached_property
    def expensive(self):
        self.calls = self.calls + 1
        return self._width + 1
"""
    body = """
    block = Block.make(2)
    a = block.width
    block.width = 4
    b = block.width
    c = Block.double(5) + block.double(1)
    d = block.expensive + block.expensive + block.calls
    """
    found = run_probes(tmp_path, header, body, ["a", "b", "c", "d"])
    assert found["a"] == 6  # make(2) == Block(2 * 3): the property reads _width == 6
    assert found["b"] == 40  # the setter stores 4 * 10
    assert found["c"] == 12  # staticmethod from the class and an instance: 10 + 2
    # cached_property runs once, then the instance attribute wins: 41 + 41 + 1 call
    assert found["d"] == 83


def test_class_decorators_run_and_may_replace_the_class(tmp_path):
    header = """
LAYERS = {}


def register(name):
    def decorator(cls):
        LAYERS[name] = cls
        return cls
    return decorator


def widened(cls):
    cls.width = cls.width * 4
    return cls


@register("blk")
@widened
class Config:
    width = 2
"""
    found = run_probes(tmp_path, header, "a = LAYERS['blk'].width + Config.width", ["a"])
    assert found["a"] == 16  # widened first (2 * 4 == 8), then registered: 8 + 8


def test_a_decorator_that_cannot_be_resolved_leaves_the_function_as_written(tmp_path):
    # `somewhere` is not a file of the project: its decorator is unknown.  Like pyright with an
    # untyped decorator, the function is kept as written (and nothing is reported for it).
    header = """
from somewhere import mystery


@mystery(option=True)
def width():
    return 9
"""
    assert run_probes(tmp_path, header, "a = width()", ["a"])["a"] == 9


def test_diffusers_register_to_config_shape(tmp_path):
    # diffusers' @register_to_config: a functools.wraps wrapper around __init__ that reads the
    # parameters (inspect.signature) and records every argument, defaults included, in a config.
    header = """
import functools
import inspect


class ConfigMixin:
    def register_to_config(self, **kwargs):
        self._internal_dict = kwargs

    @property
    def config(self):
        return self._internal_dict


def register_to_config(init):
    @functools.wraps(init)
    def inner_init(self, *args, **kwargs):
        signature = inspect.signature(init)
        parameters = {name: p.default for i, (name, p) in enumerate(signature.parameters.items()) if i > 0}
        new_kwargs = {}
        for arg, name in zip(args, parameters.keys()):
            new_kwargs[name] = arg
        new_kwargs.update({k: kwargs.get(k, default) for k, default in parameters.items() if k not in new_kwargs})
        getattr(self, "register_to_config")(**new_kwargs)
        init(self, *args, **kwargs)
    return inner_init


class Head(nn.Module, ConfigMixin):
    @register_to_config
    def __init__(self, in_features, hidden=6, out_features=3):
        super().__init__()
        self.fc = nn.Linear(self.config["in_features"], self.config["hidden"])
"""
    body = """
    head = Head(2, out_features=5)
    a = head.config["in_features"] + head.config["hidden"] + head.config["out_features"]
    b = len(head.config)
    """
    found = run_probes(tmp_path, header, body, ["a", "b"])
    assert found["a"] == 2 + 6 + 5  # positional 2, default hidden 6, keyword out_features 5
    assert found["b"] == 3  # self is skipped (i > 0)


# ---- collections ------------------------------------------------------------------------------

def test_defaultdict_calls_its_factory_for_a_missing_key(tmp_path):
    header = """
from collections import defaultdict

by_module = defaultdict(set)
by_module["resnet"].add("resnet18")
by_module["resnet"].add("resnet50")
by_module["vit"].add("vit_b")
counts = defaultdict(int)
for name in ["a", "b", "a"]:
    counts[name] += 1
nested = defaultdict(lambda: [7])
"""
    body = """
    a = len(by_module["resnet"]) * 10 + len(by_module)
    b = counts["a"] * 10 + counts["zzz"] + len(counts)
    c = nested["x"][0] + len(by_module.get("missing", ())) + len(by_module)
    """
    found = run_probes(tmp_path, header, body, ["a", "b", "c"])
    assert found["a"] == 22  # two models under 'resnet', two keys
    # counts['a'] == 2; counts['zzz'] is created as int() == 0, so len(counts) == 3: 20 + 0 + 3
    assert found["b"] == 23
    # the lambda's [7]; .get() never calls the factory (CPython: only __getitem__ does): 7 + 0 + 2
    assert found["c"] == 9


def test_ordered_dict_counter_deque_namedtuple(tmp_path):
    header = """
from collections import Counter, OrderedDict, deque, namedtuple

Spec = namedtuple("Spec", "width depth", defaults=[1])
"""
    body = """
    order = OrderedDict([("x", 1), ("y", 2), ("z", 3)])
    order.move_to_end("x")
    a = int(list(order)[0] == "y")
    count = Counter(["conv", "conv", "relu"])
    b = count["conv"] * 10 + count.most_common(1)[0][1] + count["missing"]
    queue = deque([1, 2, 3], maxlen=3)
    queue.append(4)
    queue.appendleft(9)
    c = queue[0] * 10 + len(queue) + queue.popleft()
    spec = Spec(5)._replace(depth=4)
    d = spec.width * spec.depth + len(Spec._fields) + len(spec._asdict())
    """
    found = run_probes(tmp_path, header, body, ["a", "b", "c", "d"])
    assert found["a"] == 1  # move_to_end sends 'x' last: 'y' first (True == 1)
    assert found["b"] == 22  # 2 * 10 + 2 + Counter's missing key 0
    # maxlen 3: [1,2,3] + 4 -> [2,3,4]; appendleft(9) drops 4 -> [9,2,3]; 90 + 3 + 9
    assert found["c"] == 102
    assert found["d"] == 20 + 2 + 2  # width 5 x depth 4, two fields, two dict entries


def test_ordered_dict_views_iterate(tmp_path):
    """OrderedDict's views are `odict_items`/`odict_keys`/`odict_values`, not dict's own
    (transformers' `{v: k for k, v in config_mapping.items()}` over an OrderedDict)."""
    body = """
    order = OrderedDict([("x", 1), ("y", 2), ("z", 3)])
    reverse = {v: k for k, v in order.items()}
    a = len(reverse) * 100 + sum(order.values()) * 10 + len([k for k in order.keys() if k != "y"])
    """
    found = run_probes(tmp_path, "from collections import OrderedDict\n", body, ["a"])
    assert found["a"] == 3 * 100 + (1 + 2 + 3) * 10 + 2  # 3 entries, values sum 6, keys x and z


def test_mutable_mapping_subclass_gets_the_mixin_methods(tmp_path):
    header = """
from collections.abc import Mapping, MutableMapping


class Store(MutableMapping):
    def __init__(self):
        self._data = {}

    def __getitem__(self, key):
        return self._data[key]

    def __setitem__(self, key, value):
        self._data[key] = value

    def __delitem__(self, key):
        del self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)
"""
    body = """
    store = Store()
    store["a"] = 3
    store.update({"b": 4}, c=5)
    a = store.get("a") + store.get("zz", 10) + len(store)
    b = store.pop("b") + len(store) + ("b" in store) + ("c" in store)
    c = store.setdefault("d", 7) + len(list(store.items())) + sum(store.values())
    d = isinstance(store, Mapping) + isinstance({}, Mapping) + isinstance([], Mapping)
    """
    found = run_probes(tmp_path, header, body, ["a", "b", "c", "d"])
    assert found["a"] == 3 + 10 + 3
    assert found["b"] == 4 + 2 + 0 + 1  # pop returns 4 and removes 'b'
    assert found["c"] == 7 + 3 + (3 + 5 + 7)  # setdefault adds d=7: three items a, c, d
    assert found["d"] == 2  # a Mapping subclass and a dict are Mappings; a list is not


# ---- dataclasses, __init_subclass__ ------------------------------------------------------------

def test_dataclasses(tmp_path):
    header = """
from dataclasses import asdict, dataclass, field, fields, replace


@dataclass(frozen=True)
class Inner:
    size: int = 2


@dataclass
class Cfg:
    width: int
    depth: int = 3
    tags: list = field(default_factory=list)
    inner: Inner = field(default_factory=Inner)

    def __post_init__(self):
        self.total = self.width * self.depth
"""
    body = """
    cfg = Cfg(4)
    a = cfg.total + len(cfg.tags) + cfg.inner.size
    other = replace(cfg, depth=5)
    b = other.depth * 10 + cfg.depth
    c = len(fields(Cfg)) * 10 + len(asdict(cfg))
    d = asdict(cfg)["inner"]["size"] + (fields(Cfg)[1].default)
    """
    found = run_probes(tmp_path, header, body, ["a", "b", "c", "d"])
    assert found["a"] == 12 + 0 + 2  # __post_init__: 4 * 3
    assert found["b"] == 53  # replace() makes a new object; the original keeps depth 3
    # four fields; asdict has the fields only (not `total`, set in __post_init__)
    assert found["c"] == 44
    assert found["d"] == 2 + 3  # asdict recurses into the nested dataclass; depth's default is 3


def test_init_subclass_receives_the_class_keywords(tmp_path):
    header = """
class Registered:
    known = {}

    def __init_subclass__(cls, width=1, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.width = width
        Registered.known[cls.__name__] = cls


class Small(Registered, width=3):
    pass


class Plain(Registered):
    pass
"""
    found = run_probes(tmp_path, header, "a = Small.width * 10 + Plain.width + len(Registered.known)", ["a"])
    assert found["a"] == 30 + 1 + 2


# ---- enum, typing ---------------------------------------------------------------------------

def test_enum_members(tmp_path):
    header = """
from enum import Enum, IntEnum, auto


class Act(Enum):
    RELU = "relu"
    GELU = "gelu"
    DEFAULT = "relu"  # an alias of RELU


class Stage(IntEnum):
    ONE = auto()
    TWO = auto()
"""
    body = """
    a = len(Act) * 10 + len(list(Act))
    b = (Act("gelu") is Act.GELU) + (Act.DEFAULT is Act.RELU) + (Act["GELU"].name == "GELU")
    c = Stage.TWO.value * 10 + Stage.ONE.value
    """
    found = run_probes(tmp_path, header, body, ["a", "b", "c"])
    assert found["a"] == 22  # the alias is no member of its own: 2 members
    assert found["b"] == 3
    assert found["c"] == 21  # auto() counts from 1


def test_typing_constructs_are_no_ops(tmp_path):
    header = """
from typing import TYPE_CHECKING, Optional, Protocol, TypedDict, Unpack, cast, overload

if TYPE_CHECKING:
    from not_installed import Heavy


class Options(TypedDict, total=False):
    width: int


class Builder(Protocol):
    def build(self) -> int: ...


@overload
def scale(x: int) -> int: ...
@overload
def scale(x: float) -> float: ...
def scale(x):
    return x * 2


def make(**kwargs: Unpack[Options]) -> Optional[int]:
    return cast(int, kwargs["width"])
"""
    body = """
    options = Options(width=3)
    a = make(**options) + scale(2) + isinstance(options, dict)
    """
    assert run_probes(tmp_path, header, body, ["a"])["a"] == 3 + 4 + 1


# ---- functools, inspect -----------------------------------------------------------------------

def test_functools(tmp_path):
    header = """
import functools
from functools import lru_cache, partial, reduce


@lru_cache(maxsize=None)
def width(n):
    return n * 4


@functools.cache
def depth():
    return 2


def block(cin, cout, groups=1):
    return cout // groups
"""
    body = """
    grouped = partial(block, groups=2)
    a = grouped(1, 8) + grouped(1, 8, groups=4)
    b = width(3) + depth() + reduce(lambda x, y: x * y, [1, 2, 3], 5)
    """
    found = run_probes(tmp_path, header, body, ["a", "b"])
    assert found["a"] == 4 + 2  # the call's keyword overrides the partial's: 8 // 4
    assert found["b"] == 12 + 2 + 30  # reduce with an initial 5: 5 * 1 * 2 * 3


def test_lru_cache_runs_the_body_once_per_key(tmp_path):
    # Each call of a body appends to RUNS, so len(RUNS) counts how often a body ran (CPython 3.11).
    header = """
import functools

RUNS = []


@functools.lru_cache
def probe(n):
    RUNS.append(n)
    return [n]


@functools.lru_cache(maxsize=2)
def small(n):
    RUNS.append(n)
    return n


@functools.lru_cache(typed=True)
def typed(n):
    RUNS.append(n)
    return n


@functools.cache
def keyed(a, b=0):
    RUNS.append(a)
    return a + b
"""
    body = """
    same = probe(3) is probe(3)
    probe(1.0); probe(1); probe(True)
    a = len(RUNS) + 10 * same
    del RUNS[:]
    small(1); small(2); small(1); small(3); small(2); small(1)
    b = len(RUNS)
    del RUNS[:]
    typed(1); typed(1.0); typed(1)
    keyed(1, b=2); keyed(1, 2); keyed(a=1, b=2); keyed(b=2, a=1); keyed(1, b=2)
    c = len(RUNS)
    probe.cache_clear()
    probe(3)
    d = len(RUNS) - c + 100 * (probe.__wrapped__ is not probe) + 10 * (probe.__name__ == "probe")
    """
    found = run_probes(tmp_path, header, body, ["a", "b", "c", "d"])
    # a: probe(3) runs once and the second call returns the same list (same = True, 10); 1.0, 1
    # and True make three keys (1 is its own key, 1.0 and True are 1-tuples: (1.0,) == (True,)
    # in Python, so True finds 1.0's entry): runs 3, 1.0, 1 -> 3 runs, 3 + 10 = 13.
    assert found["a"] == 13
    # b: maxsize 2, least recently used evicted: 1 run, 2 run, 1 hit, 3 run (evicts 2), 2 run
    # (evicts 1), 1 run (evicts 3) -> 5 runs.
    assert found["b"] == 5
    # c: typed: 1 and 1.0 are two entries -> 2 runs; cache keys (1, kw b=2), (1, 2), (kw a=1, b=2),
    # (kw b=2, a=1) are four keys (keyword order matters), the last call repeats the first -> 4.
    assert found["c"] == 2 + 4
    # d: after cache_clear probe(3) runs again (1); the wrapper is not the function it wraps (100)
    # and keeps its name (10).
    assert found["d"] == 111


def test_inspect_signature_and_predicates(tmp_path):
    header = """
import functools
import inspect


def layer(cin, cout=8, *extra, act="relu", **kwargs):
    return cout


def wrap(fn):
    @functools.wraps(fn)
    def inner(*args, **kwargs):
        return fn(*args, **kwargs)
    return inner


class Block:
    def __init__(self, dim, heads=2):
        self.dim = dim


wrapped = wrap(layer)
"""
    body = """
    params = inspect.signature(layer).parameters
    kinds = [p.kind for p in params.values()]
    a = len(params) * 10 + params["cout"].default
    b = (params["cin"].default is inspect.Parameter.empty) + (kinds == [1, 1, 2, 3, 4])
    c = len(inspect.signature(wrapped).parameters) + len(inspect.signature(Block).parameters)
    d = inspect.isclass(Block) + inspect.isfunction(layer) + inspect.isclass(layer) + (params["kwargs"].kind == inspect.Parameter.VAR_KEYWORD)
    """
    found = run_probes(tmp_path, header, body, ["a", "b", "c", "d"])
    assert found["a"] == 58  # cin, cout, *extra, act, **kwargs; cout's default 8
    # CPython kinds: POSITIONAL_OR_KEYWORD == 1 (x2), VAR_POSITIONAL 2, KEYWORD_ONLY 3, VAR_KEYWORD 4
    assert found["b"] == 2
    # signature() follows __wrapped__ (5 parameters); a class shows __init__ without self (2)
    assert found["c"] == 7
    assert found["d"] == 3


# ---- re --------------------------------------------------------------------------------------

def test_re_on_known_strings(tmp_path):
    header = """
import re

PATTERN = re.compile(r"(?P<arch>[a-z]+)(?P<depth>\\d+)")
"""
    body = """
    m = PATTERN.match("resnet50")
    a = int(m.group("depth")) + len(m.group(1))
    b = len(re.findall(r"\\d", "a1b22c333")) + len(re.split(r"[,;]", "a,b;c"))
    c = len(re.sub(r"_+", "-", "conv__bn___act")) + (re.fullmatch(r"v\\d", "v12") is None) + (re.search("x", "abc") is None)
    """
    found = run_probes(tmp_path, header, body, ["a", "b", "c"])
    assert found["a"] == 50 + 6
    assert found["b"] == 6 + 3
    assert found["c"] == len("conv-bn-act") + 1 + 1


@pytest.mark.parametrize("pattern, why", [
    (r"(a+)+b", "a repeat inside a repeat"),
    (r"(a|aa)*b", "an alternation inside a repeat"),
    (r"(a)\1", "a back-reference"),
    (r"a*a*a*c", "3 repeats over 300 characters"),
])
def test_re_refuses_patterns_that_can_backtrack_for_ever(tmp_path, pattern, why):
    # CPython needs exponential time for (a+)+b on "aaa...x"; a*a*a*c is cubic (it did not
    # finish in a minute on 1,000 characters).  These become a located unknown.
    source = f"""
import re
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        found = re.search(r"{pattern}", "a" * 300)
        self.fc = nn.Linear(1, 2 if found is None else 3)

    def forward(self, x):
        return self.fc(x)
"""
    report = analyse(tmp_path, source, inputs=["1x1"])
    reasons = [u.what for u in report.unknown]
    assert any(why in r for r in reasons), reasons
    assert all(u.location.endswith(":9:17") for u in report.unknown if "regular expression" in u.what)


# ---- the process environment ----------------------------------------------------------------

ENVIRONMENT = """
import importlib
import importlib.util
import logging
import os
import platform
import sys
import warnings

logger = logging.getLogger(__name__)
handler = logging.StreamHandler()
for existing in logger.handlers:
    raise RuntimeError("a clean process has no handlers")
logger.addHandler(handler)
logger.setLevel(logging.INFO)
logger.propagate = False
warnings.warn("deprecated")
"""


def test_environment_is_a_clean_ci_machine(tmp_path):
    body = """
    a = (os.environ.get("HOME") is None) + (os.getenv("DEBUG", "0") == "0") + ("PATH" in os.environ)
    b = (sys.version_info >= (3, 8)) + (sys.platform == "linux") + (platform.system() == "Linux") + (
        sys.implementation.name == "cpython")
    c = (importlib.util.find_spec("torch") is not None) + (importlib.util.find_spec("no_such_thing") is None)
    d = len(logger.handlers) * 10 + logging.INFO // 10 + logger.isEnabledFor(logging.DEBUG)
    """
    found = run_probes(tmp_path, ENVIRONMENT, body, ["a", "b", "c", "d"])
    assert found["a"] == 2  # nothing is set, whatever the machine running staticflops has
    assert found["b"] == 4  # CPython 3.11 on Linux: four true comparisons
    assert found["c"] == 2  # torch is modelled; an unknown module is not installed
    assert found["d"] == 10 + 2 + 0  # the handler we added; INFO == 20; DEBUG < INFO


def test_env_option_sets_variables_for_the_analysed_program(tmp_path):
    source = """
import os
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(1, int(os.environ.get("WIDTH", "2")))

    def forward(self, x):
        return self.fc(x)
"""
    assert widths(analyse(tmp_path, source, inputs=["1x1"]))["fc"] == 2
    assert widths(analyse(tmp_path, source, inputs=["1x1"], env={"WIDTH": "7"}))["fc"] == 7
    result = CliRunner().invoke(app, ["analyze", str(tmp_path / "model.py"), "-i", "1x1", "--env", "WIDTH=5",
                                      "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["totals"]["params"] == 10  # Linear(1, 5): 5 weights + 5 biases
    bad = CliRunner().invoke(app, ["analyze", str(tmp_path / "model.py"), "-i", "1x1", "--env", "WIDTH"])
    assert bad.exit_code != 0 and "KEY=VALUE" in bad.output


def test_metadata_version_is_a_located_unknown(tmp_path):
    source = """
import importlib.metadata
import torch.nn as nn

VERSION = importlib.metadata.version("timm")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(1, len(VERSION))

    def forward(self, x):
        return self.fc(x)
"""
    report = analyse(tmp_path, source, inputs=["1x1"])
    # module-level unknowns are reported where the model uses them, naming their first cause
    assert any(u.location.rsplit(":", 2)[-2:] == ["11", "19"] and "version of 'timm'" in u.what
               for u in report.unknown), report.unknown


# ---- builtins: globals, getattr/setattr/hasattr, super, forwarding ----------------------------

def test_globals_getattr_setattr_super_and_forwarding(tmp_path):
    header = """
WIDTH = 3


class Base(nn.Module):
    def __init__(self, *args, **kwargs):
        super().__init__()
        self.total = sum(args) + sum(kwargs.values())


class Child(Base):
    def __init__(self, *args, **kwargs):
        super(Child, self).__init__(*args, **kwargs)


class Obj:
    pass
"""
    body = """
    child = Child(1, 2, extra=4)
    obj = Obj()
    setattr(obj, "w", 6)
    a = child.total * 10 + globals()["WIDTH"]
    b = getattr(obj, "w") + getattr(obj, "missing", 2) + hasattr(obj, "w") + hasattr(obj, "nope") + hasattr((), "keys")
    """
    found = run_probes(tmp_path, header, body, ["a", "b"])
    assert found["a"] == 73  # 1 + 2 + 4 forwarded through super(Child, self); WIDTH 3
    assert found["b"] == 6 + 2 + 1 + 0 + 0


def test_metaclass_call_wraps_construction(tmp_path):
    header = """
class Doubling(type):
    def __call__(cls, *args, **kwargs):
        obj = super().__call__(*args, **kwargs)
        obj.width = obj.width * 2
        return obj


class Spec(metaclass=Doubling):
    def __init__(self, width):
        self.width = width


class Wider(Spec):  # the metaclass is inherited
    pass
"""
    assert run_probes(tmp_path, header, "a = Spec(3).width * 10 + Wider(1).width", ["a"])["a"] == 62


def test_a_class_deriving_from_ordered_dict(tmp_path):
    # diffusers' FrozenDict: an OrderedDict subclass whose __init__ copies the items into attributes
    header = """
from collections import OrderedDict


class FrozenDict(OrderedDict):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for key, value in self.items():
            setattr(self, key, value)


class Plain(dict):
    pass
"""
    body = """
    config = FrozenDict({"a": 3, "b": 4})
    a = config.a * 10 + config["b"] + len(config) + ("a" in config)
    b = isinstance(config, OrderedDict) + isinstance(config, dict) + len(dict(**config)) + len(Plain(x=1))
    c = sum(config.values()) + len(list(config))
    """
    found = run_probes(tmp_path, header, body, ["a", "b", "c"])
    assert found["a"] == 30 + 4 + 2 + 1
    assert found["b"] == 1 + 1 + 2 + 1
    assert found["c"] == 7 + 2


def test_dir_of_a_modelled_module_lists_what_is_modelled(tmp_path):
    # timm's probe: `'silu' in dir(torch.nn.functional)` picks F.silu when present
    header = """
import torch
import torch.nn.functional as F

HAS_SILU = "silu" in dir(torch.nn.functional)
HAS_NOTHING = "no_such_op" in dir(F)
"""
    found = run_probes(tmp_path, header, "a = HAS_SILU * 10 + HAS_NOTHING + len(dir([]) ) // 1000 + 1", ["a"])
    assert found["a"] == 11  # dir(list) has fewer than 1,000 names


def test_generator_found_wherever_its_yield_is_written(tmp_path):
    # A def is a generator when a `yield` is anywhere in its body outside nested defs, executed or
    # not (is_generator skips statements whose lines hold no `yield` text: these place it in a
    # multi-line statement, in a branch never taken, after a nested def, and in text only).
    header = """
def late(n):
    if n:
        x = 1

        yield n
    return


def never(n):
    if n < 0:
        yield n
    total = 0
    return total


def nested(n):
    def inner():
        yield 1
    return n


def text(n):
    s = "yield"  # yield
    return n


def spread(n):
    total = sum(
        [n, n])
    yield (
        total)
    x = 1
"""
    body = """
    a = len(list(late(3))) * 10 + len(list(never(2)))
    b = nested(5) + text(6) * 10 + next(spread(4)) * 100
    """
    found = run_probes(tmp_path, header, body, ["a", "b"])
    # CPython: late(3) yields 3 once (1 item); never(2) is a generator that yields nothing (0)
    assert found["a"] == 1 * 10 + 0
    # nested and text are plain functions (5, 6); spread(4) yields 4 + 4 = 8 first
    assert found["b"] == 5 + 60 + 800


def test_generator_functions_yield_and_yield_from(tmp_path):
    # timm's _manipulate.named_modules is a recursive generator with `yield from`
    header = """
def walk(tree, prefix=""):
    for name, child in tree.items():
        path = prefix + "." + name if prefix else name
        yield from walk(child, path)
        yield path


def count(n):
    i = 0
    while i < n:
        yield i
        i += 1
    return "ignored"
"""
    body = """
    paths = list(walk({"a": {"b": {}, "c": {}}, "d": {}}))
    it = iter(count(5))
    first = next(it)
    a = len(paths) * 10 + (paths[0] == "a.b") + (paths[2] == "a")
    b = first + sum(it) + next(iter(count(0)), 7)
    """
    found = run_probes(tmp_path, header, body, ["a", "b"])
    # CPython: a.b, a.c, a, d (children before their parent): 4 paths
    assert found["a"] == 42
    # next() took 0; the loop continues with 1 + 2 + 3 + 4; an empty generator gives the default
    assert found["b"] == 0 + 10 + 7


def test_private_names_are_mangled(tmp_path):
    # CPython mangles `self.__frozen` inside class FrozenDict to `_FrozenDict__frozen`, so
    # diffusers' `hasattr(self, "__frozen")` is always False and its freeze never triggers.
    header = """
class Frozen:
    __depth = 2

    def __init__(self):
        self.__frozen = True
        self.__width = 5

    def __helper(self):
        return self.__width * self.__depth

    def report(self):
        return self.__helper() * 10 + hasattr(self, "__frozen") + hasattr(self, "_Frozen__frozen")
"""
    body = """
    obj = Frozen()
    a = obj.report() + obj._Frozen__width
    """
    assert run_probes(tmp_path, header, body, ["a"])["a"] == 100 + 0 + 1 + 5


# ---- what transformers' shared code relies on (issue 19) ------------------------------------

def test_rich_comparisons_follow_python(tmp_path):
    header = """
class V:
    def __init__(self, n):
        self.n = n

    def __lt__(self, other):
        return self.n < other.n

    def __eq__(self, other):
        return self.n == other.n


class P:
    pass
"""
    body = """
    p = P()
    a = 1 + (V(1) < V(2)) * 10 + (V(3) == V(3)) * 100 + (V(3) != V(4)) * 1000 + (V(5) > V(2)) * 10000
    b = 1 + (p == p) + (P() == P()) * 10
    """
    found = run_probes(tmp_path, header, body, ["a", "b"])
    # CPython: __lt__ True; __eq__ True; != inverts __eq__ (no __ne__): True; V has no __gt__,
    # so V(5) > V(2) is the reflected V(2).__lt__(V(5)): True
    assert found["a"] == 11111
    # no __eq__: identity
    assert found["b"] == 2


def test_qualname_vars_class_dict_and_bases(tmp_path):
    header = """
class Outer:
    def method(self):
        pass

    class Inner:
        def deep(self):
            pass


def f():
    def g():
        pass
    return g


class K:
    x = 1
    y = 2


class L(K):
    pass
"""
    body = """
    a = len(Outer.method.__qualname__)
    b = len(Outer.Inner.deep.__qualname__)
    c = len(f().__qualname__)
    d = len([k for k in vars(K) if not k.startswith("__")]) * 10 + ("x" in K.__dict__) + (L.__bases__[0] is K) * 100
    """
    found = run_probes(tmp_path, header, body, ["a", "b", "c", "d"])
    assert found["a"] == len("Outer.method")
    assert found["b"] == len("Outer.Inner.deep")
    assert found["c"] == len("f.<locals>.g")
    assert found["d"] == 2 * 10 + 1 + 100  # x and y; "x" in K.__dict__; L's base is K


def test_method_resolution_order_is_c3(tmp_path):
    header = """
class A:
    def who(self):
        return 1


class B(A):
    def who(self):
        return 10 + super().who()


class C(A):
    def who(self):
        return 100 + super().who()


class D(B, C):
    def who(self):
        return 1000 + super().who()
"""
    body = """
    a = D().who()
    b = len(D.__mro__)
    """
    found = run_probes(tmp_path, header, body, ["a", "b"])
    # CPython: D, B, C, A, object: every class once, A after both B and C
    assert found["a"] == 1111
    assert found["b"] == 5


def test_attribute_hooks_of_the_analysed_code(tmp_path):
    header = """
class Aliased:
    attribute_map = {"width": "n_embd"}

    def __init__(self):
        self.n_embd = 7

    def __setattr__(self, key, value):
        if key in super().__getattribute__("attribute_map"):
            key = super().__getattribute__("attribute_map")[key]
        super().__setattr__(key, value)

    def __getattribute__(self, key):
        if key != "attribute_map" and key in super().__getattribute__("attribute_map"):
            key = super().__getattribute__("attribute_map")[key]
        return super().__getattribute__(key)


class Fallback:
    present = 2

    def __getattr__(self, name):
        return len(name)
"""
    body = """
    o = Aliased()
    a = o.width
    o.width = 9
    b = o.n_embd
    c = Fallback().abcd * 10 + Fallback().present
    """
    found = run_probes(tmp_path, header, body, ["a", "b", "c"])
    assert found["a"] == 7  # width is read as n_embd
    assert found["b"] == 9  # and written to it
    assert found["c"] == 4 * 10 + 2  # __getattr__ only for a name the normal lookup misses


def test_classvar_is_not_a_dataclass_field_and_descriptors_bind(tmp_path):
    header = """
from dataclasses import dataclass, fields
from typing import ClassVar


@dataclass
class Cfg:
    table: ClassVar[dict] = {}
    width: int = 3


class classproperty(property):
    def __get__(self, owner_self, owner_cls):
        return self.fget(owner_cls)


class M:
    size = 4

    @classproperty
    def doubled(cls):
        return cls.size * 2
"""
    body = """
    a = len(fields(Cfg)) * 10 + Cfg(6).width
    b = M.doubled * 10 + M().doubled
    """
    found = run_probes(tmp_path, header, body, ["a", "b"])
    assert found["a"] == 1 * 10 + 6  # only `width`: Cfg(6) sets it positionally
    assert found["b"] == 8 * 10 + 8  # __get__ runs on the class and on an instance


def test_dict_view_set_operators_slice_and_annotations(tmp_path):
    header = """
import inspect
import typing


class Base:
    config: int


class Child(Base):
    other: str
"""
    body = """
    d = {"a": 1, "b": 2}
    e = {"b": 3, "c": 4}
    a = len(d.keys() | e.keys()) * 100 + len(d.keys() & e.keys()) * 10 + len(d.keys() - e.keys())
    b = len([1, 2, 3, 4][slice(1, None)]) * 10 + len(list(range(10))[slice(-2, None)])
    c = len(inspect.get_annotations(Child)) * 100 + len(typing.get_type_hints(Child)) * 10 + \\
        (inspect.get_annotations(Base)["config"] is int)
    """
    found = run_probes(tmp_path, header, body, ["a", "b", "c"])
    assert found["a"] == 3 * 100 + 1 * 10 + 1  # {a,b,c}, {b}, {a}
    assert found["b"] == 3 * 10 + 2
    assert found["c"] == 1 * 100 + 2 * 10 + 1  # own annotations only; with the base's; evaluated


def test_torch_version_and_a_decorator_that_raises(tmp_path):
    # Deliberately not CPython: a decorator that raises (here always) would stop the import;
    # the library imported where it ran, so a raise means the analysis followed something it
    # does not model, and the class stays as written (as for a decorator it cannot resolve).
    header = """
import importlib.metadata
import torch


def strict(cls):
    raise ValueError("needs a dataclass")


@strict
class Thing:
    width = 3
"""
    body = """
    a = len(importlib.metadata.version("torch")) * 10 + (torch.__version__ == "2.13.0")
    b = Thing.width
    """
    found = run_probes(tmp_path, header, body, ["a", "b"])
    assert found["a"] == len("2.13.0") * 10 + 1  # the PyTorch release staticflops models
    assert found["b"] == 3


# ---- modules that replace themselves (lazy imports: diffusers, transformers) ----------------

LAZY_PACKAGE = '''
import importlib
import sys
from types import ModuleType

_import_structure = {"layers": ["WIDTH", "double"]}


class _LazyModule(ModuleType):
    def __init__(self, name, module_file, import_structure):
        super().__init__(name)
        self._class_to_module = {v: k for k, values in import_structure.items() for v in values}
        self.__file__ = module_file

    def __getattr__(self, name):
        if name in self._class_to_module:
            module = importlib.import_module("." + self._class_to_module[name], self.__name__)
            value = getattr(module, name)
            setattr(self, name, value)
            return value
        raise AttributeError(f"module {self.__name__} has no attribute {name}")


sys.modules[__name__] = _LazyModule(__name__, globals()["__file__"], _import_structure)
'''


def test_a_package_replacing_itself_in_sys_modules_is_what_importers_get(tmp_path):
    """CPython: `import pkg` returns sys.modules["pkg"] after pkg/__init__.py ran, so names come
    from the _LazyModule's __getattr__, which imports `pkg.layers` by a relative name."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text(LAZY_PACKAGE)
    (tmp_path / "pkg" / "layers.py").write_text("WIDTH = 6\n\ndef double(n):\n    return 2 * n\n")
    (tmp_path / "pkg" / "dynamic.py").write_text(
        "def __getattr__(name):\n    if name == 'SEVEN':\n        return 7\n    raise AttributeError(name)\n")
    widths = run_probes(tmp_path, """
        import pkg
        from pkg import WIDTH, double
        from pkg import dynamic
        """, """
        a = WIDTH                                  # 6, through _LazyModule.__getattr__
        b = double(5)                              # 10
        c = 3 if hasattr(pkg, "missing") else 4    # 4: __getattr__ raised AttributeError
        d = 8 if pkg.__file__.endswith("__init__.py") else 9  # 8: set on the replacement
        e = dynamic.SEVEN                          # 7: the module's own __getattr__ (PEP 562)
        """, ["a", "b", "c", "d", "e"])
    # a = 6 (layers.WIDTH), b = 2*5, c = 4 (AttributeError -> hasattr False), d = 8, e = 7
    assert widths == {"a": 6, "b": 10, "c": 4, "d": 8, "e": 7}


LISTING_PACKAGE = """
import os
import sys
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .layers import WIDTH as WIDTH
    from .models import *
else:
    # the lazy table is made by listing the package's folder (transformers' define_import_structure)
    _names = [entry.name for entry in os.scandir(os.path.dirname(__file__))]
    sys.modules[__name__] = ModuleType(__name__)
"""

TYPE_CHECKING_STARS = """
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .{0} import *
"""


def test_a_lazy_package_whose_table_lists_folders_answers_from_its_type_checking_imports(tmp_path):
    """The folder listing that would build the lazy table is not read, so the statement that
    installs the lazy module is skipped; `from pkg import Name` then follows what the package
    declares for type checkers: an explicit import, or star imports through nested packages."""
    package = tmp_path / "pkg"
    for folder in ("alpha", "beta"):
        (package / "models" / folder).mkdir(parents=True)
        (package / "models" / folder / "__init__.py").write_text(TYPE_CHECKING_STARS.format(f"modeling_{folder}"))
    (package / "__init__.py").write_text(LISTING_PACKAGE)
    (package / "layers.py").write_text("WIDTH = 6\n")
    (package / "models" / "__init__.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from .alpha import *\n    from .beta import *\n")
    (package / "models" / "alpha" / "modeling_alpha.py").write_text("def depth(n):\n    return n + 1\n")
    (package / "models" / "beta" / "modeling_beta.py").write_text("class Backbone:\n    channels = 12\n")
    found = run_probes(tmp_path, """
        import pkg.models
        from pkg import WIDTH, Backbone, depth
        """, """
        a = WIDTH               # 6: `from .layers import WIDTH as WIDTH`
        b = Backbone.channels   # 12: pkg -> models (*) -> beta (*) -> modeling_beta
        c = depth(4)            # 4 + 1 = 5: pkg -> models (*) -> alpha (*) -> modeling_alpha
        d = hasattr(pkg.models, "Backbone") * 10 + hasattr(pkg.models, "Missing")  # 1 * 10 + 0
        """, ["a", "b", "c", "d"])
    assert found == {"a": 6, "b": 12, "c": 5, "d": 10}


def test_hasattr_on_a_class_knows_the_attributes_every_class_has(tmp_path):
    """transformers' `_LazyAutoMapping.__contains__` asks `hasattr(config_class, "__name__")`."""
    found = run_probes(tmp_path, "class Plain:\n    pass\n", """
    a = hasattr(Plain, "__name__") * 1000 + hasattr(Plain, "__mro__") * 100 + hasattr(Plain, "__bases__") * 10
    b = 5 - hasattr(Plain, "missing")
    """, ["a", "b"])
    assert found == {"a": 1110, "b": 5}  # True * 1000 + True * 100 + True * 10; 5 - False (no `missing`)


def test_a_class_getattr_answers_missing_names_and_hasattr_honours_attribute_error(tmp_path):
    widths = run_probes(tmp_path, """
        class Table:
            def __init__(self, values):
                self._values = values

            def __getattr__(self, name):
                if name in self._values:
                    return self._values[name]
                raise AttributeError(name)

        t = Table({"a": 3})
        """, """
        a = t.a                              # 3
        b = 2 if hasattr(t, "b") else 5      # 5
        c = 7 if hasattr(t, "a") else 1      # 7
        d = getattr(t, "zz", 11)             # 11
        """, ["a", "b", "c", "d"])
    assert widths == {"a": 3, "b": 5, "c": 7, "d": 11}


def test_import_module_resolves_a_relative_name_against_package(tmp_path):
    """importlib.import_module("..b", "p.q") is p.b (CPython's resolution)."""
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "__init__.py").write_text("")
    (tmp_path / "p" / "q.py").write_text("")
    (tmp_path / "p" / "b.py").write_text("N = 12\n")
    widths = run_probes(tmp_path, "import importlib\n", """
        a = importlib.import_module("..b", "p.q").N   # 12
        b = importlib.import_module(".b", "p").N      # 12
        """, ["a", "b"])
    assert widths == {"a": 12, "b": 12}


def test_an_f_string_of_functions_prints_them_as_python_does(tmp_path):
    """diffusers' attention_dispatch logs f"... {constraints}" (a list of functions): CPython
    prints `[<function check at 0x...>]`, a short text, never the function's source."""
    widths = run_probes(tmp_path, """
        def check(x):
            return x

        message = f"Registering with constraints: {[check] * 3}"
        """, """
        a = 4 if message.startswith("Registering with constraints: [<function check") else 1  # 4
        """, ["a"])
    assert widths == {"a": 4}


def test_rich_comparisons_operator_module_and_version_probes(tmp_path):
    """packaging's Version compares through __lt__/__eq__; diffusers' compare_versions maps "<" to
    operator.lt; is_torch_version reads importlib.metadata.version("torch") (2.13.0, the torch we
    model).  Each value below is what CPython gives."""
    widths = run_probes(tmp_path, """
        import importlib.metadata
        import operator
        import torch

        class V:
            def __init__(self, key):
                self.key = key

            def __lt__(self, other):
                if not isinstance(other, V):
                    return NotImplemented
                return self.key < other.key

            def __eq__(self, other):
                return isinstance(other, V) and self.key == other.key
        """, """
        a = 2 if V(1) < V(2) else 3                        # 2
        b = 4 if V(2) > V(1) else 5                        # 4: reflected V(1).__lt__(V(2))
        c = 6 if V(3) == V(3) and V(3) != V(4) and not V(3) != V(3) else 7  # 6 (!= inverts __eq__)
        d = operator.add(2, 3) if operator.lt(V(0), V(1)) else 1   # 5
        e = 8 if importlib.metadata.version("torch") == torch.__version__ == "2.13.0" else 9  # 8
        f = 10 if not torch.is_grad_enabled() and torch.is_tensor(torch.zeros(1)) else 11  # 10
        g = 12 if torch.zeros(1).device.type == "cpu" and torch.device("cuda:1").index == 1 else 13  # 12
        h = 14 if torch.device("cpu") == torch.zeros(1).device else 15  # 14
        """, list("abcdefgh"))
    assert widths == {"a": 2, "b": 4, "c": 6, "d": 5, "e": 8, "f": 10, "g": 12, "h": 14}


def test_numbers_tower_in_isinstance(tmp_path):
    """diffusers' RMSNorm: `if isinstance(dim, numbers.Integral): dim = (dim,)` (CPython: bool is
    Integral, a float is Real but not Integral)."""
    widths = run_probes(tmp_path, "import numbers\n", """
        a = 2 if isinstance(5, numbers.Integral) and isinstance(True, numbers.Integral) else 3   # 2
        b = 4 if isinstance(0.5, numbers.Real) and not isinstance(0.5, numbers.Integral) else 5  # 4
        c = 6 if isinstance(1, numbers.Number) and not isinstance("1", numbers.Number) else 7    # 6
        """, ["a", "b", "c"])
    assert widths == {"a": 2, "b": 4, "c": 6}


def test_sum_with_a_start_value_sums_the_iterable(tmp_path):
    """sum(pairs, ()) concatenates the pairs (LongT5's padding list); min/max of several
    arguments still compare the arguments."""
    found = run_probes(tmp_path, "", """
        pad = [(0, 0)] * 3
        pad[1] = (0, 5)
        flat = sum(pad[::-1], ())
        a = len(flat) + sum(flat)
        b = sum([[1], [2, 3]], [7])[2]
        c = max(4, 9, 2)
        """, ["a", "b", "c"])
    # 6 items summing to 5: 11; [7, 1, 2, 3][2] = 2
    assert found == {"a": 11, "b": 2, "c": 9}


OPERATORS = """
class Vec:
    def __init__(self, n):
        self.n = n

    def __add__(self, other):
        return Vec(self.n + (other.n if isinstance(other, Vec) else other))

    def __radd__(self, other):
        return Vec(other * 10 + self.n)

    def __mul__(self, other):
        return NotImplemented

    def __rmul__(self, other):
        return Vec(self.n * 100)

    def __matmul__(self, other):
        return self.n * other.n


class Meters:
    def __mul__(self, other):
        return NotImplemented

"""


def test_binary_operators_call_the_dunder_then_its_reflection(tmp_path):
    body = """
    a = (Vec(2) + Vec(3)).n
    b = (5 + Vec(1)).n
    c = (Meters() * Vec(4)).n
    d = Vec(3) @ Vec(4)
    """
    found = run_probes(tmp_path, OPERATORS, body, ["a", "b", "c", "d"])
    # CPython: Vec(2).__add__(Vec(3)) -> Vec(5)
    assert found["a"] == 5
    # int + Vec: int.__add__ gives NotImplemented, so Vec(1).__radd__(5) -> Vec(5 * 10 + 1)
    assert found["b"] == 51
    # Meters.__mul__ returns NotImplemented, so Vec(4).__rmul__(Meters()) -> Vec(400)
    assert found["c"] == 400
    # Vec(3).__matmul__(Vec(4)) -> 3 * 4
    assert found["d"] == 12


def test_module_list_and_sequential_concatenate(tmp_path):
    report = analyse(tmp_path, """
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                a = nn.ModuleList([nn.Linear(8, 8), nn.Linear(8, 8)])
                self.layers = a + nn.ModuleList([nn.Linear(8, 4)])
                self.tail = nn.Sequential(nn.ReLU()) + nn.Sequential(nn.Linear(4, 2))

            def forward(self, x):
                for layer in self.layers:
                    x = layer(x)
                return self.tail(x)
        """, inputs=("2x8",))
    assert not report.unknown
    # torch: ModuleList.__add__ renumbers from 0: layers.0-2; Sequential + Sequential: tail.0 ReLU, tail.1 Linear
    assert [row.name for row in report.layers if row.depth == 2] == ["layers.0", "layers.1", "layers.2", "tail.0", "tail.1"]
    # MACs: 2 rows x (8*8 + 8*8 + 8*4 + 4*2) = 2 x 168 = 336; FLOPs 672
    assert (report.totals.macs, report.totals.forward_flops) == (336, 672)


def test_abc_module(tmp_path):
    """`abc` (transformers' cache layers derive from `ABC`): `ABC`, `ABCMeta` as a metaclass and
    `abstractmethod` as the mark CPython sets (`__isabstractmethod__`).  Every check holds in
    CPython, so fc is Linear(4, 8): 4*8 + 8 = 40 params."""
    report = analyse(tmp_path, """
        import abc
        from abc import ABC, abstractmethod
        from torch import nn

        class Base(ABC):
            @abstractmethod
            def width(self): ...

        class Meta(metaclass=abc.ABCMeta):
            pass

        class Eight(Base, Meta):
            def width(self):
                return 8

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                w = Eight()
                if isinstance(w, ABC) and isinstance(w, Meta) and Base.width.__isabstractmethod__:
                    self.fc = nn.Linear(4, w.width())

            def forward(self, x):
                return self.fc(x)
    """)
    assert report.totals.params == 40
    assert report.totals.complete


def test_type_of_a_python_value_reports_nothing(tmp_path):
    """`type(3) is int` and `type((1, 2)) is tuple` are decided without an unknown left behind
    (an unknown was once recorded for every such call, making totals lower bounds): fc is
    Linear(4, 8) when both hold, 4*8 + 8 = 40 params, and the report is complete."""
    report = analyse(tmp_path, """
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                if type(3) is int and type((1, 2)) is tuple:
                    self.fc = nn.Linear(4, 8)

            def forward(self, x):
                return self.fc(type(x)(x) if False else x)
    """)
    assert report.totals.params == 40
    assert report.totals.complete, [u.what for u in report.unknown]


def test_signature_bind_and_apply_defaults(tmp_path):
    """`inspect.signature(f).bind(*args, **kwargs)` then `apply_defaults()`, as CPython binds
    `f(a, b=2, *rest, c, d=4, **extra)` called `f(1, 5, 6, c=3, e=7)`: a=1, b=5, rest=(6,), c=3,
    d=4 (default), extra={'e': 7}.  Widths a + b + len(rest) + c + d + len(extra) = 1 + 5 + 1 + 3
    + 4 + 1 = 15: Linear(1, 15) has 15 + 15 = 30 params."""
    report = analyse(tmp_path, """
        import inspect
        from torch import nn

        def f(a, b=2, *rest, c, d=4, **extra):
            return a

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                bound = inspect.signature(f).bind(1, 5, 6, c=3, e=7)
                bound.apply_defaults()
                got = bound.arguments
                self.fc = nn.Linear(1, got["a"] + got["b"] + len(got["rest"]) + got["c"] + got["d"] + len(got["extra"]))

            def forward(self, x):
                return x
    """)
    assert report.totals.params == 30


def test_more_str_methods(tmp_path):
    """str methods that build nothing longer, as CPython answers them: "block_3".find("_") = 5,
    "a.b.c".rfind(".") = 3, "a-b-a".count("a") = 2, "x:y:z".rpartition(":")[0] = "x:y" (len 3),
    "Conv".isalpha() = True (1), "mode_x".removeprefix("mode_") = "x" (len 1).  Widths 5 + 3 + 2 +
    3 + 1 + 1 = 15: Linear(1, 15) has 30 params."""
    report = analyse(tmp_path, """
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                width = ("block_3".find("_") + "a.b.c".rfind(".") + "a-b-a".count("a")
                         + len("x:y:z".rpartition(":")[0]) + int("Conv".isalpha()) + len("mode_x".removeprefix("mode_")))
                self.fc = nn.Linear(1, width)

            def forward(self, x):
                return x
    """)
    assert report.totals.params == 30


def test_class_docstring_is_its_own_dunder_doc(tmp_path):
    """As CPython: a class body binds ``__doc__`` to its opening string literal (adjacent literals
    joined) or to None, so a subclass without one does not inherit it, and ``vars(B)`` has the
    name.  All four checks hold: width 4, Linear(4, 2) has 4*2 + 2 = 10 params (any failing: 5, 12)."""
    report = analyse(tmp_path, """
        from torch import nn

        class A:
            \"\"\"Doc of A.\"\"\"
            x = 1

        class B(A):
            pass

        class C:
            "one" "two"

        WIDTH = 4 if A.__doc__ == "Doc of A." and B.__doc__ is None and C.__doc__ == "onetwo" and "__doc__" in vars(B) else 5

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(WIDTH, 2)

            def forward(self, x):
                return self.fc(x)
    """)
    assert report.totals.params == 10


def test_union_of_types_in_isinstance_and_issubclass(tmp_path):
    """Python 3.10's ``A | B`` of classes is what isinstance/issubclass accept as a tuple,
    ``None`` in it standing for NoneType (and ``type(None)`` is NoneType).  Each of the seven
    checks adds 1 when Python's answer is given, 100 otherwise: width 7, Linear(7, 2) has
    7*2 + 2 = 16 params."""
    report = analyse(tmp_path, """
        from torch import nn

        class A:
            pass

        class B(A):
            pass

        W = 0
        W += 1 if isinstance([1], list | tuple) else 100
        W += 1 if isinstance((1,), list | tuple) else 100
        W += 1 if not isinstance("s", list | tuple) else 100
        W += 1 if isinstance(B(), int | A) else 100
        W += 1 if isinstance(None, int | None) and not isinstance(3.0, int | None) else 100
        W += 1 if issubclass(B, str | (A | None)) else 100
        W += 1 if isinstance(None, type(None)) else 100

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(W, 2)

            def forward(self, x):
                return self.fc(x)
    """, inputs=("1x7",))
    assert report.totals.params == 16


def test_next_of_an_exhausted_iterator_raises_stopiteration_the_code_may_catch(tmp_path):
    """``next(it)`` past the end raises StopIteration, which ``except StopIteration`` catches
    (transformers' cache looks for its first attention layer so); ``next(it, default)`` gives
    the default.  Width 3 + 2 = 5: Linear(5, 1) has 5 + 1 = 6 params."""
    report = analyse(tmp_path, """
        from torch import nn

        try:
            first = next(i for i in range(4) if i > 9)
        except StopIteration:
            first = 3
        WIDTH = first + next(iter([]), 2)

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(WIDTH, 1)

            def forward(self, x):
                return self.fc(x)
    """, inputs=("1x5",))
    assert report.totals.params == 6


def test_membership_in_a_list_holding_an_unknown(tmp_path):
    """``1 in [1, unknown]`` is True whatever the unknown is; ``3 in [1, unknown]`` is not
    known (the unknown might be 3), so the `if` on it is an assumption and the totals say they
    are a lower bound (it was silently False).  Widths: 2 from the decided test, 4 from the
    assumed one (its branch assumed true): Linear(6, 1) has 6 + 1 = 7 params."""
    report = analyse(tmp_path, """
        import somelib
        from torch import nn

        ITEMS = [1, somelib.value]
        WIDTH = 2 if 1 in ITEMS else 0

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                width = WIDTH
                if 3 in ITEMS:
                    width += 4
                self.fc = nn.Linear(width, 1)

            def forward(self, x):
                return self.fc(x)
    """, inputs=("1x6",))
    assert report.totals.params == 7 and report.totals.complete is False
    assert any("assumed true" in u.what for u in report.unknown), report.unknown


def test_set_remove_clear_and_in_place_updates(tmp_path):
    """``set.remove`` (timm's feature hooks drop a name so), ``clear`` and the ``*_update``
    methods change the set in place.  {1, 2, 3, 4} minus 4, minus {1}, kept {2, 3} & {2, 3, 9},
    then ^ {7}: {2, 3, 7}, sum 12; a cleared set has length 0: a = 12 + 0, Linear(1, 12)."""
    widths = run_probes(tmp_path, "", """
        kept = {1, 2, 3, 4}
        kept.remove(4)
        kept.difference_update({1})
        kept.intersection_update({2, 3, 9})
        kept.symmetric_difference_update({7})
        gone = {5}
        gone.clear()
        a = sum(kept) + len(gone)
    """, ["a"])
    assert widths == {"a": 12}


def test_str_padding_methods(tmp_path):
    """``"7".zfill(3)`` is "007" (transformers numbers per-layer config keys so), ljust/rjust/
    center pad with spaces or the given character: 3 + 4 + 5 + 5 = 17 characters."""
    widths = run_probes(tmp_path, "", """
        a = len("7".zfill(3)) + len("ab".ljust(4)) + len("ab".rjust(5, "-")) + len("x".center(5))
        b = int("7".zfill(3) == "007") + int("ab".rjust(5, "-") == "---ab")
    """, ["a", "b"])
    assert widths == {"a": 17, "b": 2}


def test_a_padding_width_over_the_container_limit_is_refused(tmp_path):
    """``"x".zfill(10**9)`` would build a billion characters: the analysis stops with a located
    error naming --max-container, not a memory error."""
    with pytest.raises(staticflops.AnalysisError, match="max-container"):
        analyse(tmp_path, """
            import torch.nn as nn
            PAD = "x".zfill(10 ** 9)

            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(len(PAD), 1)

                def forward(self, x):
                    return self.fc(x)
        """)


def test_augmented_assignment_changes_lists_dicts_and_sets_in_place(tmp_path):
    """CPython: `+=` on a list extends it (also by a tuple), `|=` updates a dict or a set, and
    `&=`, `-=`, `^=` update a set, all in place, so another name for the same object sees the
    change: alias [4] += [8] -> 2 items; e {'a'} |= {'b'} -> 2 keys; s {1, 2, 3} &= {2, 3, 4} ->
    {2, 3}, -= {3} -> {2}, ^= {5} -> {2, 5}: 2; t += (1, 2) on [] -> 2.  A name rebound by
    `x = x + y` is a new object: u stays [1] (1)."""
    got = run_probes(tmp_path, "", """
        sizes = [4]
        alias = sizes
        sizes += [8]
        d = {"a": 1}
        e = d
        d |= {"b": 2}
        s = {1, 2, 3}
        r = s
        s &= {2, 3, 4}
        s -= {3}
        s ^= {5}
        t = []
        t += (1, 2)
        u = [1]
        v = u
        u = u + [2]
        a = len(alias)
        b = len(e)
        c = len(r)
        f = len(t)
        g = len(v)
        """, ["a", "b", "c", "f", "g"])
    assert got == {"a": 2, "b": 2, "c": 2, "f": 2, "g": 1}


def test_sorted_min_and_max_honour_key_and_reverse(tmp_path):
    """CPython: sorted([3, 1, 2], reverse=True)[0] is 3; max([3, 1, 2], key=neg) is 1 (largest
    -x); min(4, 2, key=neg) is 4; sorted by len keeps equal keys in order: ["bb", "a", "cc"] ->
    ["a", "bb", "cc"], so [1] is "bb" and its index in the input 0... written as 10 + 0 = 10;
    max of equal keys gives the first: max(["ab", "cd"], key=len) is "ab" -> ord("a") = 97."""
    got = run_probes(tmp_path, "", """
        items = [3, 1, 2]
        a = sorted(items, reverse=True)[0]
        b = max(items, key=lambda x: -x)
        c = min(4, 2, key=lambda t: -t)
        words = ["bb", "a", "cc"]
        d = 10 + words.index(sorted(words, key=len)[1])
        e = ord(max(["ab", "cd"], key=len)[0])
        """, ["a", "b", "c", "d", "e"])
    assert got == {"a": 3, "b": 1, "c": 4, "d": 10, "e": 97}


def test_f_strings_apply_format_specs_conversions_and_the_objects_own_dunders(tmp_path):
    """CPython: f"{2.5:.3f}" is "2.500" (5); f"{'ab'!r}" is "'ab'" (4); f"{7:>5}" is "    7" (5);
    a nested spec f"{7:>{width}}" with width 9 is 9 characters; str(c) and f"{c!s}" call its
    __str__ ("abcdefgh": 8); f"{c}" calls __format__ ("xy": 2); repr(c) and f"{c!r}" call
    __repr__ ("R": 1); f"{c!r:>6}" pads that to 6."""
    got = run_probes(tmp_path, """
        class Cfg:
            def __str__(self):
                return "abcdefgh"

            def __format__(self, spec):
                return "xy"

            def __repr__(self):
                return "R"
        """, """
        c = Cfg()
        width = 9
        a = len(f"{2.5:.3f}")
        b = len(f"{'ab'!r}")
        d = len(f"{7:>5}")
        e = len(f"{7:>{width}}")
        f = len(str(c)) * 10 + len(f"{c!s}")
        g = len(f"{c}")
        h = len(repr(c)) * 10 + len(f"{c!r}")
        i = len(f"{c!r:>6}")
        """, ["a", "b", "d", "e", "f", "g", "h", "i"])
    assert got == {"a": 5, "b": 4, "d": 5, "e": 9, "f": 88, "g": 2, "h": 11, "i": 6}


def test_f_string_text_reads_escapes_and_doubled_braces_and_bad_int_raises(tmp_path):
    """CPython: f"a\\tb{w}é\\n{{}}" with w = 3 is a, tab, b, 3, é, newline, {, }: 8 characters
    (the source text has 12); rf"a\\tb{w}" keeps the backslash: a, \\, t, b, 3 = 5.  int("x")
    raises ValueError, which the except clause catches: n = 7 (it used to be an unknown that the
    try body swallowed, running the else branch: 2)."""
    got = run_probes(tmp_path, "", r'''
        w = 3
        a = len(f"a\tb{w}é\n{{}}")
        b = len(rf"a\tb{w}")
        try:
            int("x")
        except ValueError:
            n = 7
        else:
            n = 2
        ''', ["a", "b", "n"])
    assert got == {"a": 8, "b": 5, "n": 7}


def test_a_repr_that_cannot_be_known_is_reported_only_where_it_matters(tmp_path):
    """An object's __repr__ calling something not modelled (json.dumps of an object) gives an
    unknown text: passed to a function that ignores it (a log call) it costs nothing and the
    report stays complete; used for a layer's width it is an unknown at that use."""
    source = """
        import json
        import torch.nn as nn

        class Cfg:
            def __repr__(self):
                return json.dumps(object())

        def log(message):
            return None

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                log(f"built with {Cfg()!r}")
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                return self.fc(x)
        """
    quiet = analyse(tmp_path, source)
    assert quiet.totals.complete and quiet.unknown == [], quiet.unknown
    used = analyse(tmp_path, source.replace("nn.Linear(4, 4)", "nn.Linear(4, len(repr(Cfg())))"))
    assert not used.totals.complete
    assert any("__repr__ of Cfg is not known" in u.what for u in used.unknown), used.unknown


def test_list_sort_dataclass_equality_and_the_iterator_protocol(tmp_path):
    """CPython: [3, 1, 2].sort() makes [1, 2, 3] (a: 1); .sort(key=neg) [3, 2, 1] (b: 3);
    .sort(reverse=True) [3, 2, 1] (c: 3); a dataclass compares its fields: D(1) == D(1) and not
    D(1) == D(2), while @dataclass(eq=False) keeps identity: d = 10 + 0 + 0 = 10; an object whose
    __iter__ returns self and whose __next__ raises StopIteration after 3 gives 1 + 2 + 3 = 6 (e),
    and next() on a fresh one gives 1, then next(it, 9) at the end gives 9: f = 1*10 + 9 = 19."""
    got = run_probes(tmp_path, """
        import dataclasses

        @dataclasses.dataclass
        class D:
            a: int
            b: int = 3

        @dataclasses.dataclass(eq=False)
        class Plain:
            a: int

        class Count:
            def __init__(self):
                self.i = 0

            def __iter__(self):
                return self

            def __next__(self):
                self.i += 1
                if self.i > 3:
                    raise StopIteration
                return self.i
        """, """
        x = [3, 1, 2]
        x.sort()
        a = x[0]
        y = [3, 1, 2]
        y.sort(key=lambda v: -v)
        b = y[0]
        z = [3, 1, 2]
        z.sort(reverse=True)
        c = z[0]
        d = 10 * (D(1) == D(1)) + (D(1) == D(2)) + (Plain(1) == Plain(1))
        e = sum(Count())
        it = Count()
        first = next(it)
        next(it)
        next(it)
        f = first * 10 + next(it, 9)
        """, ["a", "b", "c", "d", "e", "f"])
    assert got == {"a": 1, "b": 3, "c": 3, "d": 10, "e": 6, "f": 19}


def test_membership_uses_the_objects_own_equality(tmp_path):
    """CPython: `x in [y]` is `y is x or y == x`, so an object whose __eq__ compares a field is
    found in a list holding an equal one: a = 1; a list without one: b = 0; `not in` the
    negation: c = 1 (comparing by identity alone gave a = 0)."""
    got = run_probes(tmp_path, """
        class Key:
            def __init__(self, v):
                self.v = v

            def __eq__(self, other):
                return isinstance(other, Key) and self.v == other.v

            def __hash__(self):
                return hash(self.v)
        """, """
        a = int(Key(3) in [Key(1), Key(3)])
        b = int(Key(4) in (Key(1), Key(3)))
        c = int(Key(4) not in [Key(3)])
        """, ["a", "b", "c"])
    assert got == {"a": 1, "b": 0, "c": 1}


def test_contextmanager_runs_its_clean_up_after_the_with_block(tmp_path):
    """CPython: inside `with self.wide(2) as factor` the width is 8 and factor 2, so a is
    Linear(1, 16); after it the `finally` restored 4 (b: 4); an exception from the block runs
    the `finally` and propagates to the except clause, where the width is 4 again (c: 5).  A
    module-level @contextmanager yielding a value: d = 7 * 10 + 1 = 71 (set before, cleared
    after: inside 1, then 0).  (Run as a plain generator the clean-up came first: a was 4.)"""
    got = run_probes(tmp_path, """
        import contextlib

        @contextlib.contextmanager
        def flag(box):
            box.append(1)
            yield 7
            box.clear()

        class Holder:
            def __init__(self):
                self.width = 4

            @contextlib.contextmanager
            def wide(self, factor):
                old = self.width
                self.width = 8
                try:
                    yield factor
                finally:
                    self.width = old
        """, """
        h = Holder()
        with h.wide(2) as factor:
            a = h.width * factor
        b = h.width
        try:
            with h.wide(3):
                raise ValueError("inside")
        except ValueError:
            c = h.width + 1
        box = []
        with flag(box) as seven:
            d = seven * 10 + len(box)
        e = 100 + len(box)
        """, ["a", "b", "c", "d", "e"])
    assert got == {"a": 16, "b": 4, "c": 5, "d": 71, "e": 100}


def test_a_contextmanager_of_another_shape_runs_as_before_with_a_warning(tmp_path):
    """A yield inside a branch is not split: the function runs to its end on entering (its
    clean-up first), the `as` name gets the first yielded value, and the report says the order
    is not followed (SF131)."""
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent("""
        import contextlib
        import torch.nn as nn

        @contextlib.contextmanager
        def maybe(flag):
            if flag:
                yield 3
            else:
                yield 5

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                with maybe(True) as width:
                    self.fc = nn.Linear(1, width)

            def forward(self, x):
                return self.fc(x)
        """))
    report = staticflops.analyze(path, inputs=["1x1"])
    assert report.totals.params == 6  # Linear(1, 3): 3 weights + 3 biases
    assert any(d.code == "SF131" and "maybe" in d.message for d in report.diagnostics), report.diagnostics


def test_f_string_conversions_of_containers(tmp_path):
    """CPython: f"{[1, 2]!s}" is "[1, 2]" (6); f"{(3, 'a')!r}" is "(3, 'a')" (8); f"{[None]!s:>9}"
    pads "[None]" to 9 (ultralytics logs each layer's arguments this way)."""
    got = run_probes(tmp_path, "", """
        a = len(f"{[1, 2]!s}")
        b = len(f"{(3, 'a')!r}")
        c = len(f"{[None]!s:>9}")
        """, ["a", "b", "c"])
    assert got == {"a": 6, "b": 8, "c": 9}


def test_an_f_string_width_over_the_container_budget_stops_with_its_location(tmp_path):
    """`f"{1:>1000000000}"` would build a gigabyte: the analysis stops there, located, instead."""
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent('''
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.name = f"{1:>1000000000}"
                self.fc = nn.Linear(1, 1)

            def forward(self, x):
                return self.fc(x)
        '''))
    report = staticflops.analyze(path, inputs=["1x1"])
    assert report.partial and report.stopped.code and "--max-container" in report.stopped.message
    # line 7 of the file (after its blank first line); column 23: the field `1` (8 spaces,
    # `self.name = ` is 12 characters, then `f"{`)
    assert report.stopped.location.endswith(":7:23"), report.stopped.location


def test_more_of_itertools(tmp_path):
    """CPython: accumulate([1, 2, 3]) is [1, 3, 6] (a: 6), with operator.mul and initial=2:
    [2, 4, 12] (b: 12); islice(range(10), 2, 8, 3) is [2, 5] (c: 5), islice(range(10), 3) is
    [0, 1, 2] (d: 3 items); zip_longest([1, 2, 3], [4], fillvalue=0) is
    [(1, 4), (2, 0), (3, 0)] (e: 3 pairs, f: 0 the fill); pairwise("abcd") 3 pairs (g); 3
    permutations of 3 taken 2: 6 (h), of all 3: 6 (i)."""
    got = run_probes(tmp_path, "import itertools\nimport operator\n", """
        a = list(itertools.accumulate([1, 2, 3]))[-1]
        b = list(itertools.accumulate([2, 3], operator.mul, initial=2))[-1]
        c = list(itertools.islice(range(10), 2, 8, 3))[-1]
        d = len(list(itertools.islice(range(10), 3)))
        e = len(list(itertools.zip_longest([1, 2, 3], [4], fillvalue=0)))
        f = list(itertools.zip_longest([1, 2, 3], [4], fillvalue=0))[2][1] + 1
        g = len(list(itertools.pairwise("abcd")))
        h = len(list(itertools.permutations(range(3), 2)))
        i = len(list(itertools.permutations("abc")))
        """, ["a", "b", "c", "d", "e", "f", "g", "h", "i"])
    assert got == {"a": 6, "b": 12, "c": 5, "d": 3, "e": 3, "f": 1, "g": 3, "h": 6, "i": 6}


# ---- the standard library over the analysed program's environment (--env) ----------------

def test_os_path_over_the_programs_environment(tmp_path):
    """expandvars/expanduser/abspath as posixpath computes them, with `--env` as os.environ and
    the project root as the working folder; os.listdir sorted; uuid4 a value; the OSError
    family.  Each probe is 1 when CPython gives the value written, else 0 (a width of 0 fails)."""
    (tmp_path / "data").mkdir()
    for name in ("b.txt", "a.txt"):
        (tmp_path / "data" / name).write_text("x")
    found = run_probes(tmp_path, "import os\nimport uuid\nfrom pathlib import Path\n", """
        # $NAME and ${NAME} from the environment; one it lacks is kept as written
        expand = int(os.path.expandvars("$CACHE/x/${NAME}/$MISSING") == "/data/x/hub/$MISSING")
        home = int(os.path.expanduser("~/.cache") == "/home/u/.cache" and os.path.expanduser("~") == "/home/u"
                   and os.path.expanduser("a/~b") == "a/~b" and str(Path("~/m").expanduser()) == "/home/u/m")
        # absolute: normalised; relative: from the project root, where the program runs
        absolute = int(os.path.abspath("/a/b/../c") == "/a/c"
                       and os.path.abspath("data") == os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
        listing = int(os.listdir(os.path.join(os.path.dirname(__file__), "data")) == ["a.txt", "b.txt"])
        # uuid4(): one value of the right form (random in CPython: no cost may depend on it)
        tag = uuid.uuid4()
        ident = int(len(tag.hex) == 32 and str(tag).count("-") == 4 and tag.hex[12] == "4")
        try:
            raise ConnectionRefusedError("no network")
        except OSError as error:
            caught = int(isinstance(error, ConnectionError) and not isinstance(error, TimeoutError))
        try:
            os.listdir(os.path.join(os.path.dirname(__file__), "absent"))
            missing = 0
        except FileNotFoundError:
            missing = 1
    """, ["expand", "home", "absolute", "listing", "ident", "caught", "missing"],
        env=["CACHE=/data", "NAME=hub", "HOME=/home/u"])
    assert found == dict.fromkeys(["expand", "home", "absolute", "listing", "ident", "caught", "missing"], 1)


def test_a_program_probe_finds_no_program(tmp_path):
    """staticflops runs no program: to the analysed code each is missing, as on a machine without
    it (CPython raises FileNotFoundError, an OSError).  A probe inside `try` answers "absent"
    (transformers' is_ninja_available), the exception's family is Python's, and a model that
    needs a program's output fails where it asks."""
    found = run_probes(tmp_path, "import subprocess\n", """
        try:
            subprocess.check_output(["ninja", "--version"])
            ninja = 0
        except Exception:
            ninja = 1
        try:
            subprocess.run("nvidia-smi", capture_output=True, check=True)
            smi = 0
        except FileNotFoundError as error:
            smi = int(isinstance(error, OSError) and error.filename == "nvidia-smi")
        family = int(issubclass(subprocess.CalledProcessError, subprocess.SubprocessError)
                     and subprocess.PIPE == -1)
    """, ["ninja", "smi", "family"])
    assert found == {"ninja": 1, "smi": 1, "family": 1}
    with pytest.raises(AnalysisError, match="No such file or directory") as raised:
        analyse(tmp_path, """
            import subprocess
            import torch.nn as nn


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    width = int(subprocess.check_output(["nproc"]))
                    self.fc = nn.Linear(1, width)

                def forward(self, x):
                    return self.fc(x)
        """, inputs=("1x1",), model="Net")
    assert raised.value.location is not None and raised.value.location.line == 9
    assert "[Errno 2] No such file or directory (staticflops runs no program): 'nproc'" in raised.value.message
    # (errno, strerror) args are printed that way for the OSError family only, as CPython does
    with pytest.raises(AnalysisError) as other:
        analyse(tmp_path, """
            import torch.nn as nn


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    raise ValueError(3, "bad width")
        """, inputs=("1x1",), model="Net")
    assert "Errno" not in other.value.message


def test_home_and_folders_outside_stay_unknown(tmp_path):
    """Without HOME, `~` needs the machine's password database; a folder outside the project
    is not listed: both are located unknowns, not guesses."""
    report = analyse(tmp_path, """
        import os
        import torch.nn as nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(1, len(os.path.expanduser("~")))
                self.b = nn.Linear(1, len(os.listdir("/etc")))

            def forward(self, x):
                return x
    """)
    whats = [u.what for u in report.unknown]
    assert any("asks the machine for a home folder" in w for w in whats), whats
    assert any("os.listdir('/etc'): outside the analysed project" in w for w in whats), whats


def test_enum_members_that_mix_in_str_are_their_strings(tmp_path):
    """`class PeftType(str, Enum)` (and StrEnum): CPython's members are str instances equal to,
    and hashed as, their values, with str's methods; still members (`is`, `.name`, `.value`).
    peft's registries are keyed by members and read with plain strings.  Each probe is 1 when
    CPython gives the value written."""
    found = run_probes(tmp_path, """
        import enum


        class PeftType(str, enum.Enum):
            LORA = "LORA"
            IA3 = "IA3"


        class Mode(enum.StrEnum):
            FAST = "fast"


        REGISTRY = {PeftType.LORA: 5}
    """, """
        listed = int("LORA" in list(PeftType) and PeftType.LORA == "LORA" and PeftType.LORA != "IA3")
        keyed = REGISTRY["LORA"] if "LORA" in REGISTRY else 0          # 5: the member's hash is the string's
        member = int(PeftType("IA3") is PeftType.IA3 and getattr(PeftType, "LORA") is PeftType.LORA
                     and PeftType.LORA.name == "LORA" and PeftType.LORA.value == "LORA")
        methods = int(PeftType.LORA.lower() == "lora" and isinstance(PeftType.LORA, str) and len(Mode.FAST) == 4
                      and Mode.FAST.upper() == "FAST" and Mode.FAST == "fast")
        # CPython 3.11's text: str() and f-strings "PeftType.LORA" (6 + 1 + 4 = 13 characters)
        # for a (str, Enum) member, the value for StrEnum; `+` uses the value
        shown = len(str(PeftType.LORA)) + len(f"{PeftType.IA3}")      # 13 + 12 = 25
        joined = len("x" + PeftType.LORA + str(Mode.FAST) + f"{Mode.FAST}")   # 1 + 4 + 4 + 4 = 13
        quoted = len(repr(PeftType.LORA))                              # "<PeftType.LORA: 'LORA'>": 23
    """, ["listed", "keyed", "member", "methods", "shown", "joined", "quoted"])
    assert found == {"listed": 1, "keyed": 5, "member": 1, "methods": 1, "shown": 25, "joined": 13, "quoted": 23}


def test_id_attrgetter_itemgetter_and_moduledict_update(tmp_path):
    """peft's plumbing: `id(p) in seen` over parameters, `operator.attrgetter("a.b")(obj)`,
    `ModuleDict.update(nn.ModuleDict({...}))`.  Each probe is the value CPython gives."""
    found = run_probes(tmp_path, """
        import operator


        class Box:
            def __init__(self):
                self.inner = Box2()


        class Box2:
            width = 6
    """, """
        a, b = Box(), Box()
        same = int(id(a) == id(a) and id(a) != id(b) and len({id(a), id(b), id(a)}) == 2)   # 1
        dotted = operator.attrgetter("inner.width")(a)                                     # 6
        pair = sum(operator.itemgetter(0, 2)([3, 9, 4]))                                    # 3 + 4 = 7
        blocks = nn.ModuleDict({"x": nn.Linear(1, 1)})
        blocks.update(nn.ModuleDict({"y": nn.Linear(1, 1), "z": nn.Identity()}))
        keys = len(blocks) + 10 * int(list(blocks.keys()) == ["x", "y", "z"])               # 3 + 10 = 13
    """, ["same", "dotted", "pair", "keys"])
    assert {name: found[name] for name in ("same", "dotted", "pair", "keys")} == {"same": 1, "dotted": 6, "pair": 7,
                                                                                  "keys": 13}


@pytest.mark.parametrize("pattern, subject, why", [
    # a possessive repeat never gives back: nested inside one, a repeat runs once per iteration
    (r"(?:\.[0-9]++)*+x", ".1" * 100, None),
    (r"(?:a|b)*+c", "ab" * 100, None),
    # ...but inside a repeat that may give back, it is any repeat (CPython: exponential)
    (r"(?:a++)*b", "a" * 300, "a repeat inside a repeat"),
    (r"(?:(a+)+)*+b", "a" * 300, "a repeat inside a repeat"),
])
def test_re_bounds_possessive_repeats(tmp_path, pattern, subject, why):
    # CPython 3.11: re.search(r"(?:\.[0-9]++)*+x", ".1" * 100) is None (no x), as is
    # re.search(r"(?:a|b)*+c", "ab" * 100); both run in linear time
    source = f"""
import re
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        found = re.search(r"{pattern}", "{subject}")
        self.fc = nn.Linear(1, 2 if found is None else 3)

    def forward(self, x):
        return self.fc(x)
"""
    report = analyse(tmp_path, source, inputs=["1x1"])
    reasons = [u.what for u in report.unknown]
    if why is None:
        assert reasons == [] and widths(report) == {"fc": 2}
    else:
        assert any(why in r for r in reasons), reasons


def test_packaging_style_version_pattern_runs(tmp_path):
    # packaging 26's VERSION_PATTERN shape (possessive on CPython >= 3.11.5, which is what the
    # analysis models): "5.0.0.dev0" parses to release (5, 0, 0) and dev 0 -> 5 + 0 + 0 + 1
    found = run_probes(tmp_path, """
import re
import sys
PATTERN = r'''
    v?+
    (?:(?P<epoch>[0-9]++)!)?+
    (?P<release>[0-9]++(?:\\.[0-9]++)*+)
    (?P<dev>[._-]?+(?P<dev_l>dev)[._-]?+(?P<dev_n>[0-9]++)?+)?+
'''
if sys.version_info < (3, 11, 5):
    PATTERN = PATTERN.replace("++", "+").replace("*+", "*").replace("?+", "?")
MATCH = re.compile(r"\\s*" + PATTERN + r"\\s*", re.VERBOSE | re.IGNORECASE).fullmatch("5.0.0.dev0")
""", """
release = [int(part) for part in MATCH.group("release").split(".")]
n = sum(release) + 1 + int(MATCH.group("dev_n"))
""", ["n"])
    assert found == {"n": 6}


# ---- types at run time: typing.get_origin/get_args, dataclasses.fields -------------------

def test_typing_origins_and_arguments(tmp_path):
    # Each check is what CPython 3.11 answers (True); n counts them: 25 listed + the TypeError
    # of isinstance(3, list[int]) + 1 = 27
    found = run_probes(tmp_path, """
import collections.abc
import types
from typing import (Annotated, Callable, Dict, List, Literal, Mapping, Optional, Sequence, Union,
                    get_args, get_origin)


class Meta:
    pass


CHECKS = [
    get_origin(list[int]) is list, get_args(list[int]) == (int,), get_origin(List[int]) is list,
    get_origin(int | None) is types.UnionType, get_args(int | None) == (int, type(None)),
    get_origin(Optional[int]) is Union, get_args(Optional[int]) == (int, type(None)),
    get_origin(Literal["a", "b"]) is Literal, get_args(Literal["a", "b"]) == ("a", "b"),
    get_origin(Annotated[int, Meta]) is Annotated, get_args(Annotated[int, Meta]) == (int, Meta),
    get_origin(Sequence[int]) is collections.abc.Sequence, get_origin(int) is None, get_args(int) == (),
    isinstance([], Sequence), isinstance({}, Mapping), isinstance(len, Callable),
    not isinstance(list[int], type), get_args(Callable[[int], str]) == ([int], str), Union[int] is int,
    list[int]() == [], Dict[str, int] == Dict[str, int], isinstance(3, Optional[int]),
    get_args(tuple[int, ...])[1] is Ellipsis, ... is Ellipsis,
]
try:
    isinstance(3, list[int])
except TypeError:
    CHECKS.append(True)
""", "n = sum(CHECKS) + 1", ["n"])
    assert found == {"n": 27}


def test_dataclass_fields_carry_type_and_metadata(tmp_path):
    # CPython: Field.type is the evaluated annotation (int; list[str] | None), metadata the
    # mapping given to field() (empty otherwise): a = 1 + 1 + 1 + 1 = 4
    found = run_probes(tmp_path, """
from dataclasses import dataclass, field, fields


@dataclass
class Cfg:
    width: int = 4
    tags: list[str] | None = None
    scale: float = field(default=1.0, metadata={"validator": "positive"})


BY_NAME = {f.name: f for f in fields(Cfg)}
""", """
a = ((BY_NAME["width"].type is int) + (BY_NAME["tags"].type == (list[str] | None))
     + (BY_NAME["scale"].metadata["validator"] == "positive") + (BY_NAME["width"].metadata.get("x") is None))
""", ["a"])
    assert found == {"a": 4}


def test_postponed_annotations_are_their_text(tmp_path):
    # PEP 563: with `from __future__ import annotations` CPython keeps "int" and
    # "list[str] | None" as strings: len("int") + len("list[str] | None") = 3 + 16 = 19
    found = run_probes(tmp_path, """
from __future__ import annotations
from dataclasses import dataclass, fields


@dataclass
class Cfg:
    width: int = 4
    tags: list[str] | None = None


TYPES = [f.type for f in fields(Cfg)]
""", "n = len(TYPES[0]) + len(TYPES[1])", ["n"])
    assert found == {"n": 19}


def test_exception_text_is_its_argument(tmp_path):
    # CPython: str(TypeError("bad")) == "bad", repr == "TypeError('bad')", str() of no
    # argument "", of two "('a', 1)": 3 + 16 + 0 + 8 = 27
    found = run_probes(tmp_path, "", """
n = len(f"{TypeError('bad')}") + len(repr(TypeError("bad"))) + len(str(ValueError())) + len(str(KeyError("a", 1)))
""", ["n"])
    assert found == {"n": 27}


def test_a_getattr_that_forwards_a_missing_name_makes_hasattr_false(tmp_path):
    # peft's tuners: __getattr__ asks nn.Module, then the wrapped model, whose missing
    # attribute raises AttributeError, so hasattr is False: a = 2, b = 3 (the wrapped one's)
    found = run_probes(tmp_path, """
class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.known = 3


class Wrapper(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = Inner()

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name == "model":
                raise
            return getattr(self.model, name)


W = Wrapper()
""", """
a = 1 if hasattr(W, "peft_config") else 2
b = W.known
""", ["a", "b"])
    assert found == {"a": 2, "b": 3}


def test_try_except_attribute_error_catches_a_missing_attribute(tmp_path):
    # operator.attrgetter("quantizer.config")(module) raises AttributeError in CPython
    # (nn.Module has no such attribute): the handler runs, a = 2
    found = run_probes(tmp_path, "import operator", """
try:
    a = operator.attrgetter("quantizer.config")(nn.Linear(1, 1))
except AttributeError:
    a = 2
""", ["a"])
    assert found == {"a": 2}


def test_membership_in_module_containers(tmp_path):
    # ModuleDict/ParameterDict test their keys; register_buffer's names are in _buffers:
    # a = 1 + 1 + 0 + 1 = 3, b = 4 (a parameter is a leaf)
    found = run_probes(tmp_path, "import torch", """
blocks = nn.ModuleDict({"a": nn.Linear(1, 1)})
params = nn.ParameterDict({})
holder = nn.Module()
holder.register_buffer("scale", torch.ones(1))
a = ("a" in blocks) + ("b" not in blocks) + ("a" in params) + ("scale" in holder._buffers)
b = 4 if nn.Linear(1, 1).weight.is_leaf else 5
""", ["a", "b"])
    assert found == {"a": 3, "b": 4}


def test_special_methods_of_a_module_subclass_run(tmp_path):
    """An nn.Module whose own ``__setitem__``/``__len__``/``__contains__``/``__getitem__`` keep
    buffers (peft's BufferDict): they run, as in Python, instead of the module-container
    behaviour.  The buffer count sizes a Linear(8, 4 * 1): 2 x 8 input, 2*2*8*4 = 128 FLOPs."""
    report = analyse(tmp_path, """\
        import torch
        import torch.nn as nn


        class BufferDict(nn.Module):
            def __setitem__(self, key, buffer):
                self.register_buffer(key, buffer)

            def __getitem__(self, key):
                return self._buffers[key]

            def __len__(self):
                return len(self._buffers)

            def __contains__(self, key):
                return key in self._buffers


        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.d = BufferDict()
                self.d["a"] = torch.zeros(4, 8)
                assert "a" in self.d and "b" not in self.d
                self.l = nn.Linear(8, len(self.d) * 4)

            def forward(self, x):
                return self.l(x) + self.d["a"].sum()
        """, inputs=("2x8",), model="M")
    assert report.totals.complete
    assert report.totals.forward_flops == 128


def test_super_in_a_method_called_through_its_class(tmp_path):
    """``AdaLoraLayer.__init__(self, base)`` called from a subclass's ``__init__``: its
    ``super().__init__(base)`` starts after AdaLoraLayer in the instance's MRO (LoraLayer, which
    stores the base layer), not after the caller's class (nn.Module), as CPython's ``__class__``
    cell has it (peft's AdaLoRA).  The stored Linear(8, 8) on 2 x 8: 2*2*8*8 = 256 FLOPs."""
    report = analyse(tmp_path, """\
        import torch.nn as nn


        class LoraLayer:
            def __init__(self, base_layer, **kwargs):
                self.base_layer = base_layer


        class AdaLoraLayer(LoraLayer):
            def __init__(self, base_layer):
                super().__init__(base_layer)


        class SVDLinear(nn.Module, AdaLoraLayer):
            def __init__(self, base_layer):
                super().__init__()
                AdaLoraLayer.__init__(self, base_layer)

            def forward(self, x):
                return self.base_layer(x)


        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.s = SVDLinear(nn.Linear(8, 8))

            def forward(self, x):
                return self.s(x)
        """, inputs=("2x8",), model="M")
    assert report.totals.complete, [u.what for u in report.unknown]
    assert report.totals.forward_flops == 256
