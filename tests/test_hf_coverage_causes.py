"""Generic Python semantics behind the most frequent first causes of the transformers folder run
(tools/transformers_folder_run.py, docs/transformers.md "Coverage over the whole library").  Each snippet
mimics the library's pattern in a few lines, with no torch needed: a value the interpreter must
get right becomes a layer width, and the expected parameter count is CPython's answer worked
out by hand in the comment next to it."""

import textwrap

import staticflops


def analyse(tmp_path, source, inputs=("1x1",)):
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent(source))
    return staticflops.analyze(path, inputs=list(inputs))


def params(report):
    return {row.name: row.params for row in report.layers if row.type == "Linear"}


# transformers' ModelOutput: an OrderedDict dataclass whose __setattr__/__setitem__ keep the
# dict keys and the attributes in step; backbones rebuild their output from `.items()`.
MODEL_OUTPUT = """
import torch.nn as nn
from collections import OrderedDict
from dataclasses import dataclass, fields


class Output(OrderedDict):
    def __post_init__(self):
        first = fields(self)[0].name
        value = getattr(self, first)
        if all(self.__dict__.get(f.name) is None for f in fields(self)[1:]) and isinstance(value, tuple):
            setattr(self, first, None)
            super().__delitem__(first)
            self[first] = value

    def __setattr__(self, name, value):
        if value is not None:
            super().__setitem__(name, value)
        super().__setattr__(name, value)

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        super().__setattr__(key, value)


@dataclass
class BackboneOutput(Output):
    feature_maps: tuple = None
    hidden_states: tuple = None
"""


def test_dataclass_init_runs_the_class_setattr(tmp_path):
    report = analyse(tmp_path, MODEL_OUTPUT + """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        full = BackboneOutput(feature_maps=(1, 2), hidden_states=(3,))
        # CPython: the generated __init__ does `self.feature_maps = ...`, so Output.__setattr__
        # stores both non-None fields as keys: len 2 -> Linear(1, 2) = 2 weights + 2 biases = 4
        self.keys = nn.Linear(1, len(full))

    def forward(self, x):
        return x
""")
    assert params(report) == {"keys": 4}


def test_a_dict_subclass_setitem_written_in_the_code_runs(tmp_path):
    report = analyse(tmp_path, MODEL_OUTPUT + """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        out = BackboneOutput(feature_maps=(1, 2), hidden_states=(3,))
        kept = {k: v for k, v in out.items() if k != "hidden_states"}
        # CPython: only feature_maps is given, so __post_init__ deletes the key and re-adds it
        # with `self[first] = value`, whose __setitem__ also sets the attribute back:
        # feature_maps == (1, 2), keys ['feature_maps'] -> Linear(1, 2) = 4, Linear(1, 1) = 2
        rebuilt = type(out)(**kept)
        self.second = nn.Linear(1, rebuilt.feature_maps[1])
        self.count = nn.Linear(1, len(rebuilt))

    def forward(self, x):
        return x
""")
    assert params(report) == {"second": 4, "count": 2}


def test_torch_finfo_and_iinfo_give_the_ieee_limits(tmp_path):
    report = analyse(tmp_path, """
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        # float32: eps = 2**-23, so 1 / eps = 8388608; max = (2 - 2**-23) * 2**127 > 3e38
        # float16: max = (2 - 2**-10) * 2**15 = 65504; iinfo(int8).max = 2**7 - 1 = 127
        # bfloat16: eps = 2**-7 -> 1 / eps = 128; finfo() is the default dtype, float32
        self.eps = nn.Linear(1, int(1 / torch.finfo(torch.float32).eps) // 2**20)   # 8 -> 16
        self.half = nn.Linear(1, int(torch.finfo(torch.float16).max) - 65500)      # 4 -> 8
        self.int8 = nn.Linear(1, torch.iinfo(torch.int8).max - 120)                 # 7 -> 14
        self.bf16 = nn.Linear(1, int(1 / torch.finfo(torch.bfloat16).eps) // 64)   # 2 -> 4
        self.big = nn.Linear(1, 3 if torch.finfo().max > 3e38 and torch.finfo().min < -3e38 else 5)  # 3 -> 6

    def forward(self, x):
        # attention masks: x.masked_fill(mask, torch.finfo(x.dtype).min) keeps the shape
        return x.masked_fill(x > 0, torch.finfo(x.dtype).min)
""")
    assert report.unknown == [], report.unknown
    assert params(report) == {"eps": 16, "half": 8, "int8": 14, "bf16": 4, "big": 6}


