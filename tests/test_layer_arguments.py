"""Arguments PyTorch rejects are located errors naming the layer or op, never a silent wrong
shape or count (issue 8, "never a silent wrong number"). Each input below was accepted before:
the comment says what it gave. PyTorch's own behaviour was checked with torch 2.13.0."""

import pytest

import probe_helpers
from probe_helpers import HEADER, LAYER_MODEL as MODEL
from staticflops import AnalysisError
from staticflops.api import analyze_text

# the layer is built on line 9 (column 18: `nn...`), called on line 12 (column 16: `self.m(x)`)


def analyze(layer: str, call: str, shape: str):
    return probe_helpers.analyze_source(MODEL.format(layer=layer, call=call), inputs=[shape])


def error_of(layer: str, call: str, shape: str) -> str:
    return probe_helpers.error_of(MODEL.format(layer=layer, call=call), inputs=[shape])


# 1. expand / expand_as / repeat: only -1 keeps a dimension; only a size-1 dimension may grow.
@pytest.mark.parametrize("call, shape, message", [
    # was shape [-5, 6]; torch: "Trying to create tensor with negative dimension" (numel overflow)
    ("x.expand(-5, 6)", "1x6", "expand: the expanded size -5 is negative (only -1, keeping the dimension, is allowed)"),
    # was 2x4; torch: "The expanded size of the tensor (4) must match the existing size (3) at
    # non-singleton dimension 1"
    ("x.expand(2, 4)", "2x3", "expand: the expanded size 4 must match the existing size 3 at non-singleton "
                              "dimension 1 (target 2x4, tensor 2x3)"),
    # was 2x3 kept silently as 2x2x3 with a -1 leading size; torch: "isn't allowed in a leading,
    # non-existing dimension 0"
    ("x.expand(-1, 2, 3)", "2x3", "expand: the expanded size -1 is not allowed in the new leading dimension 0"),
    # was 2x4 (the other tensor's shape, unchecked)
    ("x.expand_as(torch.zeros(2, 4))", "2x3", "expand_as: the expanded size 4 must match the existing size 3 at "
                                              "non-singleton dimension 1 (target 2x4, tensor 2x3)"),
    # was -2x6; torch: "Trying to create tensor with negative dimension -2"
    ("x.repeat(-1, 2)", "2x3", "repeat: negative repeat count -1"),
    # was 2x6 (zip dropped a dimension); torch: "Number of dimensions of repeat dims can not be
    # smaller than number of dimensions of tensor"
    ("x.repeat(2)", "2x3", "repeat: repeat with 1 counts is fewer than the tensor's 2 dimensions"),
])
def test_expand_and_repeat_reject_what_pytorch_rejects(call, shape, message):
    assert error_of("nn.Identity()", call, shape) == "m.py:12:16: " + message


def test_expand_still_keeps_minus_one_grows_singletons_and_adds_leading_dims():
    # 1x6 expanded to (4, -1): 4x6; then (3, 4, 6) adds a leading 3 -> 3x4x6 = 72 elements;
    # repeat(2, 1, 1) of 3x4x6 -> 6x4x6
    report = analyze("nn.Identity()", "x.expand(4, -1).expand(3, 4, 6).repeat(2, 1, 1)", "1x6")
    assert report.outputs == [[6, 4, 6]]


# 2.-5. constructor arguments, located at the layer's construction (line 9, column 18)
@pytest.mark.parametrize("layer, message", [
    # non-integer groups: was a fractional channel split (in_channels 4 / 1.5) in the weight shape
    ("nn.Conv2d(4, 8, 3, groups=1.5)", "Conv2d: groups must be a positive integer, got 1.5"),
    ("nn.Conv1d(4, 8, 3, groups=2.0)", "Conv1d: groups must be a positive integer, got 2.0"),
    ("nn.Conv3d(4, 8, 3, groups=True)", "Conv3d: groups must be a positive integer, got True"),
    ("nn.ConvTranspose2d(4, 8, 3, groups=0.5)", "ConvTranspose2d: groups must be a positive integer, got 0.5"),
    # was accepted: head_dim 8 // 3 = 2 would give 6 channels, not 8 (torch asserts)
    ("nn.MultiheadAttention(8, 3)", "MultiheadAttention: embed_dim (8) must be divisible by num_heads (3)"),
    ("nn.MultiheadAttention(8, 0)", "MultiheadAttention: num_heads must be a positive integer, got 0"),
    # the stub nn.TransformerEncoderLayer builds a MultiheadAttention: located at the user's line
    ("nn.TransformerEncoderLayer(d_model=8, nhead=3)",
     "MultiheadAttention: embed_dim (8) must be divisible by num_heads (3)"),
    # was accepted (torch: ZeroDivisionError / "num_channels (8) must be divisible by num_groups (3)")
    ("nn.GroupNorm(0, 8)", "GroupNorm: num_groups must be a positive integer, got 0"),
    ("nn.GroupNorm(3, 8)", "GroupNorm: num_channels (8) must be divisible by num_groups (3)"),
])
def test_constructor_arguments_pytorch_rejects_are_located_errors(layer, message):
    assert error_of(layer, "self.m(x)", "2x4x8") == "m.py:9:18: " + message


