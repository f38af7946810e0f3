"""Probe the public Keras op surface (issue 20 item 4): one tiny Functional model per op.

The Keras half of tools/record_coverage.py (same conventions, same fixture format), enumerated
from the installed Keras, not from a hand list:

* ``keras layers``: every class in ``keras.layers`` that is a ``Layer``;
* ``keras ops``: every public function of ``keras.ops``.

Each op gets a primary case from a recipe (``RECIPES``) or the first generic attempt that builds
and runs (``ATTEMPTS``), else it is a ``no recipe`` gap.  A case is a Functional model::

    x = keras.Input(shape=(8, 8, 3))
    out = <call>
    model = keras.Model(x, out)

recorded as tools/record_keras.py records a model at batch 1, called with ``training=False``
(inference: augmentation and dropout layers pass images through; their random-state variables
cannot be frozen otherwise; see ``fixed_seeds`` for the layers that draw random numbers even
then): output shapes, ``count_params()`` and the TF profiler's FLOPs of
the frozen graph (the ``tf-profiler`` rule set's ground truth); the output shapes are those of
the model executed on a batch of 1 (a flattening op folds the batch into another dimension,
which ``model.outputs``' symbolic shapes cannot show).  ``--replay FAMILY`` re-runs the recorded
cases without enumerating again;
written to ``tests/fixtures/coverage/keras_layers.json`` and ``keras_ops.json``.

How to run (tensorflow-cpu 2.21, keras 3.15.1):

    /work/gt/keras/bin/python tools/record_coverage_keras.py
"""

from __future__ import annotations

import inspect
import json
import signal
import sys
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from record_keras import frozen_graph, keras, profile, tf  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "coverage"
HEADER = "import keras\nfrom keras import layers, ops\n\n"


def case_source(call: str, inputs: list) -> str:
    lines = []
    for spec in inputs:
        name, _, rest = spec.partition(":")
        dtype, _, dims = rest.rpartition(":")
        shape = ", ".join(dims.split("x")) + ("," if "x" not in dims else "")
        lines.append(f"{name} = keras.Input(shape=({shape})" + (f', dtype="{dtype}"' if dtype else "") + ")\n")
    names = [spec.split(":")[0] for spec in inputs]
    model_inputs = names[0] if len(names) == 1 else f"[{', '.join(names)}]"
    return HEADER + "".join(lines) + f"out = {call}\nmodel = keras.Model({model_inputs}, out)\n"


EXCLUDED_LAYERS = {
    "Layer": "base class", "InputLayer": "the model's input, not an op", "InputSpec": "not a layer",
    "Wrapper": "base class of the wrappers", "Lambda": "runs arbitrary code (its body is the op)",
    "FlaxLayer": "wraps a JAX model", "JaxLayer": "wraps a JAX model", "TorchModuleWrapper": "wraps a torch module",
    "TFSMLayer": "loads a SavedModel from disk", "Pipeline": "container: its layers are the ops",
    "StringLookup": "string preprocessing", "TextVectorization": "string preprocessing",
    "GRUCell": "a cell: probed inside RNN(cell)", "LSTMCell": "a cell: probed inside RNN(cell)",
    "SimpleRNNCell": "a cell: probed inside RNN(cell)", "StackedRNNCells": "a cell: probed inside RNN(cell)",
}
EXCLUDED_OPS_REASON = {
    "cond": "control flow taking Python functions", "while_loop": "control flow taking Python functions",
    "fori_loop": "control flow taking Python functions", "scan": "control flow taking Python functions",
    "associative_scan": "control flow taking Python functions", "map": "control flow taking Python functions",
    "switch": "control flow taking Python functions", "vectorized_map": "control flow taking Python functions",
    "custom_gradient": "autodiff plumbing", "stop_gradient": "autodiff plumbing",
    "convert_to_tensor": "dtype/device plumbing", "convert_to_numpy": "dtype/device plumbing", "cast": None,
    "dtype": "dtype plumbing", "is_tensor": "predicate", "shape": "returns a Python shape", "ndim": "returns an int",
    "size": "returns an int", "saturate_cast": None, "unravel_index": None,
    "jvp": "autodiff plumbing taking Python functions", "vectorize": "control flow taking Python functions",
}
# Output shapes that depend on the tensor's values (issue 20: counted apart, their own message).
DATA_DEPENDENT = {"ops.nonzero", "ops.unique", "ops.bincount"}
DATA_DEPENDENT_REASON = "output shape depends on the tensor's values"
_DIM = {"1D": "8x3", "2D": "8x8x3", "3D": "4x8x8x3"}


