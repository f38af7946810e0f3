"""Keras layers added for issue 20 under rule sets other than `tf-profiler` (which
tests/test_keras_cases.py checks against the recorded profiler): hand-derived counts."""

import staticflops

CASES = "tests/fixtures/keras_cases/"


def test_full_counts_a_crop_as_a_copy_and_an_upsizing_crop_as_a_bilinear_resize():
    # CenterCrop(4, 5) of 6x7: a copy, 0 operations.
    assert staticflops.analyze(CASES + "augment_center_crop.py", batch=1, rules="full").totals.forward_flops == 0
    # CenterCrop(10, 12) of 6x7 resizes: 10*12*3 = 360 outputs x 9 (bilinear, as `interpolate`) = 3,240.
    report = staticflops.analyze(CASES + "augment_center_crop_upsize.py", batch=1, rules="full")
    assert report.totals.forward_flops == 3_240
    assert report.outputs == [[1, 10, 12, 3]]


def test_augmentation_is_free_at_inference_in_every_convention():
    for rules in ("standard", "full", "tf-profiler"):
        report = staticflops.analyze(CASES + "augment_random_rotation.py", batch=1, rules=rules)
        assert report.unknown == [] and report.totals.forward_flops == 0, rules


def test_full_prices_keras_norms():
    # RMSNormalization on 1x5x8: per element square + add, scale, weight (4) = 160, per row 4 = 20.
    assert staticflops.analyze(CASES + "rms_norm.py", batch=1, rules="full").totals.forward_flops == 180
    # GroupNormalization(groups=2) on 1x6x7x4 (gamma and beta: affine): (6 + 2) * 168 + 4 * 1 * 2 = 1,352.
    assert staticflops.analyze(CASES + "group_norm.py", batch=1, rules="full").totals.forward_flops == 1_352
    # UnitNormalization on 1x5x8 (p = 2): per row of 8, 3 * 8 + 1 = 25 -> 125.
    assert staticflops.analyze(CASES + "unit_norm.py", batch=1, rules="full").totals.forward_flops == 125


def test_standard_attention_layers_count_their_two_matmuls():
    # query 5x4, value 6x3, key 6x4: scores 5*6*4 = 120 MACs, weighted sum 5*3*6 = 90 MACs.
    assert staticflops.analyze(CASES + "attention_dot.py", batch=1).totals.macs == 210
    # Additive / concat scores are tanh(q + k) sums, no matmul: only the weighted sum, 90.
    for case in ("additive_attention.py", "attention_concat.py"):
        assert staticflops.analyze(CASES + case, batch=1).totals.macs == 90, case
    # Self-attention on 5x4 with the weights returned: 5*5*4 twice = 200 MACs; outputs 5x4 and 5x5.
    report = staticflops.analyze(CASES + "attention_self_scores.py", batch=1)
    assert report.totals.macs == 200
    assert report.outputs == [[1, 5, 4], [1, 5, 5]]


def test_standard_grouped_query_attention():
    report = staticflops.analyze(CASES + "gqa_self.py", batch=1)
    # 5x8 input, 4 query heads, 2 key/value heads of 4: query projection 5*8*16 = 640 MACs
    # (params 8*16 + 16 = 144), key and value 5*8*8 = 320 each (72 params each), scores and
    # weighted sum 4*5*5*4 = 400 each, output 5*16*8 = 640 (16*8 + 8 = 136 params).
    assert report.totals.macs == 640 + 320 + 320 + 400 + 400 + 640 == 2_720
    assert report.totals.params == 144 + 72 + 72 + 136 == 424
    assert [row.name for row in report.layers if row.type == "EinsumDense"] == [
        "grouped_query_attention." + name for name in ("query", "key", "value", "attention_output")]


def test_standard_ops_dot_product_attention():
    report = staticflops.analyze(CASES + "ops_dot_product_attention.py", batch=1)
    # query 5 x 4 heads x 8, key/value 6 x 2 heads (repeated to 4): 4*5*6*8 = 960 MACs for the
    # logits and 960 for the weighted sum.
    assert report.totals.macs == 1_920
    assert report.outputs == [[1, 5, 4, 8]]


def test_full_prices_keras_preprocessing():
    # Rescaling(1/255) on 1x4x4x3: multiply and add per element, 2 * 48 = 96.
    assert staticflops.analyze(CASES + "rescaling.py", batch=1, rules="full").totals.forward_flops == 96
    # Resizing(8, 6) bilinear of 1x4x4x3: 8*6*3 = 144 outputs x 9 = 1,296.
    assert staticflops.analyze(CASES + "resizing.py", batch=1, rules="full").totals.forward_flops == 1_296


def test_rnn_of_a_cell_is_the_layer_of_that_cell():
    # RNN(SimpleRNNCell(4)) on 1x5x3: 5 steps x 4 x (3 + 4) = 140 MACs; 4*3 + 4*4 + 4 = 32 params.
    report = staticflops.analyze(CASES + "rnn_simple_cell.py", batch=1)
    assert (report.totals.macs, report.totals.params) == (140, 32)
    # RNN(GRUCell(4), return_sequences=True): 5 x 3*4*7 = 420 MACs; 84 weights + 2 x 12 biases.
    report = staticflops.analyze(CASES + "rnn_gru_cell_sequences.py", batch=1)
    assert (report.totals.macs, report.totals.params) == (420, 108)
    assert report.outputs == [[1, 5, 4]]