# 5. scale factors and sizes of an interpolation must be positive (were size-0 or negative dims)
@pytest.mark.parametrize("layer, call, message", [
    ("nn.Upsample(scale_factor=0)", "self.m(x)", "Upsample: scale_factor must be positive, got 0"),
    ("nn.Upsample(scale_factor=(2, -1.5))", "self.m(x)", "Upsample: scale_factor must be positive, got -1.5"),
    ("nn.Identity()", "F.interpolate(x, scale_factor=-2)", "F.interpolate: scale_factor must be positive, got -2"),
    ("nn.Identity()", "F.interpolate(x, size=(0, 4))", "F.interpolate: non-positive output size 0 is not supported"),
])
def test_interpolation_scale_and_size_must_be_positive(layer, call, message):
    assert error_of(layer, call, "1x3x4x4") == "m.py:12:16: " + message


def test_interpolation_with_a_positive_scale_still_works():
    # 1x3x4x4 scaled by 1.5 -> floor(4 * 1.5) = 6 per side: 1x3x6x6
    assert analyze("nn.Upsample(scale_factor=1.5)", "self.m(x)", "1x3x4x4").outputs == [[1, 3, 6, 6]]


# 6. errors raised while running a layer name it, as construction-time errors do
@pytest.mark.parametrize("layer, shape, message", [
    ("nn.Conv2d(4, 8, 3, stride=0)", "1x4x8x8", "Conv2d: non-positive stride 0 is not supported"),
    ("nn.Conv2d(4, 8, 3, dilation=(1, -2))", "1x4x8x8", "Conv2d: non-positive dilation -2 is not supported"),
    ("nn.MaxPool2d(2, stride=0)", "1x4x8x8", "MaxPool2d: non-positive stride 0 is not supported"),
    ("nn.PixelShuffle(0)", "1x4x8x8", "PixelShuffle: non-positive upscale factor 0 is not supported"),
    # messages that already start with the layer's name are not labelled twice
    ("nn.Conv2d(4, 8, 3)", "1x5x8x8", "Conv2d expects 4 input channels, got 5"),
])
def test_run_time_errors_of_a_layer_start_with_its_name(layer, shape, message):
    assert error_of(layer, "self.m(x)", shape) == "m.py:12:16: " + message


def test_a_subclassed_layer_is_labelled_with_its_class_name_as_written():
    source = HEADER + ("class Wide(nn.Conv2d):\n    pass\n\n\n" + MODEL.format(layer="Wide(4, 8, 3, stride=0)",
                                                                          call="self.m(x)"))
    with pytest.raises(AnalysisError) as caught:
        analyze_text(source, "m.py", inputs=["1x4x8x8"])
    assert str(caught.value) == "m.py:16:16: Wide: non-positive stride 0 is not supported"


# 7. other common layers' arguments
@pytest.mark.parametrize("layer, message", [
    # was a -1920 FLOPs forward (num_layers 0 in the rule's layer count)
    ("nn.GRU(8, 8, num_layers=0)", "GRU: num_layers must be a positive integer, got 0"),
    # was 0 FLOPs and a 2x4x0 output (torch: "hidden_size must be greater than zero")
    ("nn.LSTM(8, 0)", "LSTM: hidden_size must be a positive integer, got 0"),
    ("nn.RNN(0, 4)", "RNN: input_size must be a positive integer, got 0"),
    ("nn.Dropout(1.5)", "Dropout: dropout probability has to be between 0 and 1, got 1.5"),
    ("nn.Dropout2d(p=-0.1)", "Dropout2d: dropout probability has to be between 0 and 1, got -0.1"),
    # torch: "Trying to create tensor with negative dimension -2: [-2, 4]"
    ("nn.Linear(8, -2)", "Linear: out_features must be a non-negative integer, got -2"),
    ("nn.Embedding(-1, 4)", "Embedding: num_embeddings must be a non-negative integer, got -1"),
])
def test_other_layer_arguments_pytorch_rejects(layer, message):
    assert error_of(layer, "self.m(x)", "2x4x8") == "m.py:9:18: " + message