def _layer_attempts(name: str) -> list:
    rank = next((shape for suffix, shape in _DIM.items() if name.endswith(suffix)), None)
    shapes = [rank] if rank else ["8x8x3", "8", "5x8"]
    out = [(f"layers.{name}({args})(x)", [f"x:{shape}"]) for args in ("", "4", "2", "4, 3") for shape in shapes]
    out += [(f"layers.{name}()([x, y])", ["x:8", "y:8"]), (f"layers.{name}()([x, y])", ["x:5x8", "y:5x8"]),
            (f"layers.{name}(4)(x, x)", ["x:5x8"]), (f"layers.{name}(10, 4)(i)", ["i:int32:5"]),
            (f"layers.{name}(4)(i)", ["i:int32:5"])]
    return out


ATTEMPTS_OPS = [
    ("ops.{name}(x)", ["x:8x8x3"]), ("ops.{name}(x)", ["x:8"]), ("ops.{name}(x, y)", ["x:8", "y:8"]),
    ("ops.{name}(x, 1)", ["x:8x8x3"]), ("ops.{name}(x, y)", ["x:8x8", "y:8x8"]),
    ("ops.{name}(x, y, z)", ["x:8", "y:8", "z:8"]), ("ops.{name}([x, y])", ["x:8", "y:8"]),
    ("ops.{name}(x, 2)", ["x:8"]), ("ops.{name}(x, (2, 4))", ["x:8"]), ("ops.{name}(x, 0, 1)", ["x:4x8"]),
    ("ops.{name}(x > 0, x, y)", ["x:8", "y:8"]), ("ops.{name}(i)", ["i:int32:8"]), ("ops.{name}(i, i)", ["i:int32:8"]),
    ("ops.{name}(x, i)", ["x:8", "i:int32:8"]), ("ops.{name}(i, 5)", ["i:int32:8"]),
    ("x + ops.{name}((8,))", ["x:8"]), ("x + ops.{name}(8)", ["x:8"]), ("x + ops.{name}((8,), 1.0)", ["x:8"]),
]

