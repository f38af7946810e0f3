# torch.distributions.Normal in the Python subset our interpreter runs (never run by Python):
# the closed forms torch's Normal evaluates, written with tensor ops, so that shapes and costs
# follow as for any other model code (Gemma 3n's activation sparsity takes Normal(0, 1).icdf of
# its target sparsity).  `torch` is bound to our torch namespace; the constants are
# sqrt(2) and log(sqrt(2 * pi)).

_SQRT2 = 1.4142135623730951
_LOG_SQRT_2PI = 0.9189385332046727


class Normal:
    def __init__(self, loc, scale, validate_args=None):
        if not torch.is_tensor(loc):
            loc = torch.tensor(float(loc))
        if not torch.is_tensor(scale):
            scale = torch.tensor(float(scale))
        self.loc, self.scale = torch.broadcast_tensors(loc, scale)
        self.batch_shape = self.loc.shape

    @property
    def mean(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.scale.pow(2)

    def icdf(self, value):
        return self.loc + self.scale * torch.erfinv(2 * value - 1) * _SQRT2

    def cdf(self, value):
        return 0.5 * (1 + torch.erf((value - self.loc) * self.scale.reciprocal() / _SQRT2))

    def log_prob(self, value):
        return -((value - self.loc) ** 2) / (2 * self.scale ** 2) - self.scale.log() - _LOG_SQRT_2PI

    def rsample(self, sample_shape=()):
        eps = torch.randn(tuple(sample_shape) + tuple(self.loc.shape))
        return self.loc + eps * self.scale

    def sample(self, sample_shape=()):
        return self.rsample(sample_shape)
