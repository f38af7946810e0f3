# torch.autograd.Function in the Python subset our interpreter runs (never run by Python).
# `apply` calls the class's `forward`, whose ops are traced and priced as written; a custom
# `backward` is not read: under --training each op's backward is priced by the rules, as for
# any other forward (what autograd would differentiate had the function not been custom).


class FunctionCtx:
    def save_for_backward(self, *tensors):
        self.saved_tensors = tensors

    def mark_non_differentiable(self, *args):
        return None

    def mark_dirty(self, *args):
        return None

    def set_materialize_grads(self, value):
        return None


class Function:
    @staticmethod
    def setup_context(ctx, inputs, output):
        return None

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(is_tensor(arg) and arg.requires_grad for arg in args)
        if cls.setup_context is Function.setup_context:  # forward(ctx, *args)
            return cls.forward(ctx, *args, **kwargs)
        output = cls.forward(*args, **kwargs)  # forward(*args) with a separate setup_context
        cls.setup_context(ctx, args, output)
        return output