RECIPES: dict = {
    "Conv2D": [("layers.Conv2D(4, 3)(x)", ["x:8x8x3"]), ("layers.Conv2D(6, 3, strides=2, padding='same', groups=3)(x)", ["x:8x8x3"])],
    "Dense": [("layers.Dense(4)(x)", ["x:8"]), ("layers.Dense(4, use_bias=False)(x)", ["x:5x8"])],
    "EinsumDense": [("layers.EinsumDense('ab,bc->ac', output_shape=4, bias_axes='c')(x)", ["x:8"])],
    "Embedding": [("layers.Embedding(10, 4)(i)", ["i:int32:5"])],
    "ReversibleEmbedding": [("layers.ReversibleEmbedding(10, 4)(i)", ["i:int32:5"])],
    "MultiHeadAttention": [("layers.MultiHeadAttention(2, 4)(x, x)", ["x:5x8"]),
                           ("layers.MultiHeadAttention(2, 4, value_dim=3)(x, y)", ["x:5x8", "y:7x6"])],
    "GroupQueryAttention": [("layers.GroupQueryAttention(4, 4, 2)(x, x)", ["x:5x8"])],
    "Attention": [("layers.Attention()([x, y])", ["x:5x8", "y:7x8"])],
    "AdditiveAttention": [("layers.AdditiveAttention()([x, y])", ["x:5x8", "y:7x8"])],
    "Dot": [("layers.Dot(axes=1)([x, y])", ["x:8", "y:8"])],
    "Concatenate": [("layers.Concatenate()([x, y])", ["x:8", "y:3"])],
    "LSTM": [("layers.LSTM(4)(x)", ["x:5x8"]), ("layers.LSTM(4, return_sequences=True)(x)", ["x:5x8"])],
    "GRU": [("layers.GRU(4)(x)", ["x:5x8"])],
    "SimpleRNN": [("layers.SimpleRNN(4)(x)", ["x:5x8"])],
    "RNN": [("layers.RNN(layers.LSTMCell(4))(x)", ["x:5x8"]), ("layers.RNN(layers.GRUCell(4))(x)", ["x:5x8"]),
            ("layers.RNN(layers.SimpleRNNCell(4), return_sequences=True)(x)", ["x:5x8"])],
    "Bidirectional": [("layers.Bidirectional(layers.LSTM(4))(x)", ["x:5x8"])],
    "TimeDistributed": [("layers.TimeDistributed(layers.Dense(4))(x)", ["x:5x8"])],
    "Conv3DTranspose": [("layers.Conv3DTranspose(4, 3)(x)", ["x:4x8x8x3"])],
    # window=None: the default 'hann' window is made with scipy, which the recording env lacks.
    "STFTSpectrogram": [("layers.STFTSpectrogram(frame_length=8, frame_step=4, window=None)(x)", ["x:32x1"]),
                        ("layers.STFTSpectrogram(mode='magnitude', frame_length=8, frame_step=4, padding='same', window=None)(x)", ["x:30x2"]),
                        ("layers.STFTSpectrogram(mode='real', frame_length=6, fft_length=16, window=None)(x)", ["x:32x1"]),
                        ("layers.STFTSpectrogram(mode='stft', frame_length=8, window=None)(x)", ["x:32x1"]),
                        ("layers.STFTSpectrogram(mode='psd', frame_length=8, frame_step=4, window=None)(x)", ["x:32x1"]),
                        ("layers.STFTSpectrogram(mode='angle', frame_length=8, frame_step=4, window=None)(x)", ["x:32x1"]),
                        ("layers.STFTSpectrogram(frame_length=8, frame_step=4, window=None, expand_dims=True)(x)", ["x:32x2"])],
    # The defaults (fft_length=2048, reflect padding of 1024) need an input longer than 1024.
    "MelSpectrogram": [("layers.MelSpectrogram(fft_length=16, sequence_stride=8, num_mel_bins=4)(x)", ["x:64"])],
    # Equalization stays a "no recipe" gap: in Keras 3.15.1 its compute_output_spec returns the input
    # KerasTensor itself, so any Functional model around it raises "... is part of a cycle".
    "Convolution3DTranspose": [("layers.Convolution3DTranspose(4, 3)(x)", ["x:4x8x8x3"])],
    "Dropout": [("layers.Dropout(0.5)(x)", ["x:8x8x3"])],
    "AlphaDropout": [("layers.AlphaDropout(0.5)(x)", ["x:8x8x3"])],
    "GaussianDropout": [("layers.GaussianDropout(0.5)(x)", ["x:8x8x3"])],
    "GaussianNoise": [("layers.GaussianNoise(0.1)(x)", ["x:8x8x3"])],
    "SpatialDropout1D": [("layers.SpatialDropout1D(0.5)(x)", ["x:8x3"])],
    "SpatialDropout2D": [("layers.SpatialDropout2D(0.5)(x)", ["x:8x8x3"])],
    "SpatialDropout3D": [("layers.SpatialDropout3D(0.5)(x)", ["x:4x8x8x3"])],
    "RandomRotation": [("layers.RandomRotation(0.1)(x)", ["x:8x8x3"])],
    "RandomZoom": [("layers.RandomZoom(0.1)(x)", ["x:8x8x3"])],
    "RandomTranslation": [("layers.RandomTranslation(0.1, 0.1)(x)", ["x:8x8x3"])],
    "RandomContrast": [("layers.RandomContrast(0.5)(x)", ["x:8x8x3"])],
    "RandomBrightness": [("layers.RandomBrightness(0.2)(x)", ["x:8x8x3"])],
    "RandomHue": [("layers.RandomHue(0.2)(x)", ["x:8x8x3"])],
    "RandomSaturation": [("layers.RandomSaturation(0.2)(x)", ["x:8x8x3"])],
    "RandomSharpness": [("layers.RandomSharpness(0.2)(x)", ["x:8x8x3"])],
    "RandomColorDegeneration": [("layers.RandomColorDegeneration(0.2)(x)", ["x:8x8x3"])],
    "RandomGrayscale": [("layers.RandomGrayscale(0.5)(x)", ["x:8x8x3"])],
    "RandomPosterization": [("layers.RandomPosterization(4, value_range=(0, 255))(x)", ["x:8x8x3"])],
    "Equalization": [("layers.Equalization(value_range=(0, 255))(x)", ["x:8x8x3"])],
    "ConvLSTM1D": [("layers.ConvLSTM1D(4, 3)(x)", ["x:4x8x3"]),
                   ("layers.ConvLSTM1D(5, 2, strides=2, use_bias=False, return_sequences=True)(x)", ["x:3x9x2"])],
    "ConvLSTM2D": [("layers.ConvLSTM2D(4, 3)(x)", ["x:4x8x8x3"]),
                   ("layers.ConvLSTM2D(4, 3, padding='same', return_state=True)(x)", ["x:4x8x8x3"])],
    "ConvLSTM3D": [("layers.ConvLSTM3D(4, 3)(x)", ["x:2x4x8x8x3"])],
    "Reshape": [("layers.Reshape((4, 2))(x)", ["x:8"])],
    "Permute": [("layers.Permute((2, 1))(x)", ["x:5x8"])],
    "RepeatVector": [("layers.RepeatVector(3)(x)", ["x:8"])],
    "Resizing": [("layers.Resizing(4, 6)(x)", ["x:8x8x3"])],
    "CenterCrop": [("layers.CenterCrop(4, 6)(x)", ["x:8x8x3"])],
    "RandomCrop": [("layers.RandomCrop(4, 6)(x)", ["x:8x8x3"])],
    "CategoryEncoding": [("layers.CategoryEncoding(10)(i)", ["i:int32:5"]),
                         ("layers.CategoryEncoding(12, output_mode='count')(i)", ["i:int32:7"]),
                         ("layers.CategoryEncoding(10, output_mode='one_hot')(i)", ["i:int32:1"]),
                         ("layers.CategoryEncoding(10, output_mode='one_hot')(i)", ["i:int32:3"])],
    "AutoContrast": [("layers.AutoContrast()(x)", ["x:8x8x3"]), ("layers.AutoContrast(value_range=(0, 1))(x)", ["x:6x4x2"])],
    "Activation": [("layers.Activation('relu')(x)", ["x:8x8x3"])],
    "Softmax": [("layers.Softmax()(x)", ["x:8x8x3"])],
    "GroupNormalization": [("layers.GroupNormalization(3)(x)", ["x:8x8x3"])],
    "SpectralNormalization": [("layers.SpectralNormalization(layers.Dense(4))(x)", ["x:8"])],
    "UpSampling2D": [("layers.UpSampling2D()(x)", ["x:8x8x3"]), ("layers.UpSampling2D(2, interpolation='bilinear')(x)", ["x:8x8x3"])],
    "ZeroPadding2D": [("layers.ZeroPadding2D(1)(x)", ["x:8x8x3"])],
    "Cropping2D": [("layers.Cropping2D(1)(x)", ["x:8x8x3"])],
    "Rescaling": [("layers.Rescaling(1 / 255)(x)", ["x:8x8x3"])],
    "Discretization": [("layers.Discretization([0.0, 1.0])(x)", ["x:8"])],
    "Hashing": [("layers.Hashing(4)(i)", ["i:int32:5"])],
    "IntegerLookup": [("layers.IntegerLookup(vocabulary=[1, 2, 3])(i)", ["i:int32:5"])],
    "HashedCrossing": [("layers.HashedCrossing(4)((i, j))", ["i:int32:1", "j:int32:1"])],
}
RECIPES_OPS: dict = {
    "matmul": [("ops.matmul(x, y)", ["x:5x8", "y:8x4"])],
    "einsum": [("ops.einsum('bij,bjk->bik', x, y)", ["x:5x8", "y:8x4"])],
    "conv": [("ops.conv(x, ops.ones((3, 3, 3, 4)))", ["x:8x8x3"])],
    "dot_product_attention": [("ops.dot_product_attention(x, x, x)", ["x:5x2x4"])],
    "layer_normalization": [("ops.layer_normalization(x)", ["x:8x8x3"])],
    "rms_normalization": [("ops.rms_normalization(x)", ["x:8x8x3"])],
    "reshape": [("ops.reshape(x, (-1, 4))", ["x:8"])],
    "transpose": [("ops.transpose(x, (0, 2, 1))", ["x:5x8"])],
    "concatenate": [("ops.concatenate([x, y], axis=1)", ["x:8", "y:3"])],
    "arange": [("x + ops.arange(8)", ["x:8"])],
    "eye": [("x + ops.eye(8)", ["x:8x8"])],
    "one_hot": [("ops.one_hot(i, 5)", ["i:int32:8"])],
    "top_k": [("ops.top_k(x, 3)", ["x:8"])],
    "split": [("ops.split(x, 2, axis=1)", ["x:8"])],
    "take": [("ops.take(x, i, axis=1)", ["x:8", "i:int32:3"])],
    "cast": [("ops.cast(x, 'float16')", ["x:8"])],
    # Added by helper kerasops (issue 20): ops the generic attempts could not call.
    "where": [("ops.where(x > 0, x, y)", ["x:8", "y:8"])],
    "kaiser": [("x + ops.kaiser(8, 5.0)", ["x:8"])],
    "saturate_cast": [("ops.saturate_cast(x, 'float16')", ["x:8"])],
    "pad": [("ops.pad(x, ((0, 0), (1, 2)))", ["x:8"])],
    "slice": [("ops.slice(x, (0, 0), (1, 4))", ["x:8"])],
    "broadcast_to": [("ops.broadcast_to(x, (1, 2, 8))", ["x:8"])],
    "take_along_axis": [("ops.take_along_axis(x, i, axis=1)", ["x:8", "i:int32:3"])],
    "depth_to_space": [("ops.depth_to_space(x, 2)", ["x:8x8x4"])],
    "space_to_depth": [("ops.space_to_depth(x, 2)", ["x:8x8x3"])],
    "depthwise_conv": [("ops.depthwise_conv(x, ops.ones((3, 3, 3, 1)))", ["x:8x8x3"])],
    "separable_conv": [("ops.separable_conv(x, ops.ones((3, 3, 3, 1)), ops.ones((1, 1, 3, 4)))", ["x:8x8x3"])],
    "conv_transpose": [("ops.conv_transpose(x, ops.ones((3, 3, 4, 3)), 1)", ["x:8x8x3"])],
    "adaptive_average_pool": [("ops.adaptive_average_pool(x, (4, 4))", ["x:8x8x3"])],
    "adaptive_max_pool": [("ops.adaptive_max_pool(x, (4, 4))", ["x:8x8x3"])],
    "batch_normalization": [("ops.batch_normalization(x, ops.zeros((3,)), ops.ones((3,)), axis=-1)", ["x:8x8x3"])],
    "select": [("ops.select([x > 0, x < 0], [x, -x])", ["x:8"])],
    "get_item": [("ops.get_item(x, 0)", ["x:8"])],
    "rearrange": [("ops.rearrange(x, 'b n -> n b')", ["x:8"])],
    "cross": [("ops.cross(x, y)", ["x:3", "y:3"])],
    "digitize": [("ops.digitize(x, [0.0, 1.0])", ["x:8"])],
    "argpartition": [("ops.argpartition(x, 3)", ["x:8"])],
    "histogram": [("ops.histogram(x, bins=4)", ["x:8"])],
    "vander": [("ops.vander(ops.reshape(x, (-1,)))", ["x:8"])],
    "in_top_k": [("ops.in_top_k(i, x, 2)", ["i:int32:1", "x:8"])],
    "searchsorted": [("ops.searchsorted(ops.reshape(x, (-1,)), ops.reshape(y, (-1,)))", ["x:8", "y:8"])],
    "psnr": [("ops.psnr(x, y, 1.0)", ["x:8x8x3", "y:8x8x3"])],
    "segment_sum": [("ops.segment_sum(ops.reshape(x, (-1,)), ops.reshape(i, (-1,)), num_segments=4)", ["x:8", "i:int32:8"])],
    "segment_max": [("ops.segment_max(ops.reshape(x, (-1,)), ops.reshape(i, (-1,)), num_segments=4)", ["x:8", "i:int32:8"])],
    "stft": [("ops.stft(ops.reshape(x, (-1,)), 8, 4, 8)", ["x:32"])],
    "fft2": [("ops.fft2((x, y))", ["x:8x8", "y:8x8"])],
    "correlate": [("ops.correlate(ops.reshape(x, (-1,)), ops.reshape(y, (-1,)))", ["x:8", "y:8"])],
    "corrcoef": [("ops.corrcoef(x)", ["x:8"])],
    "det": [("ops.det(x)", ["x:8x8"])], "inv": [("ops.inv(x)", ["x:8x8"])], "logdet": [("ops.logdet(x)", ["x:8x8"])],
    "scatter": [("x + ops.scatter([[0], [2]], [1.0, 2.0], (8,))", ["x:8"])],
    "slice_update": [("ops.slice_update(x, (0, 0), ops.ones((1, 2)))", ["x:8"])],
}