@pytest.mark.parametrize("layer, call", [
    ("nn.MaxPool2d(5)", "self.m(x)"),  # (4 - 5) // 5 + 1 = 0 per side; was a 1x3x0x0 output
    ("nn.AvgPool2d(5)", "self.m(x)"),
    ("nn.Identity()", "F.max_pool2d(x, 5)"),
])
def test_a_pool_window_larger_than_the_padded_input_is_an_error(layer, call):
    # torch: "Given input size: (3x4x4). Calculated output size: (3x0x0). Output size is too small"
    label = call.split("(")[0].replace("self.m", layer.split("(")[0].removeprefix("nn."))
    assert error_of(layer, call, "1x3x4x4") == (
        f"m.py:12:16: {label}: output size is too small: input 4x4 gives 0x0 with kernel 5x5")


def test_zero_sized_weights_pytorch_allows_are_still_accepted():
    # torch allows Linear(0, 4): an empty weight, output 2x4 (the bias only); params 0*4 + 4 = 4
    report = analyze("nn.Linear(0, 4)", "self.m(x)", "2x0")
    assert report.outputs == [[2, 4]]
    assert report.totals.params == 4


# more of the same pattern (each was accepted with a silently wrong shape or count; the torch
# message is what torch 2.13.0 raises for the same input)
@pytest.mark.parametrize("layer, message", [
    # torch: "Trying to create tensor with negative dimension -8: [-8, 4, 3, 3]"; was -8 channels out
    ("nn.Conv2d(4, -8, 3)", "Conv2d: out_channels must be a non-negative integer, got -8"),
    # torch: "Trying to create tensor with negative dimension -3: [-3]"
    ("nn.BatchNorm1d(-3)", "BatchNorm1d: num_features must be a non-negative integer, got -3"),
    ("nn.LayerNorm(-4)", "LayerNorm: normalized_shape must be a non-negative integer, got -4"),
    # torch: "Padding_idx must be within num_embeddings"
    ("nn.Embedding(10, 4, padding_idx=12)", "Embedding: padding_idx 12 must be within num_embeddings (10)"),
])
def test_more_constructor_arguments_pytorch_rejects(layer, message):
    assert error_of(layer, "self.m(x)", "2x4x8") == "m.py:9:18: " + message


@pytest.mark.parametrize("layer, call, shape, message", [
    # torch: "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of
    # upscale_factor"; was 6 // 4 = 1 channel out
    ("nn.PixelShuffle(2)", "self.m(x)", "1x6x4x4",
     "PixelShuffle: input channels 6 are not divisible by the square of the upscale factor 2"),
    # torch: "pad should be at most half of effective kernel size"; was a 1x3x5x5 output
    ("nn.MaxPool2d(3, padding=2)", "self.m(x)", "1x3x8x8",
     "MaxPool2d: padding 2 must be between 0 and half the effective kernel size 3"),
    # torch: "negative padding is not supported"; was 4x4 per side
    ("nn.Conv2d(4, 8, 3, padding=-1)", "self.m(x)", "1x4x8x8", "Conv2d: negative padding -1 is not supported"),
    # torch: "kernel size should be greater than zero"; was a 9x9 output with 0 FLOPs
    ("nn.Conv2d(4, 8, 0)", "self.m(x)", "1x4x8x8", "Conv2d: non-positive kernel size 0 is not supported"),
    # torch: "output padding must be smaller than either stride or dilation"; was a 12x12 output
    ("nn.ConvTranspose2d(4, 8, 3, output_padding=2)", "self.m(x)", "1x4x8x8",
     "ConvTranspose2d: output padding 2 must be smaller than either stride 1 or dilation 1"),
    # torch: "flatten() has invalid args: start_dim cannot come after end_dim"
    ("nn.Identity()", "x.flatten(1, 0)", "2x4x3", "flatten: start_dim 1 comes after end_dim 0"),
    # torch: "dropout probability has to be between 0 and 1, but got 1.5"
    ("nn.Identity()", "F.dropout(x, p=1.5)", "2x4", "F.dropout: dropout probability has to be between 0 and 1, got 1.5"),
    # torch: "zeros: Dimension size must be non-negative." / "Trying to create tensor with negative dimension"
    ("nn.Identity()", "torch.zeros(-1, 4)", "2x4", "torch.zeros: negative size -1 in the requested shape"),
    ("nn.Identity()", "torch.randn(2, -3)", "2x4", "torch.randn: negative size -3 in the requested shape"),
    ("nn.Identity()", "x.new_zeros(-3)", "2x4", "new_zeros: negative size -3 in the requested shape"),
])
def test_more_call_arguments_pytorch_rejects(layer, call, shape, message):
    assert error_of(layer, call, shape) == "m.py:12:16: " + message