def test_isinstance_of_type_is_true_for_a_class(tmp_path):
    # transformers' @requires(backends=...) returns a class unchanged (`isinstance(fun, type)`)
    # and wraps a function; @dataclass above it then needs the class back
    report = analyse(tmp_path, """
import functools
from dataclasses import dataclass
import torch.nn as nn


def requires(*, backends=()):
    def inner(fun):
        if isinstance(fun, type):
            fun.backends = backends
            return fun

        @functools.wraps(fun)
        def wrapper(*args, **kwargs):
            return fun(*args, **kwargs)
        return wrapper
    return inner


@dataclass
@requires(backends=("torch",))
class Recorder:
    index: int = 0
    size: int = 3


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        # Recorder(size=5).size = 5 -> Linear(1, 5) = 10; isinstance(nn.Module, type) and
        # not isinstance(self, type) -> Linear(1, 1) = 2
        self.rec = nn.Linear(1, Recorder(size=5).size)
        self.kinds = nn.Linear(1, 1 if isinstance(nn.Module, type) and not isinstance(self, type) else 3)

    def forward(self, x):
        return x
""")
    assert report.unknown == [], report.unknown
    assert params(report) == {"rec": 10, "kinds": 2}


# transformers' capture_outputs: forward hooks on the layers append each output to a collector
# that a ContextVar holds while the decorated forward runs
CAPTURE = """
import threading
from contextvars import ContextVar
from functools import wraps

import torch
import torch.nn as nn

_collector = ContextVar("collector", default=None)
_lock = threading.Lock()


def install(module):
    def hook(mod, args, output):
        collected = _collector.get()
        if collected is None:
            return
        if len(collected) == 0:
            collected.append(args[0])
        collected.append(output)
    return module.register_forward_hook(hook)


def capture(func):
    @wraps(func)
    def wrapper(self, *args, **kwargs):
        collected = []
        with _lock:
            if not self.hooked:
                for layer in self.layers:
                    install(layer)
                self.hooked = True
        token = _collector.set(collected)
        try:
            out = func(self, *args, **kwargs)
        finally:
            _collector.reset(token)
        return out, tuple(collected)
    return wrapper


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])
        self.hooked = False

    @capture
    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
"""


def test_forward_hooks_run_and_a_context_var_holds_the_collector(tmp_path):
    report = analyse(tmp_path, CAPTURE + """

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.heads = nn.ModuleList([nn.Linear(4, 2) for _ in range(4)])

    def forward(self, x):
        first, hidden = self.encoder(x)
        second, again = self.encoder(x)   # a second call collects afresh: 4 again, not 8
        outside = _collector.get()         # reset after the call: the default, None
        # the input + the 3 layer outputs = 4 hidden states, each through its own head: 1x(4*2)
        out = torch.cat([head(h) for head, h in zip(self.heads, hidden)], dim=-1)
        return out[:, : len(again) + (0 if outside is None else 100)]
""", inputs=("1x4",))
    assert report.unknown == [], report.unknown
    # encoder: 2 calls x 3 Linear(4, 4) = 6 x 2*4*4 = 192 FLOPs; heads 4 x 2*4*2 = 64 FLOPs
    assert report.totals.forward_flops == 192 + 64
    assert report.outputs == [[1, 4]]  # len(again) == 4 and outside is None


def test_a_hook_returning_a_value_replaces_the_output_and_remove_takes_it_out(tmp_path):
    report = analyse(tmp_path, """
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 6)
        self.a.register_forward_pre_hook(lambda mod, args: (args[0][:, :4],))
        handle = self.b.register_forward_hook(lambda mod, args, out: out[:, :2])
        handle.remove()
        self.a.register_forward_hook(lambda mod, args, out: out[:, :4])

    def forward(self, x):
        return self.b(self.a(x))
""", inputs=("1x8",))
    assert report.unknown == [], report.unknown
    # the pre-hook slices 1x8 to 1x4 before Linear(4, 4); the removed hook leaves b's 1x6 output
    assert report.outputs == [[1, 6]]


