# einops.layers.keras and einops.layers.tensorflow (the same classes in einops 0.8), described
# in the Python subset our interpreter evaluates.  Read as text and interpreted by staticflops;
# Python never imports it.  Names bound by the loader: Layer, and the helpers _transform,
# _einsum, _einmix and _check (see torch_layers.pyi).  As in einops, EinMix creates its
# weights in build(), with add_weight.


class Rearrange(Layer):
    def __init__(self, pattern, **axes_lengths):
        super().__init__()
        self.pattern = pattern
        self.axes_lengths = axes_lengths
        _check(pattern, "rearrange", axes_lengths, "Rearrange")

    def call(self, inputs):
        return _transform(inputs, self.pattern, "rearrange", self.axes_lengths, "Rearrange")


class Reduce(Layer):
    def __init__(self, pattern, reduction, **axes_lengths):
        super().__init__()
        self.pattern = pattern
        self.reduction = reduction
        self.axes_lengths = axes_lengths
        _check(pattern, reduction, axes_lengths, "Reduce")

    def call(self, inputs):
        return _transform(inputs, self.pattern, self.reduction, self.axes_lengths, "Reduce")


class EinMix(Layer):
    def __init__(self, pattern, weight_shape, bias_shape=None, **axes_lengths):
        super().__init__()
        self.pattern = pattern
        self.weight_shape = weight_shape
        self.bias_shape = bias_shape
        self.axes_lengths = axes_lengths
        weights, biases, self.einsum_pattern, pre, pre_lengths, post = _einmix(pattern, weight_shape, bias_shape, axes_lengths)
        self._params = [weights, biases]
        self.pre_rearrange = None
        if pre is not None:
            self.pre_rearrange = Rearrange(pre, **pre_lengths)
        self.post_rearrange = None
        if post is not None:
            self.post_rearrange = Rearrange(post)

    def build(self, input_shape):
        weights, biases = self._params
        self.weight = self.add_weight(shape=weights, trainable=True)
        self.bias = None
        if biases is not None:
            self.bias = self.add_weight(shape=biases, trainable=True)

    def call(self, inputs):
        if self.pre_rearrange is not None:
            inputs = self.pre_rearrange(inputs)
        result = _einsum(inputs, self.weight, self.einsum_pattern)
        if self.bias is not None:
            result = result + self.bias
        if self.post_rearrange is not None:
            result = self.post_rearrange(result)
        return result
