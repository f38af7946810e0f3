"""Coverage of Hugging Face transformers: every ``models/*/modeling_*.py`` analysed with its
default config, in parallel, each with a time budget; prints the summary the README and
docs/transformers.md quote.

Runs the installed ``staticflops`` console script (no torch needed) on the transformers found
with ``--source-path`` (an unpacked wheel folder, or a site-packages):

    python tools/transformers_folder_run.py --source-path /path/site-packages --jobs 2 \\
        --max-seconds 120 --out /tmp/hf-coverage.jsonl [--stride N] [--start K] [--limit N] \\
        [--only 'mixtral/*' 'dbrx/*']

Per file: the model class is ``<Prefix>Model`` where ``<Prefix>PreTrainedModel`` is the file's
pre-trained base class (else the first class deriving from it; see model_expression for files
with several base classes or an encoder-only first class), built with the default config
class the file imports from its ``configuration_*`` module whose name begins the model's the
longest (``XVisionModel(XVisionConfig())``).  The inputs follow the class's own ``forward``
parameters, in order, up to the last one needed (those without a default, ``decoder_input_ids``,
and ``pixel_values`` after ``input_ids``): ``input_ids`` and the other id names 1x32:int64, masks 1x32:int64=1,
``pixel_values`` 1x3x224x224, ``input_features`` 1x80x3000, ``input_values`` 1x16000, and
``image_sizes`` (1x2:int64 holding the image's height and width) when it follows the pixels; a class
without its own forward gets one input by the first parameter name found (else 1x32:int64).
When the model says the inputs do not fit, other inputs are tried (see alternatives).
These choices are this script's, not staticflops': a wrong guess shows as a located error.

Outcome per file (one JSON line each in --out, so an interrupted run still summarises):
``complete`` exit 0, every count resolved; ``analysed`` exit 0 with located unknowns (lower-bound
totals); ``partial`` a --max-* budget stopped it (exit 1, PARTIAL); ``failed`` exit 1 with a
located first cause; ``internal`` exit 3 (an interpreter bug: must be zero); ``no-model`` the
script found no model class.  Files already in --out are skipped (resume).
"""
import argparse
import ast
import concurrent.futures
import fnmatch
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

INPUTS = {"input_ids": "1x32:int64", "pixel_values": "1x3x224x224", "input_features": "1x80x3000",
          "input_values": "1x16000"}
VIDEO = "1x8x3x224x224"  # pixel_values_videos: 8 frames
# further leading forward() parameters the script can fill, when a later one is needed
# (an encoder-decoder's decoder_input_ids, a two-tower model's second input)
# Masks are all ones (`=1`: no padding), as the recordings' are, so that code that reads whether
# a mask pads anything decides it.
EXTRA = {"attention_mask": "1x32:int64=1", "decoder_input_ids": "1x32:int64", "token_type_ids": "1x32:int64",
         "decoder_attention_mask": "1x32:int64=1", "position_ids": "1x32:int64"}


def _config_for(model: str, imported: list) -> str | None:
    """The imported config class whose stem begins the model class's name the longest
    (InternVLVisionModel -> InternVLVisionConfig, not InternVLConfig); else the first."""
    matching = [c for c in imported if model.startswith(c[: -len("Config")])]
    return max(matching, key=len) if matching else (imported[0] if imported else None)