def test_a_torch_folder_inside_the_analysed_tree_is_never_read(tmp_path):
    # analysing a site-packages folder puts torch's own source inside the project: torch is
    # modelled, never read (transformers' `import torch.utils._pytree` ran torch's pytree code)
    for folder in (tmp_path / "torch", tmp_path / "torch" / "utils"):
        folder.mkdir()
        (folder / "__init__.py").write_text("")
    (tmp_path / "torch" / "utils" / "_pytree.py").write_text("WIDTH = 3\n")
    report = analyse(tmp_path, """
import torch.nn as nn
import torch.utils._pytree as pytree


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(1, pytree.WIDTH)  # read from the folder: Linear(1, 3), 6 params

    def forward(self, x):
        return x
""")
    assert "`torch.utils._pytree` is not modelled" in [u.what for u in report.unknown]
    assert report.totals.params == 0


def test_weight_norm_adds_the_magnitude_parameters(tmp_path):
    # wav2vec2-style position convolution: hasattr(nn.utils.parametrizations, "weight_norm")
    report = analyse(tmp_path, """
import torch.nn as nn
from torch.nn.utils import weight_norm as legacy


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        weight_norm = nn.utils.weight_norm
        if hasattr(nn.utils.parametrizations, "weight_norm"):
            weight_norm = nn.utils.parametrizations.weight_norm
        self.conv = weight_norm(nn.Conv1d(8, 8, kernel_size=4, padding=2, groups=2), name="weight", dim=2)
        self.lin = legacy(nn.Linear(3, 5))
        self.whole = weight_norm(nn.Linear(3, 5), dim=None)

    def forward(self, x):
        return self.conv(x)
""", inputs=("1x8x16",))
    assert report.unknown == [], report.unknown
    # conv: weight 8 x (8/2) x 4 = 128, bias 8, g along dim 2: (1, 1, 4) = 4 -> 140
    # lin: weight 15 + bias 5 + g along dim 0: (5, 1) = 5 -> 25; whole: 15 + 5 + one scalar g -> 21
    # (torch 2.13 named_parameters agree: parametrizations.weight.original0 (1, 1, 4))
    assert params(report) == {"lin": 25, "whole": 21} and report.totals.params == 140 + 25 + 21


def test_an_unknown_value_stored_in_a_dict_subclass_keeps_its_key(tmp_path):
    # FNet's encoder output held an unmodelled torch.fft result: `outputs[0]` must give that
    # unknown (its first cause located), not "index 0 is out of range for ()"
    report = analyse(tmp_path, """
import torch
import torch.nn as nn
from collections import OrderedDict


class Output(OrderedDict):
    def __setitem__(self, key, value):
        super().__setitem__(key, value)


class Net(nn.Module):
    def forward(self, x):
        out = Output()
        out["mixed"] = torch.sparse.mm(x, x)  # unmodelled (torch.fft, FNet's, is modelled since)
        out["plain"] = x
        # two keys, in order -> x[:, :2] is 1x2
        return x[:, : len(out.keys())]
""", inputs=("1x4",))
    assert [u.what for u in report.unknown] == ["`torch.sparse` is not modelled"]
    assert report.outputs == [[1, 2]]


def test_a_property_setter_calls_its_base_property_through_dunder_set(tmp_path):
    # transformers' HrmTextConfig: `PreTrainedConfig._attn_implementation.__set__(self, value)`
    report = analyse(tmp_path, """
import torch.nn as nn


class Base:
    def __init__(self):
        self._impl = None
        self.impl = "sdpa"

    @property
    def impl(self):
        return self._impl

    @impl.setter
    def impl(self, value):
        self._impl = value + "!"


class Child(Base):
    @property
    def impl(self):
        return self._impl

    @impl.setter
    def impl(self, value):
        Base.impl.__set__(self, value + "?")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        c = Child()
        # Child's setter adds "?", Base's adds "!": "sdpa?!" has 6 characters -> Linear(1, 6) = 12
        self.set = nn.Linear(1, len(c.impl))
        self.get = nn.Linear(1, len(Base.impl.__get__(c)))

    def forward(self, x):
        return x
""")
    assert report.unknown == [], report.unknown
    assert params(report) == {"set": 12, "get": 12}


