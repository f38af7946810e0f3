"""Popular transformers architectures from their *default* config.json (`{"model_type": ...,
"architectures": [...]}` and nothing else), as a user analyses a checkpoint's config: params
and forward FLOPs equal to FlopCounterMode, recorded by tools/record_hf_defaults.py (torch
2.13.0 CPU + transformers 5.23.0; eager attention, use_cache=False, masks of ones).  A few
cases here, of kinds the small-config tests (test_transformers.py) do not cover; all of them:
`python tools/compare_hf_defaults.py --source-path SITE_PACKAGES`."""

import json
from pathlib import Path

import pytest

import staticflops
from test_transformers import source_path  # noqa: F401  (the unpacked transformers wheel, a fixture)

CASES = json.loads((Path(__file__).parent / "fixtures" / "hf_default_configs.json").read_text())["cases"]


def _spelling(spec) -> str:
    shape = "x".join(str(d) for d in spec["shape"])
    return shape + (":int64" if spec["dtype"] == "int64" else "") + ("=1" if spec["name"] == "attention_mask" else "")


# data2vec-text and gpt-sw3: the class is found as transformers' auto classes find it, in
# data2vec/modeling_data2vec_text.py and in models/gpt2 (the model type's own folder has no such file)
@pytest.mark.parametrize("name", ["deberta-v2", "mamba", "swin", "wav2vec2", "m2m_100", "blip", "encodec",
                                  "data2vec-text-clm", "gpt-sw3"])
def test_default_config_equals_flop_counter_mode(tmp_path, source_path, name):  # noqa: F811
    case = CASES[name]
    config = tmp_path / "config.json"
    config.write_text(json.dumps(case["config"]))
    report = staticflops.analyze(config, inputs=[_spelling(s) for s in case["inputs"]], source_path=[source_path])
    assert (report.totals.params, report.totals.forward_flops) == (case["params"], case["forward_flops"])
    assert report.totals.complete, [f"{u.location}: {u.what}" for u in report.unknown]