def _forward_inputs(text: str, name: str, also: tuple = (), images: bool = True) -> list | None:
    """--input specs for ``name``'s own forward(): every parameter without a default,
    decoder_input_ids and (after input_ids) pixel_values, and those in ``also``, in order, with
    the ones before them the script knows how to fill; None when the class has no forward of its
    own (or one the script cannot fill)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name), None)
    forward = next((n for n in (cls.body if cls else []) if isinstance(n, ast.FunctionDef) and n.name == "forward"), None)
    if forward is None:
        return None
    params = [a.arg for a in forward.args.args[1:]]
    required = len(params) - len(forward.args.defaults)
    # a two-tower model (CLIP: input_ids, pixel_values, all optional) needs both towers' inputs
    wanted = {"decoder_input_ids", *(["pixel_values"] if params[:1] == ["input_ids"] and images else []), *also}
    needed = [i for i, p in enumerate(params) if i < required or p in wanted]
    if not params:
        return None
    last = max(needed, default=0)
    known = {**EXTRA, **INPUTS, **{p: spec for p in params[: last + 1] if (spec := _by_name(p))}}
    if any(p not in known for p in params[: last + 1]):
        return None
    # an any-resolution model reads each image's (height, width) from `image_sizes`: given when
    # it comes after the pixels with nothing between that the script cannot fill
    if "pixel_values" in params[: last + 1] and "image_sizes" in params and images:
        sized = params.index("image_sizes")
        between = {p: spec for p in params[last + 1: sized] if (spec := known.get(p) or _by_name(p))}
        if sized > last and len(between) == len(params[last + 1: sized]):
            known.update(between)
            last = sized
            known["image_sizes"] = _image_sizes(known["pixel_values"])
    return [known[p] for p in params[: last + 1]]


def _image_sizes(pixels: str) -> str:
    """``image_sizes`` for a pixel_values spec: one image, (height, width) as int64 values."""
    height = pixels.split("x")[-2]
    return f"1x2:int64={height}"


def _by_name(param: str) -> str | None:
    """A required input the tables do not name, guessed from its name: token ids and masks
    (``qformer_input_ids``, ``task_inputs``), an image (``prompt_pixel_values``), a video
    (``pixel_values_videos``: 8 frames)."""
    if param.endswith("_mask"):
        return "1x32:int64=1"
    if param.endswith("_ids") or param == "task_inputs":
        return "1x32:int64"
    if "pixel_values" in param:
        return VIDEO if "video" in param else INPUTS["pixel_values"]
    return None


def _model_class(text: str, prefix: str) -> str | None:
    classes = re.findall(rf"^class (\w+)\((?:[\w.]+, )*{prefix}PreTrainedModel\b", text, re.M)
    return f"{prefix}Model" if f"{prefix}Model" in classes else (classes[0] if classes else None)


def _fillable(parameter: str | None) -> bool:
    """A forward's first parameter the script can give as the model's main input (None: no
    forward of its own, judged as before); a mask is not one."""
    return parameter is None or parameter in INPUTS or (_by_name(parameter) is not None
                                                        and not parameter.endswith("_mask"))


def _first_parameter(text: str, name: str) -> str | None:
    """The first parameter of class ``name``'s own forward (read as text)."""
    found = re.search(rf"^class {name}\(.*?^    def forward\(\s*self,\s*(\w+)", text, re.M | re.S)
    own = found and not re.search(r"^class ", text[text.index(f"class {name}(") + 1: found.start(1)], re.M)
    return found.group(1) if own else None


def model_expression(text: str):
    """(``XModel(XConfig())``, the input specs) for a modeling file's text, or None.  X is the
    file's first ``XPreTrainedModel`` base class; the class is ``XModel``, else the first class
    deriving from the base.  When that class's forward starts with an input the script cannot
    name (an encoder's ``hidden_states``), the first other base class Y with a ``YModel``
    (LW-DETR's detector beside its ViT backbone), else the first class of X's whose forward
    starts with a named input (a backbone's pixel_values)."""
    bases = re.findall(r"^class (\w+)PreTrainedModel\(", text, re.M)
    if not bases:
        return None
    name = _model_class(text, bases[0])
    if name is not None and not _fillable(_first_parameter(text, name)):
        other = next((p for p in bases[1:] if re.search(rf"^class {p}Model\(", text, re.M)), None)
        classes = re.findall(rf"^class (\w+)\((?:[\w.]+, )*{bases[0]}PreTrainedModel\b", text, re.M)
        named = [c for c in classes if _fillable(_first_parameter(text, c))]
        name = f"{other}Model" if other else (named or [name])[0]
    imports = re.search(r"from \.configuration_\w+ import \(?([\w\s,]+)\)?", text)
    configs = re.findall(r"\b(\w+Config)\b", imports.group(1)) if imports else []
    config = _config_for(name, configs) if name else None
    if name is None or config is None:
        return None
    specs = _forward_inputs(text, name)
    if specs is None:
        forward = re.search(rf"^class {name}\(.*?^    def forward\(\s*self,\s*(\w+)", text, re.M | re.S)
        specs = [INPUTS.get(forward.group(1) if forward else "", "1x32:int64")]
    return f"{name}({config}())", specs


