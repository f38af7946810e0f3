"""Reproduce the TF1-style profiler numbers of the reference documents (2, 2050, 2101, 21).

They profiled the whole default graph of a compiled tf.keras model in graph mode, not the
model's forward pass.  This rebuilds those four models the same way with tf_keras (Keras 2)
in TF1 graph mode and prints each counted op, to show where the numbers come from (see the
Keras notes, docs/keras.md).  Optional; needs tensorflow-cpu and tf-keras 2.21:

    /tmp/tf-venv/bin/pip install tensorflow-cpu tf-keras==2.21.0
    /tmp/tf-venv/bin/python tools/explain_tf1_profiler.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow.compat.v1 as tf  # noqa: E402
import tf_keras  # noqa: E402
from tensorflow.python.framework import ops as tf_ops  # noqa: E402
from tf_keras.layers import Conv2D, Dense, Flatten, InputLayer  # noqa: E402

tf.disable_eager_execution()
tf.get_logger().setLevel("ERROR")

MODELS = {
    "InputLayer only": [],
    "Flatten, Dense(1, softmax)": [Flatten, lambda: Dense(1, activation="softmax")],
    "Conv2D(1, 5, same), Flatten, Dense(1, softmax)": [lambda: Conv2D(1, 5, padding="same"), Flatten,
                                                        lambda: Dense(1, activation="softmax")],
    "Conv2D(1, 3, same), Flatten": [lambda: Conv2D(1, 3, padding="same"), Flatten],
}


def main() -> None:
    for title, makers in MODELS.items():
        tf.reset_default_graph()
        tf_keras.backend.clear_session()
        model = tf_keras.models.Sequential([InputLayer((32, 32, 1))] + [make() for make in makers])
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        graph = tf.get_default_graph()
        options = tf.profiler.ProfileOptionBuilder(tf.profiler.ProfileOptionBuilder.float_operation()) \
            .with_empty_output().build()
        total = tf.profiler.profile(graph, tf.RunMetadata(), cmd="op", options=options).total_float_ops
        print(f"{title}: {total}")
        for op in graph.get_operations():
            try:
                flops = tf_ops.get_stats_for_node_def(graph, op.node_def, "flops").value
            except ValueError:
                flops = None  # an unknown (-1) batch dimension: not counted
            if flops:
                print(f"    {op.type:8} {flops:6}  {op.name}")


if __name__ == "__main__":
    main()
