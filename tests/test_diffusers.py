"""diffusers 0.42.1 analysed from its published source, read like any third-party package (never
imported): `from diffusers import UNet2DConditionModel` goes through diffusers' `_LazyModule`
(`sys.modules[__name__] = ...`, its `__getattr__`, `importlib.import_module`), and the models'
`@register_to_config` plumbing fills `self.config`.

Ground truth: tests/fixtures/diffusers_ground_truth.json, recorded by tools/record_diffusers.py
executing torch 2.13.0 CPU + diffusers 0.42.1 (FlopCounterMode, eval under no_grad, SDPA MATH
backend, oneDNN off).  The source is downloaded once (`pip download --no-deps`) into pytest's
cache folder; without network the tests are skipped, saying why.
"""

import json
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

import staticflops
import wheels
from staticflops.cli.app import app

HERE = Path(__file__).parent
TRUTH = json.loads((HERE / "fixtures" / "diffusers_ground_truth.json").read_text())
VERSION = TRUTH["_meta"]["diffusers"]


@pytest.fixture(scope="module")
def diffusers_source(request, tmp_path_factory) -> Path:
    """The folder holding diffusers/ as published (the wheel unpacked; not ours to commit)."""
    return wheels.unpacked(request, tmp_path_factory, "diffusers", VERSION, "diffusers/")


def _shapes(entry) -> list[str]:
    return ["x".join(str(d) for d in spec["shape"]) + (":int64" if spec["dtype"] == "int64" else "")
            for spec in entry["inputs"]]


@pytest.mark.parametrize("name", ["unet_small", "vae_small", "sd15_unet", "flux_small", "sd3_small"])
def test_diffusers_models_are_exact(diffusers_source, tmp_path, name):
    """A user file importing the class from the package, as one would write it."""
    entry = TRUTH[name]
    (tmp_path / "model.py").write_text(f"from diffusers import {entry['class']}\n")
    report = staticflops.analyze(tmp_path / "model.py", model=entry["class"], kwargs=entry["kwargs"],
                                 inputs=_shapes(entry), source_path=[diffusers_source])
    assert report.unknown == []
    assert report.outputs == entry["output_shapes"]
    assert report.totals.params == entry["params"]
    assert report.totals.forward_flops == entry["forward_flops"]