# The model said the inputs do not fit it (an image size, a channel count, an audio layout):
# the script tries the inputs read from the configuration file's defaults next.
MISFIT = re.compile(r"expects \d+ (input )?(channels|features|input channels|input features)|does not fit input|"
                    r"doesn't match model|do not broadcast|[Ii]nput image size|must be mono|too small|cannot reshape|"
                    r"expects a \d or \d-D input|patch width|out of range for a tensor of rank|"
                    r"cannot unpack [234] values into [345] targets|split sizes must sum exactly to the dimension's size")


def _config_default(folder: Path, names: tuple) -> int | None:
    """The first default a configuration file of the model's folder gives one of these fields
    (``image_size: int = 384``, ``image_size=384``, ``"num_mel_bins": 128``); read as text."""
    pattern = re.compile(rf"\b(?:{'|'.join(names)})[\"']?\s*(?::\s*[\w\[\], |.]+?)?\s*[=:]\s*\(?(\d+)")
    for config in sorted(folder.glob("configuration_*.py")):
        found = pattern.search(config.read_text(encoding="utf-8"))
        if found:
            return int(found.group(1))
    return None


def _config_pair(folder: Path, names: tuple) -> tuple | None:
    """A (height, width) default of one of these fields when the configuration gives a pair
    (``image_size: tuple[int, ...] = (32, 128)``), read as text; else None."""
    pattern = re.compile(rf"\b(?:{'|'.join(names)})[\"']?\s*(?::\s*[\w\[\], |.]+?)?\s*[=:]\s*[(\[](\d+),\s*(\d+)[)\]]")
    for config in sorted(folder.glob("configuration_*.py")):
        found = pattern.search(config.read_text(encoding="utf-8"))
        if found:
            return int(found.group(1)), int(found.group(2))
    return None


def alternatives(path: Path, specs: list, unnamed: bool = False) -> list:
    """Other inputs to try when the first do not fit: the configuration's image size (a pair:
    height and width) and channels for ``pixel_values`` (and its frames, for a video model); its mel bins for ``input_features`` in both layouts (B, F, T)
    and (B, T, F); a mono channel axis for ``input_values``, then (B, frames, mel bins) when the
    configuration names mel bins (a spectrogram model); an image for a lone input the
    script could not name (``hidden_states``: token ids were tried first).  Last, images with an axis of
    tiles or images per sample, (batch, tiles, channels, height, width): one, or five when
    the model also takes ``image_sizes`` (an any-resolution model keeps the tiles its image size
    needs: LLaVA-NeXT 3 of a 336x336 image).  ``image_sizes`` follows the image size tried, and
    token inputs are cut to the configuration's ``max_position_embeddings`` when it is under 32."""
    size = _config_default(path.parent, ("image_size", "img_size", "input_size", "max_img_size"))
    hw = _config_pair(path.parent, ("image_size", "img_size", "input_size")) or (size or 224, size or 224)
    channels = _config_default(path.parent, ("num_channels", "in_channels", "num_input_channels")) or 3
    bins = _config_default(path.parent, ("num_mel_bins", "feature_size", "input_feat_size", "num_mel_filters",
                                         "input_feat_per_channel", "feature_projection_input_dim")) or 80
    frames = _config_default(path.parent, ("num_frames",))
    first, second = [], []
    for spec in specs:
        if spec == INPUTS["pixel_values"] and frames:  # a video model: (batch, frames, channels, height, width)
            first.append(f"1x{frames}x{channels}x{hw[0]}x{hw[1]}")
            second.append(f"1x{channels}x{hw[0]}x{hw[1]}")
        elif spec == INPUTS["pixel_values"] and (size or channels != 3):
            first.append(f"1x{channels}x{hw[0]}x{hw[1]}")
            second.append(first[-1])
        elif spec == VIDEO and (size or channels != 3):  # a second, video input: its frames at the image size
            first.append(f"1x{frames or 8}x{channels}x{hw[0]}x{hw[1]}")
            second.append(first[-1])
        elif spec == INPUTS["input_features"]:
            first.append(f"1x{bins}x3000")
            second.append(f"1x3000x{bins}")
        elif spec == INPUTS["input_values"]:
            first.append("1x1x16000")
            # a spectrogram model names its input input_values too (the Audio Spectrogram
            # Transformer: (batch, frames, mel bins)), its configuration the mel bins and frames
            mel = _config_default(path.parent, ("num_mel_bins",))
            second.append(f"1x{_config_default(path.parent, ('max_length',)) or 1024}x{mel}" if mel else spec)
        elif unnamed:
            # a lone input the script could not name (`hidden_states`) that did not fit as token ids:
            # an image
            first.append(f"1x{channels}x{hw[0]}x{hw[1]}")
            second.append(first[-1])
        else:
            first.append(spec)
            second.append(spec)
    sized = any(spec.startswith("1x2:int64=") for spec in specs)
    tiled = [f"1x{5 if sized else 1}x{spec[2:]}" if spec.count("x") == 3 and ":" not in spec else spec
             for spec in first]
    tried = [_with_image_sizes(_tokens(c, path.parent)) for c in (first, second, tiled)]
    return [c for i, c in enumerate(tried) if c != specs and c not in tried[:i]]