def fixed_seeds() -> None:
    """Make the image-preprocessing layers draw from a fixed, stateless seed.

    RandomHue, RandomSaturation, RandomSharpness, RandomColorDegeneration, RandomGrayscale,
    RandomPosterization and MixUp draw their random transformation even with ``training=False``
    (and then pass the image through, keras 3.15.1 ``transform_images``); drawing from their
    SeedGenerator assigns its state variable, and convert_variables_to_constants_v2 cannot freeze
    a graph that assigns a variable.  Every such layer gets its seed through
    ``DataLayer._get_seed_generator``; an int seed makes Keras's TensorFlow backend use the
    stateless random ops (keras/src/random/seed_generator.py ``draw_seed``): the same ops, no
    variable.  The output and the FLOPs the profiler sizes do not depend on the seed's value.
    """
    from keras.src.layers.preprocessing.data_layer import DataLayer

    DataLayer._get_seed_generator = lambda self, backend=None: 1337


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _shapes(value) -> list:
    if isinstance(value, (list, tuple)):
        return [s for item in value for s in _shapes(item)]
    if isinstance(value, dict):
        return [s for key in sorted(value) for s in _shapes(value[key])]
    return [[1 if d is None else int(d) for d in value.shape]]


def run_case(call: str, inputs: list) -> dict:
    keras.backend.clear_session()
    source = case_source(call, inputs)
    namespace = types.ModuleType("case").__dict__
    signal.alarm(20)
    try:
        exec(compile(source, "<case>", "exec"), namespace)  # our own generated case text
        model = namespace["model"]
        frozen, _ = frozen_graph(model, training=False)  # inference: augmentation and dropout pass through
        flops = profile(frozen.graph)
    finally:
        signal.alarm(0)
    # The shapes of the model executed at batch 1, not model.outputs' symbolic ones: a flattening
    # op (cumsum without axis, reshape(-1, ...), squeeze) folds the batch into another dimension.
    arrays = [tf.random.uniform([1] + list(t.shape[1:]), 0, 2, dtype=t.dtype) for t in model.inputs]
    executed = model(arrays if len(arrays) > 1 else arrays[0], training=False)
    return {"init": "", "call": call, "inputs": list(inputs), "output_shapes": _shapes(executed),
            "params": int(model.count_params()), "tf_profiler_flops": flops}