def test_getattr_with_a_default_takes_it_when_a_property_getter_raises_attribute_error(tmp_path):
    # transformers' PreTrainedConfig: the `_attn_implementation` setter first reads
    # getattr(self, "_attn_implementation", None), whose getter reads an attribute not set yet
    report = analyse(tmp_path, """
import torch.nn as nn


class Config:
    def __init__(self):
        self.impl = "sdpa"

    @property
    def impl(self):
        return self._impl_internal

    @impl.setter
    def impl(self, value):
        current = getattr(self, "impl", None)
        self._impl_internal = value if current is None else current + value


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        c = Config()
        c.impl = "++"
        # first set: the getter raises AttributeError, getattr gives None -> "sdpa";
        # second: "sdpa" + "++" = "sdpa++", 6 characters -> Linear(1, 6) = 12
        self.l = nn.Linear(1, len(c.impl))

    def forward(self, x):
        return x
""")
    assert report.unknown == [], report.unknown
    assert params(report) == {"l": 12}


def test_grid_sample_gives_the_grid_s_spatial_shape(tmp_path):
    report = analyse(tmp_path, """
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def forward(self, x):
        # deformable attention: values (8, 32, 28, 28) sampled at (8, 300, 4, 2) points -> (8, 32, 300, 4)
        grid = torch.zeros(8, 300, 4, 2)
        volume = F.grid_sample(torch.zeros(1, 3, 5, 6, 7), torch.zeros(1, 2, 3, 4, 3), align_corners=False)
        return F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False), volume
""", inputs=("8x32x28x28",))
    assert report.unknown == [], report.unknown
    assert report.outputs == [[8, 32, 300, 4], [1, 3, 2, 3, 4]]  # 5-D: (N, C) + grid's (2, 3, 4)
    # FlopCounterMode has no formula for grid_sampler: 0 (torch 2.13.0 CPU, measured on these shapes)
    assert report.totals.forward_flops == 0


def test_function_code_globals_and_function_type_copy(tmp_path):
    # transformers: copy_func(_BaseAutoModelClass.from_config) through types.FunctionType, and
    # merge_with_config_defaults' func.__code__.co_varnames.index("use_cache") (CPython 3.11 gives
    # the same three numbers for this file with the Linear layers taken out: 5, 2, 3)
    report = analyse(tmp_path, """
import functools
import types
import torch.nn as nn


def copy_func(f):
    g = types.FunctionType(f.__code__, f.__globals__, name=f.__name__, argdefs=f.__defaults__, closure=f.__closure__)
    g = functools.update_wrapper(g, f)
    g.__kwdefaults__ = f.__kwdefaults__
    return g


class Base:
    @classmethod
    def build(cls, width, extra=2, *rest, scale=1, **kw):
        inside = width * scale
        return inside + extra


class Auto(Base):
    pass


build = copy_func(Base.build)
build.__doc__ = "rewritten"
Auto.build = classmethod(build)


def merge(func):
    names = func.__code__.co_varnames
    return names.index("use_cache") - 1


def forward_like(self, input_ids, attention_mask=None, use_cache=None, **kwargs):
    hidden = 1
    return hidden


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        # Auto.build(3) = 3 * 1 + 2 = 5 -> Linear(1, 5) = 10; the original's doc is untouched (None)
        self.copy = nn.Linear(1, Auto.build(3) if Base.build.__doc__ is None else 1)
        # co_varnames: self, input_ids, attention_mask, use_cache, kwargs, hidden: index 3 - 1 = 2 -> 4
        self.index = nn.Linear(1, merge(forward_like))
        # __defaults__ (2,), __kwdefaults__ {'scale': 1}: 2 + 1 = 3 -> 6
        self.defaults = nn.Linear(1, Base.build.__defaults__[0] + Base.build.__kwdefaults__["scale"])

    def forward(self, x):
        return x
""")
    assert report.unknown == [], report.unknown
    assert params(report) == {"copy": 10, "index": 4, "defaults": 6}


def test_cat_skips_one_dimensional_empty_tensors(tmp_path):
    # transformers' DynamicLayer cache: keys = torch.tensor([]); keys = torch.cat([keys, k], dim=-2)
    report = analyse(tmp_path, """
import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x):
        keys = torch.tensor([], dtype=x.dtype)
        keys = torch.cat([keys, x], dim=-2)      # the empty (0,) is skipped: 1x2x5x8
        keys = torch.cat([keys, x], dim=-2)      # 1x2x10x8
        return keys
""", inputs=("1x2x5x8",))
    assert report.unknown == [], report.unknown
    assert report.outputs == [[1, 2, 10, 8]]