def test_valid_pool_padding_and_transposed_output_padding_are_still_accepted():
    # MaxPool2d(3, stride=2, padding=1) on 8x8: (8 + 2 - 2 - 1) // 2 + 1 = 4 per side;
    # ConvTranspose2d(3, 2, 3, stride=2, output_padding=1): (4 - 1) * 2 + (3 - 1) + 1 + 1 = 10
    report = analyze("nn.MaxPool2d(3, stride=2, padding=1)",
                     "nn.ConvTranspose2d(3, 2, 3, stride=2, output_padding=1)(self.m(x))", "1x3x8x8")
    assert report.outputs == [[1, 2, 10, 10]]


@pytest.mark.parametrize("layer, shape, message", [
    # torch 2.13.0 raises each of these at construction; each was accepted (the strided 'same'
    # conv as a 4x4 output, proj_size as a smaller or negative output)
    ("nn.Conv2d(4, 8, 3, stride=2, padding='same')", "1x4x8x8",
     "Conv2d: padding='same' is not supported for strided convolutions"),
    ("nn.Conv2d(4, 8, 3, padding='full')", "1x4x8x8", "Conv2d: invalid padding string 'full', should be 'valid' or 'same'"),
    ("nn.LSTM(4, 8, proj_size=8)", "5x2x4", "LSTM: proj_size (8) has to be smaller than hidden_size (8)"),
    ("nn.LSTM(4, 8, proj_size=-1)", "5x2x4",
     "LSTM: proj_size should be a positive integer or zero to disable projections, got -1"),
    ("nn.GRU(4, 8, proj_size=2)", "5x2x4", "GRU: proj_size argument is only supported for LSTM, not RNN or GRU"),
    ("nn.LSTM(4, 8, dropout=2.0)", "5x2x4", "LSTM: dropout has to be between 0 and 1, got 2.0"),
])
def test_padding_strings_and_recurrent_options_pytorch_rejects(layer, shape, message):
    assert error_of(layer, "self.m(x)", shape) == "m.py:9:18: " + message


@pytest.mark.parametrize("layer, call, shape, message", [
    # torch: "only one of size or scale_factor should be defined"; was the size, silently
    ("nn.Upsample(size=4, scale_factor=2)", "self.m(x)", "1x3x4x4",
     "Upsample: only one of size or scale_factor should be defined"),
    # torch: "Dimension out of range (expected to be in range of [-2, 1], but got 5)"
    ("nn.Softmax(dim=5)", "self.m(x)", "2x4", "Softmax: dimension 5 is out of range for a tensor of rank 2"),
    ("nn.Identity()", "F.log_softmax(x, dim=-3)", "2x4", "log_softmax: dimension -3 is out of range for a tensor of rank 2"),
])
def test_interpolate_with_both_size_and_scale_and_softmax_dim_out_of_range(layer, call, shape, message):
    assert error_of(layer, call, shape) == "m.py:12:16: " + message


def test_valid_same_padding_lstm_projection_and_softmax_dim_are_still_accepted():
    # Conv2d 'same', stride 1: 1x4x8x8 -> 1x8x8x8; softmax over dim -1 keeps the shape
    assert analyze("nn.Conv2d(4, 8, 3, padding='same')", "F.softmax(self.m(x), dim=-1)",
                   "1x4x8x8").outputs == [[1, 8, 8, 8]]
    # LSTM(4, 8, proj_size=2) on 5x2x4 (seq, batch, features): output 5x2x2 (the projection)
    assert analyze("nn.LSTM(4, 8, proj_size=2)", "self.m(x)[0]", "5x2x4").outputs == [[5, 2, 2]]


