"""The keras.applications acceptance table: staticflops on Keras's own application files vs
Keras's count_params() and TensorFlow's profiler.

The application sources stay outside the repository:

    pip download --no-deps keras==3.15.1 -d /tmp/keras-src
    unzip /tmp/keras-src/keras-3.15.1-py3-none-any.whl -d /tmp/keras-src/unpacked

Record the truth once with TensorFlow (builds each model with weights=None at its default input
size, batch 1; models already in the JSON are kept, and runs the keras-flops profiler method):

    /tmp/tf-venv/bin/python tools/keras_applications.py --record

then print the table (needs only staticflops; reads the recorded truth):

    python tools/keras_applications.py /tmp/keras-src/unpacked
"""
import argparse
import json
import os
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRUTH = os.path.join(REPO, "tests", "fixtures", "keras_applications_truth.json")

# builder function -> (file under keras/src/applications, keyword arguments besides weights=None).
# MobileNetV3 leaves its spatial size open ((None, None, 3)) unless told; 224 is its default size.
APPLICATIONS = {
    "VGG16": ("vgg16.py", {}),
    "ResNet50": ("resnet.py", {}),
    "ResNet50V2": ("resnet_v2.py", {}),
    "MobileNet": ("mobilenet.py", {}),
    "MobileNetV2": ("mobilenet_v2.py", {}),
    "MobileNetV3Small": ("mobilenet_v3.py", {"input_shape": [224, 224, 3]}),
    "MobileNetV3Large": ("mobilenet_v3.py", {"input_shape": [224, 224, 3]}),
    "DenseNet121": ("densenet.py", {}),
    "EfficientNetB0": ("efficientnet.py", {}),
    "EfficientNetV2B0": ("efficientnet_v2.py", {}),
    "InceptionV3": ("inception_v3.py", {}),
    "Xception": ("xception.py", {}),
    "ConvNeXtTiny": ("convnext.py", {}),
    "NASNetMobile": ("nasnet.py", {}),
}


def record() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    sys.path.insert(0, os.path.join(REPO, "tools"))
    import keras
    from record_keras import flops_by_op, frozen_graph, profile

    truth = {}
    if os.path.exists(TRUTH):
        with open(TRUTH) as handle:
            truth = json.load(handle)
    for builder, (filename, kwargs) in APPLICATIONS.items():
        if builder in truth:
            continue
        if True:
            keras.backend.clear_session()
            model = getattr(keras.applications, builder)(weights=None, **kwargs)
            frozen, specs = frozen_graph(model)
            truth[builder] = {
                "file": filename, "kwargs": kwargs, "params": int(model.count_params()),
                "input": [int(d) for d in specs[0].shape],
                "output_shapes": [[1 if d is None else int(d) for d in t.shape] for t in model.outputs],
                "tf_profiler_flops": profile(frozen.graph), "tf_profiler_flops_by_op": flops_by_op(frozen.graph),
                "versions": {"keras": keras.__version__},
            }
            print(f"{builder}: {truth[builder]['params']} params, {truth[builder]['tf_profiler_flops']} FLOPs",
                  file=sys.stderr)
            with open(TRUTH, "w") as handle:  # after each model: the big ones take minutes
                handle.write(json.dumps(truth, indent=1, sort_keys=True) + "\n")


def table(source_root: str) -> int:
    import staticflops
    from staticflops.diagnostics import AnalysisError

    with open(TRUTH) as handle:
        truth = json.load(handle)
    apps = os.path.join(source_root, "keras", "src", "applications")
    print("| application | file | params (staticflops / count_params) | tf-profiler FLOPs (staticflops / profiler) | match | seconds |")
    print("|---|---|---:|---:|:-:|---:|")
    misses = 0
    for builder, entry in truth.items():
        path = os.path.join(apps, entry["file"])
        started = time.perf_counter()
        try:
            report = staticflops.analyze(path, model=builder, kwargs={"weights": None, **entry["kwargs"]},
                                         rules="tf-profiler", batch=1)
            params, flops = report.totals.params, report.totals.forward_flops
            blocker = report.unknown[0] if report.unknown else None
            note = "" if blocker is None else f" (unknown: {blocker.what} at {blocker.location})"
        except AnalysisError as error:
            params = flops = "error"
            note = f" ({error.location}: {error.message})"
        seconds = time.perf_counter() - started
        ok = params == entry["params"] and flops == entry["tf_profiler_flops"]
        misses += not ok
        print(f"| {builder} | {entry['file']} | {_n(params)} / {_n(entry['params'])} | "
              f"{_n(flops)} / {_n(entry['tf_profiler_flops'])} | {'yes' if ok else 'no' + note} | {seconds:.1f} |")
    return 1 if misses else 0


def _n(value) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source_root", nargs="?", help="the unpacked keras wheel (contains keras/src/applications)")
    parser.add_argument("--record", action="store_true", help="record the truth with keras/tensorflow")
    args = parser.parse_args()
    if args.record:
        record()
        return 0
    if not args.source_root:
        parser.error("give the path of the unpacked keras sources")
    return table(args.source_root)


if __name__ == "__main__":
    sys.exit(main())