def test_inspect_signature_of_a_dataclass_init_lists_its_fields(tmp_path):
    # transformers' Qwen2-VL config: inspect.signature(TextConfig.__init__).parameters.keys()
    # (CPython 3.11: 'self' + 3 fields on __init__, 3 on the class; hidden_size's default 64)
    report = analyse(tmp_path, """
import inspect
from dataclasses import dataclass, field
import torch.nn as nn


@dataclass
class TextConfig:
    hidden_size: int = 64
    layers: int = 2
    names: list = field(default_factory=list)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        params = list(inspect.signature(TextConfig.__init__).parameters.keys())
        on_class = list(inspect.signature(TextConfig).parameters)
        # ['self', 'hidden_size', 'layers', 'names'] -> 4; the class's signature drops self -> 3
        self.l = nn.Linear(1, len(params) * 10 + len(on_class))
        self.d = nn.Linear(1, inspect.signature(TextConfig).parameters["hidden_size"].default)

    def forward(self, x):
        return x
""")
    assert report.unknown == [], report.unknown
    assert params(report) == {"l": 86, "d": 128}


def test_dict_fromkeys(tmp_path):
    report = analyse(tmp_path, """
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        states = dict.fromkeys(range(3))            # {0: None, 1: None, 2: None}
        flags = dict.fromkeys(range(3), False)
        # 3 keys, all None, all False -> Linear(1, 3 + 2) = 10
        self.l = nn.Linear(1, len(states) + (2 if all(v is None for v in states.values()) and not any(flags.values()) else 0))

    def forward(self, x):
        return x
""")
    assert report.unknown == [], report.unknown
    assert params(report) == {"l": 10}


def test_object_getattribute_called_by_the_code_raises_attribute_error(tmp_path):
    # transformers' HeterogeneousConfigMixin: `try: return super().__getattribute__(key)
    # except AttributeError: return default` (CPython 3.11 gives None, 7 and 4 for a, b, c)
    report = analyse(tmp_path, """
import torch.nn as nn


class Config:
    def __init__(self):
        self.sliding_window = 256

    def __getattribute__(self, key):
        return super().__getattribute__(key)

    def get_plain(self, key, default=None):
        try:
            return super().__getattribute__(key)
        except AttributeError:
            return default


class WithFallback(Config):
    def __getattr__(self, key):
        return 7


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        c = Config()
        chunk = c.get_plain("attention_chunk_size", None)
        # the missing attribute raises AttributeError inside get_plain: None -> Linear(1, 3)
        self.a = nn.Linear(1, 3 if chunk is None else 5)
        # __getattribute__ raises AttributeError, then __getattr__ answers 7 -> Linear(1, 7)
        self.b = nn.Linear(1, WithFallback().missing)
        self.c = nn.Linear(1, c.sliding_window // 64)   # 4
        self.d = nn.Linear(1, c.not_set)   # a plain read of a missing attribute: a located unknown

    def forward(self, x):
        return x
""")
    assert [u.what for u in report.unknown][:1] == ["Config has no attribute `not_set`"]
    assert params(report) == {"a": 6, "b": 14, "c": 8, "d": 0}


def test_itertools_cycle_beside_finite_iterables_in_zip(tmp_path):
    # transformers' tie_weights: for target, source in zip(targets, cycle(sources))
    report = analyse(tmp_path, """
from itertools import cycle
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        pairs = list(zip(["a", "b", "c", "d", "e"], cycle([1, 2])))
        # [('a', 1), ('b', 2), ('c', 1), ('d', 2), ('e', 1)]: 5 pairs, sources summing to 7
        self.l = nn.Linear(1, len(pairs) * 10 + sum(s for _, s in pairs))   # 57 -> 114

    def forward(self, x):
        return x
""")
    assert report.unknown == [], report.unknown
    assert params(report) == {"l": 114}


def test_masked_scatter_keeps_the_shape(tmp_path):
    report = analyse(tmp_path, """
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, embeds, image_features):
        mask = (embeds > 0)
        merged = embeds.masked_scatter(mask, image_features)   # the text embeddings' shape
        return self.proj(merged)   # 1x32x8 -> 1x32x8: 2 * 32 * 8 * 8 = 4096 FLOPs
""", inputs=("1x32x8", "4x8"))
    assert report.unknown == [], report.unknown
    assert report.outputs == [[1, 32, 8]] and report.totals.forward_flops == 4096