@pytest.mark.parametrize("call, message", [
    # torch: "non-positive groups is not supported"; was "F.conv2d expects 0 input channels"
    ("F.conv2d(x, torch.zeros(8, 4, 3, 3), groups=0)", "F.conv2d: groups must be a positive integer, got 0"),
    # torch: "Given groups=3, expected weight to be divisible by 3 at dimension 0"
    ("F.conv2d(x, torch.zeros(8, 2, 3, 3), groups=3)", "F.conv2d: out_channels (8) must be divisible by groups (3)"),
    ("F.conv_transpose2d(x, torch.zeros(4, 2, 3, 3), groups=3)",
     "F.conv_transpose2d: in_channels (4) must be divisible by groups (3)"),
])
def test_functional_conv_groups_pytorch_rejects(call, message):
    assert error_of("nn.Identity()", call, "1x4x8x8") == "m.py:12:16: " + message


def test_functional_grouped_conv_is_still_priced():
    # F.conv2d, weight 8x2x3x3, groups 2, on 1x4x8x8: output 1x8x6x6 = 288 positions,
    # each 2 input channels x 3 x 3 = 18 MACs: 5,184 MACs = 10,368 FLOPs (standard: 2 per MAC)
    report = analyze("nn.Identity()", "F.conv2d(x, torch.zeros(8, 2, 3, 3), groups=2)", "1x4x8x8")
    assert report.outputs == [[1, 8, 6, 6]]
    assert report.totals.forward_flops == 10_368


# 8. sizes past int64.  torch 2.13.0 (meta device): nn.Linear(2**63, 4) and x.expand(2**63) raise
# TypeError "Overflow when unpacking long".  Before, 2**2000 crashed the table (a float overflow)
# and 2**20000 the JSON (Python will not write an integer of over 4,300 digits).
@pytest.mark.parametrize("layer, message", [
    ("nn.Linear(2 ** 63, 4)", "Linear: in_features of about 2**63 is over the int64 size limit (2**63 - 1)"),
    ("nn.Linear(4, 2 ** 20000)", "Linear: out_features of about 2**20000 is over the int64 size limit (2**63 - 1)"),
    ("nn.Embedding(-2 ** 20000, 4)", "Embedding: num_embeddings must be a non-negative integer, got -2**20000 or so"),
    ("nn.MultiheadAttention(2 ** 64, 1)", "MultiheadAttention: embed_dim of about 2**64 is over the int64 size limit "
                                          "(2**63 - 1)"),
    # any integer argument, not only sizes: these gave a message quoting Python's "Exceeds the
    # limit (4300 digits) for integer string conversion" at the call, or (stride) no error at all
    ("nn.Conv2d(4, 8, 3, stride=2 ** 20000)", "Conv2d: stride of about 2**20000 is over the int64 size limit (2**63 - 1)"),
    ("nn.MaxPool2d(2 ** 64)", "MaxPool2d: kernel_size of about 2**64 is over the int64 size limit (2**63 - 1)"),
    ("nn.GRU(4, 8, num_layers=2 ** 20000)", "GRU: num_layers of about 2**20000 is over the int64 size limit (2**63 - 1)"),
])
def test_sizes_past_int64_are_refused_at_the_constructor(layer, message):
    assert error_of(layer, "x", "2x4") == "m.py:9:18: " + message


def test_a_tensor_dimension_past_int64_is_refused_at_its_op():
    # nn.Identity passes the expanded tensor through: the first op that sees it is refused
    message = error_of("nn.Identity()", "self.m(x.expand(2 ** 2000, 4))", "1x4")
    assert message == ("m.py:12:16: Identity: a dimension of about 2**2000 is over the int64 size limit (2**63 - 1) "
                       "of PyTorch and TensorFlow")


def test_numbers_too_long_to_print_are_named_so_in_messages():
    # Python's own words were "Exceeds the limit (4300 digits) for integer string conversion;
    # use sys.set_int_max_str_digits() to increase the limit"
    assert error_of("nn.Identity()", "F.max_pool2d(x, 2 ** 20000)", "1x3x8x8") == (
        "m.py:12:16: F.max_pool2d: cannot compute the output shape from these arguments (a number of over 4,300 digits)")
    report = analyze("nn.Identity()", "x.reshape(2 ** 20000)", "1x3x8x8")
    assert [(str(u.location), u.what) for u in report.unknown] == [
        ("m.py:12:16", "`Tensor.reshape` called in a way that is not modelled (a number of over 4,300 digits)")]