def probe(op: str, recipes: list, attempts: list) -> tuple[list, str | None]:
    cases = []
    for index, (call, inputs) in enumerate(recipes):
        try:
            cases.append({"op": op, "variant": index, **run_case(call, inputs)})
        except Exception as error:  # noqa: BLE001 - a recipe that does not run is reported
            print(f"recipe failed: {op} {call}: {type(error).__name__}: {str(error)[:150]}", file=sys.stderr)
    if cases:
        return cases, None
    for call, inputs in attempts:
        try:
            return [{"op": op, "variant": 0, **run_case(call, inputs)}], None
        except Exception:  # noqa: BLE001 - the next attempt
            pass
    return [], "no recipe"


def replay(family: str) -> None:
    """Re-run the recorded cases of a family (``--replay keras_ops``): no new enumeration."""
    path = OUT / f"{family}.json"
    fixture = json.loads(path.read_text())
    cases = []
    for case in fixture["cases"]:
        try:
            cases.append({**case, **run_case(case["call"], case["inputs"])})
        except Exception as error:  # noqa: BLE001 - a case that no longer runs is dropped, said
            print(f"dropped: {case['op']} {case['call']}: {type(error).__name__}: {str(error)[:150]}", file=sys.stderr)
            fixture["gaps"][case["op"]] = "no recipe"
    fixture["cases"] = cases
    path.write_text(json.dumps(fixture, indent=0, sort_keys=True) + "\n")