def test_register_to_config_fills_self_config(diffusers_source, tmp_path):
    """diffusers' ConfigMixin: @register_to_config records the __init__ arguments (defaults
    filled in by inspect.signature) in a FrozenDict read back as `self.config.<name>`."""
    (tmp_path / "model.py").write_text(textwrap.dedent("""
        import torch.nn as nn
        from diffusers.configuration_utils import ConfigMixin, register_to_config
        from diffusers.models.modeling_utils import ModelMixin


        class Net(ModelMixin, ConfigMixin):
            @register_to_config
            def __init__(self, width: int = 3, depth: int = 2):
                super().__init__()
                self.a = nn.Linear(1, self.config.width * 10)   # the argument given: 5 -> 50
                self.b = nn.Linear(1, self.config.depth)        # the default: 2
                self.c = nn.Linear(1, len(self.config))         # 3: width, depth, _use_default_values
                self.d = nn.Linear(1, 7 if self.config._use_default_values == ["depth"] else 1)  # 7

            def forward(self, x):
                return x
    """))
    report = staticflops.analyze(tmp_path / "model.py", model="Net", kwargs={"width": 5}, inputs=["1x1"],
                                 source_path=[diffusers_source])
    assert report.unknown == []
    widths = {row.name: row.params // 2 for row in report.layers if row.type == "Linear"}
    # Linear(1, n) has n weights + n biases.  CPython (configuration_utils.py 0.42.1, inner_init):
    # config = {"width": 5, "depth": 2, "_use_default_values": ["depth"]} (the names not passed)
    assert widths == {"a": 50, "b": 2, "c": 3, "d": 7}


# ---- a model's config.json, as a pipeline ships it (unet/config.json, vae/config.json) -------

def _component_config(entry) -> dict:
    """The config.json diffusers writes for a model: the constructor's arguments, its class and
    the version that saved it (keys of no argument are dropped by ``from_config``)."""
    return {"_class_name": entry["class"], "_diffusers_version": "0.6.0", **entry["kwargs"]}


@pytest.mark.parametrize("name", ["sd15_unet", "vae_small", "flux_small", "sd3_small"])
def test_a_models_config_json_is_enough(diffusers_source, tmp_path, name):
    """`staticflops analyze unet/config.json`: `_class_name` names the class, built with its
    `from_config` as a pipeline loads a component; the recorded counts of the same arguments."""
    entry = TRUTH[name]
    (tmp_path / "component").mkdir()
    config = tmp_path / "component" / "config.json"
    config.write_text(json.dumps(_component_config(entry)))
    report = staticflops.analyze(config, inputs=_shapes(entry), source_path=[diffusers_source])
    assert report.unknown == [] and report.model == entry["class"]  # the class, not our stand-in's expression
    assert report.outputs == entry["output_shapes"]
    assert (report.totals.params, report.totals.forward_flops) == (entry["params"], entry["forward_flops"])


def test_flux_dev_transformer_params_from_its_config(diffusers_source, tmp_path):
    """FLUX.1-dev's published transformer/config.json: the params recorded on the meta device
    (11,901,408,320), at a small input (16 image tokens, 8 text tokens: the params do not depend
    on it)."""
    entry = TRUTH["flux_dev_transformer"]
    config = tmp_path / "config.json"
    config.write_text(json.dumps(_component_config(entry)))
    report = staticflops.analyze(config, inputs=["1x16x64", "1x8x4096", "1x768", "1", "16x3", "8x3", "1"],
                                 source_path=[diffusers_source])
    assert report.unknown == []
    assert report.totals.params == entry["params"]
    assert report.outputs == [[1, 16, 64]]


def _keyword_shapes(entry) -> list[str]:
    return [f"{name}=" + "x".join(map(str, spec["shape"])) for name, spec in entry["keyword_inputs"].items()]


def test_sdxl_unet_takes_its_conditioning_by_keyword(diffusers_source, tmp_path):
    """SDXL's UNet reads `added_cond_kwargs={"text_embeds": ..., "time_ids": ...}` (a dict given
    by keyword), which --keyword-input spells `added_cond_kwargs.text_embeds=1x16`: the small
    config exact, and SDXL-base's published unet/config.json with the params recorded on the
    meta device (2,567,463,684)."""
    entry = TRUTH["unet_sdxl_small"]
    config = tmp_path / "config.json"
    config.write_text(json.dumps(_component_config(entry)))
    result = CliRunner().invoke(app, ["analyze", str(config), *[f"--input={s}" for s in _shapes(entry)],
                                      *[f"--keyword-input={s}" for s in _keyword_shapes(entry)],
                                      "--source-path", str(diffusers_source), "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert (report["totals"]["params"], report["totals"]["forward_flops"]) == (entry["params"], entry["forward_flops"])
    assert report["outputs"] == entry["output_shapes"] and report["unknown"] == []
    assert report["keyword_inputs"] == {"added_cond_kwargs.text_embeds": "1x16", "added_cond_kwargs.time_ids": "1x6"}
    # without them, `"text_embeds" not in added_cond_kwargs` (None) raises, as in Python
    result = CliRunner().invoke(app, ["analyze", str(config), *[f"--input={s}" for s in _shapes(entry)],
                                      "--source-path", str(diffusers_source)])
    assert result.exit_code == 1, result.output
    assert "unet_2d_condition.py:908:" in result.output
    assert "error: argument of type 'NoneType' is not iterable" in result.output
    published = TRUTH["sdxl_unet"]
    config.write_text(json.dumps(_component_config(published)))
    report = staticflops.analyze(config, inputs=["1x4x16x16", "1:int64", "1x8x2048"], source_path=[diffusers_source],
                                 keyword_inputs={"added_cond_kwargs.text_embeds": "1x1280",
                                                 "added_cond_kwargs.time_ids": "1x6"})
    assert report.unknown == [] and report.totals.params == published["params"]


def _hub_pipeline(tmp_path, unet: dict) -> Path:
    """The layout huggingface_hub writes for a diffusers repository: models--org--name/{blobs/,
    refs/main, snapshots/<rev>/{model_index.json, unet/config.json}}, the files links to blobs."""
    revision = "89abcdef0123456789abcdef0123456789abcdef"
    repo = tmp_path / "hub" / "models--org--tiny-sd"
    snapshot = repo / "snapshots" / revision
    (snapshot / "unet").mkdir(parents=True)
    (repo / "blobs").mkdir()
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(revision)
    index = {"_class_name": "StableDiffusionPipeline", "_diffusers_version": "0.6.0",
             "scheduler": ["diffusers", "PNDMScheduler"], "text_encoder": ["transformers", "CLIPTextModel"],
             "tokenizer": ["transformers", "CLIPTokenizer"], "unet": ["diffusers", "UNet2DConditionModel"],
             "vae": ["diffusers", "AutoencoderKL"]}
    (repo / "blobs" / "index").write_text(json.dumps(index))
    (repo / "blobs" / "unet").write_text(json.dumps(unet))
    (snapshot / "model_index.json").symlink_to(Path("../../blobs/index"))
    (snapshot / "unet" / "config.json").symlink_to(Path("../../../blobs/unet"))
    return repo


def test_hub_cache_component_folder_and_its_pipeline(diffusers_source, tmp_path):
    """In the hub cache, a pipeline's component folder (or its config.json, a link into blobs/)
    is that model; the pipeline's own folder is not one model: the error names the components
    that have a config.json (of this pipeline, only unet/ was downloaded)."""
    entry = TRUTH["unet_small"]
    repo = _hub_pipeline(tmp_path, _component_config(entry))
    snapshot = next((repo / "snapshots").iterdir())
    for path in (snapshot / "unet", snapshot / "unet" / "config.json"):
        report = staticflops.analyze(path, inputs=_shapes(entry), source_path=[diffusers_source])
        assert (report.totals.params, report.totals.forward_flops) == (entry["params"], entry["forward_flops"])
    for path in (repo, snapshot):
        result = CliRunner().invoke(app, ["analyze", str(path), "--input", "1x4x32x32",
                                          "--source-path", str(diffusers_source)])
        assert result.exit_code == 1, result.output
        assert "model_index.json:1:1: error: this is a diffusers pipeline's model_index.json" in result.output
        assert "analyse one of its models, unet/config.json (UNet2DConditionModel)" in result.output
        assert "vae/" not in result.output


def test_config_json_errors_name_the_fix(diffusers_source, tmp_path):
    """A class this diffusers does not export, and no diffusers at all (an environment holding
    none, given with --python): each a located error saying what to do, not an unknown deep in
    the analysis."""
    entry = TRUTH["unet_small"]
    config = tmp_path / "config.json"
    config.write_text(json.dumps(dict(_component_config(entry), _class_name="UNet9DModel")))
    result = CliRunner().invoke(app, ["analyze", str(config), "--input", "1x4x32x32",
                                      "--source-path", str(diffusers_source)])
    assert result.exit_code == 1, result.output
    assert "config.json:1:1: error:" in result.output and "exports no class UNet9DModel" in result.output
    # --model picks the class instead
    report = staticflops.analyze(config, model="UNet2DConditionModel", inputs=_shapes(entry),
                                 source_path=[diffusers_source])
    assert report.totals.forward_flops == entry["forward_flops"]
    empty = tmp_path / "env"
    (empty / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    (empty / "pyvenv.cfg").write_text("home = /nowhere\nversion = 3.11.7\ninclude-system-site-packages = false\n")
    result = CliRunner().invoke(app, ["analyze", str(config), "--input", "1x4x32x32", "--python", str(empty)])
    assert result.exit_code == 1, result.output
    assert "none is found: install it beside staticflops without torch (`pip install --no-deps diffusers`)" \
        in " ".join(result.output.split())


@pytest.fixture(scope="module")
def hub_source(request, tmp_path_factory) -> Path:
    """huggingface_hub 2.4.0 (diffusers' config loading reads files through it), unpacked once."""
    return wheels.unpacked(request, tmp_path_factory, "huggingface_hub", "2.4.0", "huggingface_hub/")


def test_from_pretrained_of_a_project_folder(diffusers_source, hub_source, tmp_path):
    """`UNet2DConditionModel.from_pretrained("sd", subfolder="unet")` on a folder of the project
    holding the pipeline's unet/config.json (no weights: never read): the recorded small UNet.
    A hub id instead is a download: an error saying what to give."""
    entry = TRUTH["unet_small"]
    (tmp_path / "sd" / "unet").mkdir(parents=True)
    (tmp_path / "sd" / "unet" / "config.json").write_text(json.dumps(_component_config(entry)))
    (tmp_path / "model.py").write_text("from diffusers import UNet2DConditionModel\n")
    report = staticflops.analyze(tmp_path / "model.py", inputs=_shapes(entry), source_path=[diffusers_source, hub_source],
                                 model='UNet2DConditionModel.from_pretrained("sd", subfolder="unet", '
                                       'torch_dtype="float16")')
    assert report.unknown == []
    assert (report.totals.params, report.totals.forward_flops) == (entry["params"], entry["forward_flops"])
    result = CliRunner().invoke(app, ["analyze", str(tmp_path / "model.py"), "--model",
                                      'UNet2DConditionModel.from_pretrained("org/tiny-sd", subfolder="unet")',
                                      *[f"--input={s}" for s in _shapes(entry)], "--source-path", str(diffusers_source),
                                      "--source-path", str(hub_source)])
    assert result.exit_code == 1, result.output
    assert "'org/tiny-sd' is not a folder of the project" in result.output
