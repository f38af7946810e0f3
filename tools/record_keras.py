"""Record Keras / TensorFlow ground truth for the Keras sample and the Keras test cases.

This script executes the model files with the real keras 3 and tensorflow; staticflops
itself never imports either. The tests read the JSON this script writes and need neither.

How to run (from the repository root; tensorflow-cpu 2.21 brings keras 3.15.1):

    python -m venv /tmp/tf-venv && /tmp/tf-venv/bin/pip install tensorflow-cpu keras
    /tmp/tf-venv/bin/python tools/record_keras.py            # writes tests/fixtures/keras_ground_truth.json
    /tmp/tf-venv/bin/python tools/record_keras.py --check    # exit 1 if the JSON on disk differs

Per model file (key = path relative to the repo root); the model is the module-level
variable ``model`` or what ``build_model()`` returns:

* ``inputs``: the model's input shapes with the batch dimension set to 1.
* A case that sets ``TRAINING = False`` is called as ``model(x, training=False)`` (inference:
  augmentation layers pass images through); otherwise as ``model(x)``.
* ``params`` / ``trainable_params``: ``model.count_params()`` / the sizes of
  ``model.trainable_weights`` (non-trainable weights, e.g. batch-norm statistics, count in
  ``params``).
* ``output_shapes``: ``model.outputs``' shapes with the batch dimension set to 1 (for a
  ``TRAINING = False`` case, the shapes of the frozen inference graph's outputs).
* ``tf_profiler_flops``: the keras-flops method: a ``tf.function`` of the model,
  ``get_concrete_function`` with ``TensorSpec``s at batch 1, ``convert_variables_to_constants_v2``,
  then ``tf.compat.v1.profiler.profile(graph, options=ProfileOptionBuilder.float_operation())``;
  the reported ``total_float_ops``.
* ``tf_profiler_flops_by_op``: the same count split by graph op type (the profiler's
  per-node statistic summed per type; documents which ops make up the total).
"""
import argparse
import json
import os
import runpy
import sys
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
warnings.filterwarnings("ignore")

import tensorflow as tf  # noqa: E402
import keras  # noqa: E402
from tensorflow.python.framework import ops as tf_ops  # noqa: E402
from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2  # noqa: E402

tf.get_logger().setLevel("ERROR")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tests", "fixtures", "keras_ground_truth.json")
CASES_DIR = os.path.join("tests", "fixtures", "keras_cases")
SAMPLES = ["samples/keras_seed.py"]


def load_model(path: str):
    """The model, and the ``training=`` value to call it with (a case's module-level
    ``TRAINING``; None: Keras's default, which for augmentation layers is to augment)."""
    namespace = runpy.run_path(os.path.join(REPO, path))
    model = namespace["model"] if "model" in namespace else namespace["build_model"]()
    return model, namespace.get("TRAINING")


def frozen_graph(model, training=None):
    specs = [tf.TensorSpec([1] + list(t.shape[1:]), t.dtype) for t in model.inputs]
    options = {} if training is None else {"training": training}
    function = tf.function(lambda *args: model(list(args) if len(args) > 1 else args[0], **options))
    concrete = function.get_concrete_function(*specs)
    return convert_variables_to_constants_v2(concrete), specs


def profile(graph) -> int:
    options = tf.compat.v1.profiler.ProfileOptionBuilder(
        tf.compat.v1.profiler.ProfileOptionBuilder.float_operation()).with_empty_output().build()
    result = tf.compat.v1.profiler.profile(graph=graph, run_meta=tf.compat.v1.RunMetadata(), cmd="op",
                                           options=options)
    return int(result.total_float_ops)


def flops_by_op(graph) -> dict:
    counts: dict = {}
    for op in graph.get_operations():
        try:
            value = tf_ops.get_stats_for_node_def(graph, op.node_def, "flops").value
        except ValueError:
            value = None  # an op with shapes the profiler cannot size: it counts 0
        if value:
            counts[op.type] = counts.get(op.type, 0) + int(value)
    return dict(sorted(counts.items()))


def record(path: str) -> dict:
    keras.backend.clear_session()
    model, training = load_model(path)
    frozen, specs = frozen_graph(model, training)
    outputs = [[1 if d is None else int(d) for d in t.shape] for t in model.outputs]
    if training is False:
        # Inference: the shapes the traced graph computes at batch 1.  Keras's symbolic shapes
        # can differ there (RandomCrop passes the image through unless training).
        outputs = [[int(d) for d in t.shape] for t in frozen.outputs]
    by_op = flops_by_op(frozen.graph)
    total = profile(frozen.graph)
    return {
        "inputs": [{"shape": [int(d) for d in s.shape], "dtype": s.dtype.name} for s in specs],
        "params": int(model.count_params()),
        "trainable_params": int(sum(int(tf.size(w)) for w in model.trainable_weights)),
        "output_shapes": outputs,
        "tf_profiler_flops": total,
        "tf_profiler_flops_by_op": by_op,
        "versions": {"tensorflow": tf.__version__, "keras": keras.__version__},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the recorded JSON differs")
    parser.add_argument("--only", help="record only paths containing this (or one of several, comma-separated) "
                        "and merge into the JSON")
    args = parser.parse_args()
    cases = sorted(os.path.join(CASES_DIR, name) for name in os.listdir(os.path.join(REPO, CASES_DIR))
                   if name.endswith(".py"))
    wanted = args.only.split(",") if args.only else None
    paths = [p for p in SAMPLES + cases if wanted is None or any(w in p for w in wanted)]
    truth = {}
    if args.only and os.path.exists(OUT):
        with open(OUT) as handle:
            truth = json.load(handle)
    for path in paths:
        truth[path] = record(path)
        print(f"{path}: {truth[path]['tf_profiler_flops']} FLOPs, {truth[path]['params']} params", file=sys.stderr)
    text = json.dumps(truth, indent=1, sort_keys=True) + "\n"
    if args.check:
        with open(OUT) as handle:
            return 0 if handle.read() == text else 1
    with open(OUT, "w") as handle:
        handle.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