def main() -> int:
    signal.signal(signal.SIGALRM, _alarm)
    fixed_seeds()
    if sys.argv[1:2] == ["--replay"]:
        for family in sys.argv[2:]:
            replay(family)
        return 0
    families = {"keras_layers": [], "keras_ops": []}
    excluded = {"keras_layers": {}, "keras_ops": {}}
    for name in sorted(dir(keras.layers)):
        obj = getattr(keras.layers, name)
        if name.startswith("_") or not inspect.isclass(obj):
            continue
        if name in EXCLUDED_LAYERS or not issubclass(obj, keras.layers.Layer):
            excluded["keras_layers"][name] = EXCLUDED_LAYERS.get(name, "not a Layer")
            continue
        families["keras_layers"].append((name, RECIPES.get(name, []), _layer_attempts(name)))
    for name in sorted(dir(keras.ops)):
        obj = getattr(keras.ops, name)
        if name.startswith("_") or inspect.isclass(obj) or inspect.ismodule(obj) or not callable(obj):
            continue
        if EXCLUDED_OPS_REASON.get(name):
            excluded["keras_ops"][name] = EXCLUDED_OPS_REASON[name]
            continue
        families["keras_ops"].append((f"ops.{name}", RECIPES_OPS.get(name, []),
                                      [(c.format(name=name), i) for c, i in ATTEMPTS_OPS]))
    versions = f"keras {keras.__version__}, tensorflow {tf.__version__}"
    wanted = sys.argv[1:] or list(families)
    for family, ops in families.items():
        if family not in wanted:
            continue
        cases, gaps = [], {}
        for op, recipes, attempts in ops:
            found, gap = probe(op, recipes, attempts)
            for case in found:
                if op in DATA_DEPENDENT:
                    case["out_of_scope"] = DATA_DEPENDENT_REASON
            cases += found
            if gap:
                gaps[op] = gap
        fixture = {"recorded_with": versions, "header": HEADER, "cases": cases, "gaps": gaps,
                   "excluded": excluded[family]}
        (OUT / f"{family}.json").write_text(json.dumps(fixture, indent=0, sort_keys=True) + "\n")
        print(f"{family}: {len(cases)} cases of {len({c['op'] for c in cases})} ops, {len(gaps)} gaps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