def is_long_shot(path: Path, specs: list, other: list, unnamed: bool = False) -> bool:
    """The last try, an axis of tiles added to the images: when it fails too, the earlier
    failure is the one reported (its cause names what did not fit)."""
    tiles = [s.count("x") == 3 and o.count("x") == 4 and ":" not in s + o for s, o in zip(specs, other)]
    return other == alternatives(path, specs, unnamed)[-1] and any(tiles)


def _tokens(specs: list, folder: Path) -> list:
    """Token inputs no longer than the configuration's first ``max_position_embeddings`` when it
    is under 32 (OWL-ViT's text tower: 16 positions)."""
    positions = _config_default(folder, ("max_position_embeddings",))
    if not positions or positions >= 32:
        return specs
    return [s.replace("1x32:int64", f"1x{positions}:int64", 1) if s.startswith("1x32:int64") else s for s in specs]


def _with_image_sizes(specs: list) -> list:
    """``image_sizes`` (``1x2:int64=S``) set to the height of the pixel_values tried."""
    pixels = next((s for s in specs if ":" not in s and s.count("x") >= 3), None)
    return [_image_sizes(pixels) if pixels and s.startswith("1x2:int64=") else s for s in specs]


def run_one(path: Path, source_path: str, max_seconds: int) -> dict:
    found = model_expression(path.read_text(encoding="utf-8"))
    row = {"file": f"{path.parent.name}/{path.name}"}
    if found is None:
        return dict(row, outcome="no-model")
    model, specs = found
    first = _first_parameter(path.read_text(encoding="utf-8"), model.split("(")[0])
    unnamed = specs == ["1x32:int64"] and first not in INPUTS and first not in EXTRA
    original = " ".join(specs)
    tried = run_inputs(path, source_path, max_seconds, row, model, specs)
    named = _asked_for(path.read_text(encoding="utf-8"), model.split("(")[0], specs, tried)
    if named is not None:  # the model's error names an input the script can give: give it
        tried, specs = dict(run_inputs(path, source_path, max_seconds, row, model, named), first_input=original), named
    for other in alternatives(path, specs, unnamed):
        if tried["outcome"] != "failed" or not MISFIT.search(tried.get("cause", "")):
            break
        result = dict(run_inputs(path, source_path, max_seconds, row, model, other), first_input=original)
        if result["outcome"] == "failed" and is_long_shot(path, specs, other, unnamed):
            break
        tried = result
    text_only = _forward_inputs(path.read_text(encoding="utf-8"), model.split("(")[0], images=False)
    if tried["outcome"] == "failed" and NO_VISION.search(tried.get("cause", "")) and text_only not in (None, specs):
        # the default config has no vision tower (its `vision_config` is None): the optional image
        # the script added cannot be used, and the text model is what the default config builds
        tried = dict(run_inputs(path, source_path, max_seconds, row, model, text_only), first_input=original)
    return tried


# The model has no vision tower to take the optional image the script gave (a multimodal model
# whose default config leaves `vision_config` None: the tower is None, or the model says so).
NO_VISION = re.compile(r"'NoneType' object is not callable|without a vision_config|without a vision tower")


def _asked_for(text: str, name: str, specs: list, tried: dict) -> list | None:
    """When the model raised an error naming forward parameters the script did not give but
    can fill by name ("You have to specify either input_ids or inputs_embeds", "Both
    pixel_values and high_res_pixel_values should be specified"): the inputs with them."""
    cause = tried.get("cause", "")
    if tried["outcome"] != "failed" or "the model raises an error here" not in cause:
        return None
    mentioned = set(re.findall(r"\w+", cause.split("the model raises an error here", 1)[1]))
    fillable = tuple(p for p in mentioned if p in INPUTS or p in EXTRA or _by_name(p))
    found = _forward_inputs(text, name, fillable) if fillable else None
    return found if found and found != specs else None