def test_init_fan_in_and_fan_out_and_gain(tmp_path):
    # transformers' lecun_normal_ -> _variance_scaling: `fan_in, fan_out =
    # torch.nn.init._calculate_fan_in_and_fan_out(tensor)` (ten vision-language files stopped here)
    report = analyse(tmp_path, """
import math
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        conv = nn.Conv2d(3, 4, 5)   # weight 4x3x5x5: receptive field 25 -> fan_in 75, fan_out 100
        fan_in, fan_out = torch.nn.init._calculate_fan_in_and_fan_out(conv.weight)
        self.fan_in = nn.Linear(1, fan_in)      # 75 -> 150
        self.fan_out = nn.Linear(1, fan_out // 10)   # 10 -> 20
        # calculate_gain('relu') = sqrt(2); ('leaky_relu', 0.2) = sqrt(2 / 1.04) = 1.3867...
        self.gain = nn.Linear(1, round(10 * nn.init.calculate_gain("relu")))   # 14 -> 28
        self.leaky = nn.Linear(1, int(100 * nn.init.calculate_gain("leaky_relu", 0.2)))   # 138 -> 276

    def forward(self, x):
        return x
""")
    assert report.unknown == [], report.unknown
    assert params(report) == {"fan_in": 150, "fan_out": 20, "gain": 28, "leaky": 276}


def test_numpy_scalar_maths_on_known_numbers(tmp_path):
    # EnCodec/Bark/X-codec configs: hop_length = int(np.prod(upsampling_ratios)); Mask2Former:
    # int(np.log2(stride) - np.log2(common_stride)); CTRL: x *= np.sqrt(d_model)
    report = analyse(tmp_path, """
import numpy as np
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.hop = nn.Linear(1, int(np.prod([8, 5, 4, 2])) // 32)          # 320 // 32 = 10 -> 20
        self.levels = nn.Linear(1, int(np.log2(32) - np.log2(4)))           # 5.0 - 2.0 = 3 -> 6
        self.root = nn.Linear(1, int(np.sqrt(64)) + int(np.floor(2.7)))     # 8 + 2 = 10 -> 20
        self.power = nn.Linear(1, np.power(2, 3) + int(np.sum((1, 2))))     # 8 + 3 = 11 -> 22
        self.empty = nn.Linear(1, 4 if np.prod([]) == 1.0 else 9)           # 1.0 -> 4 -> 8

    def forward(self, x):
        return x
""")
    assert report.unknown == [], report.unknown
    assert params(report) == {"hop": 20, "levels": 6, "root": 20, "power": 22, "empty": 8}


def test_hasattr_and_getattr_default_go_through_the_class_getattribute(tmp_path):
    # transformers' PreTrainedConfig.__getattribute__ maps attribute_map names (ZambaConfig:
    # layer_types -> layers_block_type); the cache reads `getattr(config, "layer_types", None)`
    report = analyse(tmp_path, """
import torch.nn as nn


class Config:
    attribute_map = {"layer_types": "layers_block_type"}

    def __init__(self):
        self.layers_block_type = ["linear_attention", "hybrid", "hybrid"]

    def __getattribute__(self, key):
        if key != "attribute_map" and key in super().__getattribute__("attribute_map"):
            key = super().__getattribute__("attribute_map")[key]
        return super().__getattribute__(key)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        c = Config()
        # CPython: hasattr is True through the map; getattr finds the 3-element list; a name
        # neither set nor mapped raises AttributeError inside __getattribute__: False / the default
        self.has = nn.Linear(1, 2 if hasattr(c, "layer_types") else 5)                  # 2 -> 4
        self.types = nn.Linear(1, len(getattr(c, "layer_types", None) or []))         # 3 -> 6
        self.first = nn.Linear(1, 4 if getattr(c, "layer_types")[0] == "linear_attention" else 6)  # 4 -> 8
        self.missing = nn.Linear(1, 7 if not hasattr(c, "sliding_window") else 9)     # 7 -> 14
        self.default = nn.Linear(1, getattr(c, "sliding_window", 5))                  # 5 -> 10

    def forward(self, x):
        return x
""")
    assert report.unknown == [], report.unknown
    assert params(report) == {"has": 4, "types": 6, "first": 8, "missing": 14, "default": 10}


