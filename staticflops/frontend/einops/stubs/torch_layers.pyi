# einops.layers.torch, described in the Python subset our interpreter evaluates.
# This file is read as text and interpreted by staticflops; Python never imports it.
# Names bound by the loader: Module, Parameter, zeros, and the helpers _transform (one
# rearrange/reduce/repeat), _einsum (einops.einsum), _einmix (EinMix's shapes and patterns)
# and _check (a layer's pattern, checked when it is built).  Submodules and parameters are
# those of einops 0.8's classes, so parameter names and counts match.


class Rearrange(Module):
    def __init__(self, pattern, **axes_lengths):
        super().__init__()
        self.pattern = pattern
        self.axes_lengths = axes_lengths
        _check(pattern, "rearrange", axes_lengths, "Rearrange")

    def forward(self, input):
        return _transform(input, self.pattern, "rearrange", self.axes_lengths, "Rearrange")


class Reduce(Module):
    def __init__(self, pattern, reduction, **axes_lengths):
        super().__init__()
        self.pattern = pattern
        self.reduction = reduction
        self.axes_lengths = axes_lengths
        _check(pattern, reduction, axes_lengths, "Reduce")

    def forward(self, input):
        return _transform(input, self.pattern, self.reduction, self.axes_lengths, "Reduce")


class EinMix(Module):
    def __init__(self, pattern, weight_shape, bias_shape=None, **axes_lengths):
        super().__init__()
        self.pattern = pattern
        self.weight_shape = weight_shape
        self.bias_shape = bias_shape
        self.axes_lengths = axes_lengths
        weight, bias, self.einsum_pattern, pre, pre_lengths, post = _einmix(pattern, weight_shape, bias_shape, axes_lengths)
        self.pre_rearrange = None
        if pre is not None:
            self.pre_rearrange = Rearrange(pre, **pre_lengths)
        self.post_rearrange = None
        if post is not None:
            self.post_rearrange = Rearrange(post)
        self.weight = Parameter(zeros(weight))
        self.bias = None
        if bias is not None:
            self.bias = Parameter(zeros(bias))

    def forward(self, input):
        if self.pre_rearrange is not None:
            input = self.pre_rearrange(input)
        result = _einsum(input, self.weight, self.einsum_pattern)
        if self.bias is not None:
            result = result + self.bias
        if self.post_rearrange is not None:
            result = self.post_rearrange(result)
        return result