def run_inputs(path: Path, source_path: str, max_seconds: int, row: dict, model: str, specs: list) -> dict:
    row = dict(row, model=model, input=" ".join(specs))
    inputs = [item for spec in specs for item in ("--input", spec)]
    command = ["staticflops", "analyze", str(path), "--model", model, *inputs, "--format", "json",
               "--source-path", source_path, "--max-seconds", str(max_seconds)]
    start = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=max_seconds * 2 + 60)
    except subprocess.TimeoutExpired:
        return dict(row, outcome="timeout", seconds=round(time.monotonic() - start, 1))
    row["seconds"] = round(time.monotonic() - start, 1)
    row["exit"] = done.returncode
    report = None
    try:
        report = json.loads(done.stdout) if done.stdout.strip().startswith("{") else None
    except ValueError:
        pass
    if done.returncode == 3:
        return dict(row, outcome="internal", cause=done.stderr.strip()[-600:])
    if report is not None and report.get("partial"):
        return dict(row, outcome="partial", cause=(report.get("stopped") or {}).get("message", ""))
    if done.returncode == 0 and report is not None:
        complete = report["totals"].get("complete")
        return dict(row, outcome="complete" if complete else "analysed", params=report["totals"].get("params"),
                    flops=report["totals"].get("forward_flops"))
    errors = [line for line in done.stderr.splitlines() if ": error: " in line]
    cause = errors[0] if errors else done.stderr.strip()[-300:]
    # a budget hit before the model was built (transformers' import-time code) is a partial run too
    return dict(row, outcome="partial" if "budget of" in cause else "failed", cause=cause)


def first_cause(cause: str) -> str:
    """The error's text without the file location, to group causes: an unknown value's chain
    (`a` on `b` on `c` is not modelled) is named by its root, `c`."""
    text = re.sub(r"^.*?: error: ", "", cause)
    chain = re.search(r"\((.*)\)$", text)
    if chain and " on " in chain.group(1):
        text = text[:chain.start()] + "(" + chain.group(1).split(" on ")[-1] + ")"
    text = re.sub(r"'[^']*'", "'…'", text)
    return re.sub(r"\d+", "N", text)[:120]


def outcome(row: dict) -> str:
    """Rows written before budget hits counted as partial are regrouped the same way."""
    if row["outcome"] == "failed" and "budget of" in row.get("cause", ""):
        return "partial"
    return row["outcome"]


def summarise(rows: list) -> str:
    outcomes = Counter(outcome(r) for r in rows)
    lines = [f"{len(rows)} modeling files: " + ", ".join(f"{n} {k}" for k, n in outcomes.most_common())]
    causes = Counter(first_cause(r.get("cause", "")) for r in rows if outcome(r) == "failed")
    for cause, n in causes.most_common(15):
        lines.append(f"  {n:4d}  {cause}")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source-path", required=True)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--max-seconds", type=int, default=120)
    parser.add_argument("--out", default="transformers-coverage.jsonl")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--stride", type=int, default=1, help="every Nth file (an even sample across the alphabet)")
    parser.add_argument("--summary-only", action="store_true")
    parser.add_argument("--only", nargs="+", default=None, metavar="PATTERN",
                        help="only the files whose 'folder/modeling_x.py' name matches one of these shell patterns "
                             "(re-running the files a fix concerns)")
    args = parser.parse_args()
    out = Path(args.out)
    rows = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    if not args.summary_only:
        done = {r["file"] for r in rows}
        files = sorted(Path(args.source_path, "transformers", "models").glob("*/modeling_*.py"))
        files = [f for f in files if not f.name.startswith(("modeling_tf_", "modeling_flax_"))]
        if args.only:
            files = [f for f in files if any(fnmatch.fnmatch(f"{f.parent.name}/{f.name}", p) for p in args.only)]
        files = files[args.start::args.stride][:args.limit]
        todo = [f for f in files if f"{f.parent.name}/{f.name}" not in done]
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool, out.open("a") as sink:
            for row in pool.map(lambda f: run_one(f, args.source_path, args.max_seconds), todo):
                rows.append(row)
                sink.write(json.dumps(row) + "\n")
                sink.flush()
                print(row["file"], row["outcome"], row.get("seconds", ""), row.get("cause", "")[:160], flush=True)
    print(summarise(rows))
    return 1 if any(r["outcome"] == "internal" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