def test_linalg_solve_triangular_gives_the_right_hand_sides_shape(tmp_path):
    # Qwen3-Next / Qwen3.5 / OLMo-hybrid gated delta rule: torch.linalg.solve_triangular(
    # ut_system, v_beta, upper=False, unitriangular=True) solves A X = B: X has B's shape
    report = analyse(tmp_path, """
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 2)

    def forward(self, a, b):
        x = torch.linalg.solve_triangular(a, b, upper=False, unitriangular=True)   # 2x4x3
        return self.proj(x)   # 2x4x2: 2 * (2 * 4) * 3 * 2 = 96 FLOPs; the solve has no
                              # FlopCounterMode formula (LAPACK), 0 under `standard`
""", inputs=("2x4x4", "2x4x3"))
    assert report.unknown == [], report.unknown
    assert report.outputs == [[2, 4, 2]] and report.totals.forward_flops == 96


def test_einsum_with_an_ellipsis(tmp_path):
    # LongT5's local attention: torch.einsum("...hqk,...khd->...qhd", weights, values); the
    # '...' dims (1, 2) broadcast from the right; implicit outputs put them first
    report = analyse(tmp_path, """
import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, weights, values, a, b):
        out = torch.einsum("...hqk,...khd->...qhd", weights, values)   # 1x2x8x4x16
        # 1*2 blocks * 4 heads * 8 queries * 16 dims outputs, each a sum over 8 keys:
        # 8,192 multiply-adds -> 16,384 FLOPs
        other = torch.einsum("...ij,jk", a, b)   # (3x2x5, 5x6) -> 3x2x6: 36 outputs x 5 = 180 MACs -> 360
        return out, other
""", inputs=("1x2x4x8x8", "1x2x8x4x16", "3x2x5", "5x6"))
    assert report.unknown == [], report.unknown
    assert report.outputs == [[1, 2, 8, 4, 16], [3, 2, 6]]
    assert report.totals.forward_flops == 16_384 + 360


def test_membership_in_none_raises_type_error(tmp_path):
    # diffusers' SDXL UNet: `"text_embeds" not in added_cond_kwargs` with the default None raises
    # TypeError in Python; the analysis raises it too (caught here), not an undecided membership
    report = analyse(tmp_path, """
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, extra=None):
        try:
            refused = "a" in extra and False
        except TypeError:
            refused = True
        return self.fc(x) if refused else x   # 2 rows x 4 x 4 = 32 MACs -> 64 FLOPs
""", inputs=("2x4",))
    assert report.unknown == [], report.unknown
    assert report.totals.forward_flops == 64


def test_einsum_of_one_operand_is_no_product(tmp_path):
    # SD3's unpatchify: torch.einsum("nhwpqc->nchpwq", x) only permutes; torch runs a one-operand
    # einsum as permute/diagonal/sum, none of which FlopCounterMode counts (standard: 0)
    report = analyse(tmp_path, """
import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x, m, y):
        p = torch.einsum("nhwpqc->nchpwq", x)   # 1x4x2x2x2x3 -> 1x3x2x2x4x2: a permutation, 0
        d = torch.einsum("ii->i", m)            # the diagonal of 5x5: 0
        s = torch.einsum("ij->i", m)            # row sums: 0 (a sum, as x.sum(1))
        return p, d, s, torch.einsum("ij,jk->ik", m, y)   # 5x5 @ 5x2: 50 MACs -> 100 FLOPs
""", inputs=("1x2x4x2x2x3", "5x5", "5x2"))
    assert report.unknown == [], report.unknown
    assert report.outputs == [[1, 3, 2, 2, 4, 2], [5], [5], [5, 2]]
    assert report.totals.forward_flops == 100


def test_more_math_functions(tmp_path):
    # Inkling: side = math.isqrt(num_patches); positional encodings use math.tanh/atan2/hypot
    report = analyse(tmp_path, """
import math
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.side = nn.Linear(1, math.isqrt(50))                          # 7 -> 14
        self.hyp = nn.Linear(1, int(math.hypot(3, 4)))                    # 5 -> 10
        self.angle = nn.Linear(1, round(4 * math.atan2(1, 1) / math.pi * 3))   # atan2(1, 1) = pi/4: 3 -> 6
        self.ok = nn.Linear(1, 2 if math.isfinite(1e308) and not math.isnan(0.0) else 9)   # 2 -> 4

    def forward(self, x):
        return x
""")
    assert report.unknown == [], report.unknown
    assert params(report) == {"side": 14, "hyp": 10, "angle": 6, "ok": 4}
