"""The JSON report's text is what ``json.dumps(report, indent=2)`` writes, byte for byte:
scripts may diff it.  ``contract_json`` writes the rows with pydantic-core for speed
(issue 9), so these tests compare the two writers on the values a report can hold."""

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

import staticflops
from staticflops.report.schema import contract_json

# Every code point a string may hold, surrogates excluded (Python str cannot encode them to UTF-8).
_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_COUNT = st.one_of(st.integers(min_value=-(2**70), max_value=2**70), _TEXT)
_ROW = st.fixed_dictionaries({
    "name": _TEXT, "type": _TEXT, "depth": st.integers(0, 50), "location": _TEXT,
    "output_shape": st.one_of(st.none(), st.lists(_COUNT, max_size=4)),
    "forward_flops": _COUNT, "backward_flops": st.one_of(st.none(), _COUNT),
})


def _report(rows, **extra):
    return {"schema_version": 1, "file": "m.py", "model": "M", "totals": {"forward_flops": 1, "complete": True},
            "layers": rows, "unknown": [], **extra}


@settings(max_examples=200, deadline=None)
@given(st.lists(_ROW, max_size=8))
def test_rows_are_written_as_json_dumps_writes_them(rows):
    data = _report(rows)
    assert contract_json(data) == json.dumps(data, indent=2)


def test_characters_json_escapes_specially():
    # DEL (0x7f) is ASCII but json escapes it; a character beyond the BMP becomes a surrogate pair;
    # control characters get their short (\n, \t) or \u00XX forms; quotes and backslashes.
    name = 'a\x7fb\U0001F600\u00e9\u2028\n\t\x00"\\'
    data = _report([{"name": name, "output_shape": [1, "B"]}])
    text = contract_json(data)
    assert text == json.dumps(data, indent=2)
    assert '"a\\u007fb\\ud83d\\ude00\\u00e9\\u2028\\n\\t\\u0000\\"\\\\"' in text


def test_floats_elsewhere_keep_json_formatting():
    # Floats live outside the rows (training figures); json writes 1e-07 where pydantic-core would write 1e-7.
    data = _report([{"name": "x"}], training={"mfu": 1e-07, "ratio": 2.0, "gpu_hours": math.inf})
    assert contract_json(data) == json.dumps(data, indent=2)
    assert '"mfu": 1e-07' in contract_json(data)


def test_empty_rows_and_a_real_deep_report():
    assert contract_json(_report([])) == json.dumps(_report([]), indent=2)
    # 12 GPT blocks: 12 x 11 modules and ops + the rest, many rows through the fast writer.
    report = staticflops.analyze("samples/transformer.py", inputs=["1x64:int64"], kwargs={"n_layer": 12},
                                 training=True)
    data = json.loads(report.to_json())
    assert len(data["layers"]) > 100
    assert report.to_json() == json.dumps(data, indent=2)


def _reports():
    gpt = staticflops.analyze("samples/transformer.py", inputs=["1x64:int64"], training=True, steps=1000,
                              hardware="h100", mfu=0.4)  # floats: the ratio, peak, MFU, GPU-hours
    keras = staticflops.analyze("samples/keras_seed.py")
    partial = staticflops.analyze("samples/resnet50.py", inputs=["1x3x224x224"], limits={"max_ops": 10})
    unknown = staticflops.analyze("samples/lenet5.py", inputs=["Bx1x28x28"], rules="fvcore")
    return gpt, keras, partial, unknown


def test_reports_are_dumped_as_pydantic_dumps_them():
    from staticflops.report.schema import plain_dump

    gpt, keras, partial, unknown = _reports()
    assert gpt.training.budget is not None and partial.partial and partial.stopped is not None
    for report in (gpt, keras, partial, unknown):
        assert plain_dump(report) == report.model_dump(mode="json")
        assert json.dumps(plain_dump(report), indent=2) == json.dumps(report.model_dump(mode="json"), indent=2)
