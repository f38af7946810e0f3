"""Apply a rule set to the IR: per-op FLOPs/MACs, per-layer params, inclusive totals.

Nothing here knows what any layer costs: every number comes from a rule formula.  An op
without a rule, or whose formula cannot be evaluated, is *unknown* (listed with its
location), never zero.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from itertools import chain

from staticflops.cost import memory, recompute
from staticflops.diagnostics import Unresolved
from staticflops.ir import LayerNode, ModelIR, OpCall
from staticflops.rulesets import FormulaError, RuleSet
from staticflops.shapes import Expr, numel


@dataclass(kw_only=True, slots=True)
class Amounts:
    """Backward and memory amounts an op has and a whole model sums."""

    input_grad: object = 0  # backward FLOPs, filled only for training (state_grad included)
    weight_grad: object = 0
    skipped_input_grad: object = 0  # what an input gradient would have cost had it been needed
    skipped_weight_grad: object = 0  # likewise for frozen / absent weights
    # Memory, in elements (see cost/memory.py): traffic under the rule set, outputs produced,
    # and (training only) activations kept for backward.
    mem_read: object = 0
    mem_write: object = 0
    activation: object = 0
    saved: object = 0
    # Training only: forward FLOPs run again in backward (gradient checkpointing, cost/recompute.py).
    recompute: object = 0

    @property
    def backward(self):
        return self.input_grad + self.weight_grad


@dataclass(slots=True)
class OpCost(Amounts):
    op: OpCall
    flops: object = 0
    macs: object = 0
    known: bool = True


@dataclass(slots=True)  # slots: ~1,000 of each per 96-layer GPT, summed into often
class LayerCost:
    node: LayerNode
    depth: int
    flops: object = 0  # inclusive of children and of the functional ops in its forward
    macs: object = 0
    backward: object = 0
    params: object = 0
    trainable_params: object = 0
    mem_read: object = 0  # memory in elements, inclusive like flops
    mem_write: object = 0
    activation: object = 0
    saved: object = 0
    ops: list = field(default_factory=list)  # OpCosts charged directly to this layer


@dataclass(slots=True)
class CostResult(Amounts):
    ops: list
    layers: list  # LayerCost, pre-order
    flops: object
    macs: object
    params: object
    trainable_params: object
    unknowns: list  # (Location, str)
    training: bool = False

    @property
    def complete(self) -> bool:
        return not self.unknowns


def price(ir: ModelIR, rules: RuleSet, training: bool = False) -> CostResult:
    unknowns: list = list(ir.unknowns)
    replaced = _class_rule_scopes(ir.root, rules)
    priced = _priced_flags(ir.ops, replaced, counted=_counted_ops(ir.ops, rules))
    op_costs = []
    keys = []  # training only, per op: what its formulas read (None: not priced here, or not memoisable)
    forward: dict = {}  # key -> amounts, for ops priced without a diagnostic
    # The ops of a replayed block share their attrs, facts and shape lists with the first
    # block's (frontend/pytorch.py): their key is made once.  By id() of those containers,
    # which the IR holds (and nothing changes) while it is priced, and the scalar fields.
    # Each entry: [the key (None: not memoisable), its amounts once known].
    keys_by_id: dict = {}
    entry = None
    for op, is_priced in zip(ir.ops, priced):
        if is_priced:
            same = (id(op.attrs), id(op.facts), id(op.inputs), id(op.outputs), op.kind, op.label, op.is_layer_call,
                    op.trainable_inputs)
            entry = keys_by_id.get(same)
            if entry is None:
                key = _memo_key(op)
                try:
                    hash(key)
                except TypeError:  # an unhashable dimension
                    key = None
                entry = keys_by_id[same] = [key, None]
            key, known = entry
            if known is None and key is not None:
                known = entry[1] = forward.get(key)
        else:
            key = known = None
        if training:
            keys.append(key)
        if not is_priced:  # costed as part of a class rule, or not seen by this convention
            cost = OpCost(op, activation=memory.elements(op.outputs))
        elif known is not None:
            flops, macs, mem_read, mem_write, activation = known
            cost = OpCost(op, flops, macs, mem_read=mem_read, mem_write=mem_write, activation=activation)
        else:
            reported = len(unknowns)
            cost = _price_op(op, rules, unknowns)
            cost.activation = memory.elements(op.outputs)
            if key is not None and len(unknowns) == reported:  # known, with no diagnostic
                forward[key] = entry[1] = (cost.flops, cost.macs, cost.mem_read, cost.mem_write, cost.activation)
        op_costs.append(cost)
    if training:
        backward: dict = {}
        for cost, key, is_priced in zip(op_costs, keys, priced):
            if not is_priced or not cost.known:
                continue
            key = None if key is None else (key, tuple(cost.op.needs_grad))
            known = backward.get(key)
            if known is not None:
                (cost.input_grad, cost.weight_grad, cost.skipped_input_grad, cost.skipped_weight_grad,
                 cost.saved) = known
                continue
            reported = len(unknowns)
            _price_backward(cost, rules, unknowns)
            if key is not None and len(unknowns) == reported:
                backward[key] = (cost.input_grad, cost.weight_grad, cost.skipped_input_grad,
                                 cost.skipped_weight_grad, cost.saved)
    kept = 0  # activation elements checkpoint regions keep instead of their ops' (training only)
    if training and ir.checkpoints:
        for cost, times in zip(op_costs, recompute.reruns(ir)):
            if times and cost.known:
                cost.recompute = cost.flops * times
        inside, kept = recompute.kept_instead(ir)
        for cost, in_region in zip(op_costs, inside):
            if in_region:
                cost.saved = 0
    layers = []
    by_path: dict = {}
    param_counts: dict = {}  # (kind, attrs key) -> a layer rule's parameter count: repeated blocks' layers

    def visit(node: LayerNode, depth: int):
        cost = LayerCost(node, depth)
        layers.append(cost)
        by_path[node.name] = cost
        class_rule = replaced.get(node.name)
        cost.params, cost.trainable_params = _own_params(node, rules, unknowns, param_counts)
        for child in node.children:
            child_cost = visit(child, depth + 1)
            cost.params += child_cost.params
            cost.trainable_params += child_cost.trainable_params
        if class_rule is not None:
            op_costs.extend(_price_class_calls(node, class_rule, unknowns))
            if class_rule.params is not None:
                cost.params = cost.trainable_params = _class_params(node, class_rule, unknowns)
        return cost

    root = visit(ir.root, 0)
    _sum_into_layers(op_costs, by_path)
    root.saved += kept
    result = CostResult(op_costs, layers, root.flops, root.macs, root.params, root.trainable_params, unknowns,
                        training=training)
    for cost in op_costs:
        result.recompute += cost.recompute
        result.input_grad += cost.input_grad
        result.weight_grad += cost.weight_grad
        result.skipped_input_grad += cost.skipped_input_grad
        result.skipped_weight_grad += cost.skipped_weight_grad
    result.mem_read, result.mem_write = root.mem_read, root.mem_write
    result.activation, result.saved = root.activation, root.saved
    return result


def _sum_into_layers(op_costs: list, by_path: dict) -> None:
    """Each layer's inclusive amounts: the ops charged to it or to anything under it (by module
    path).  Summed once into the owning layer, then each layer into its nearest ancestor,
    deepest first; with a float among the amounts (a user formula's), per op up the whole
    chain instead, so float additions happen in the same order as always."""
    root = by_path[""]  # both front ends name the root module ""
    owner_of: dict = {}  # module path -> the layer its ops are charged to (the root if none)
    for cost in op_costs:
        owner = owner_of.get(cost.op.module)
        if owner is None:
            owner = owner_of[cost.op.module] = by_path.get(cost.op.module, root)
        owner.ops.append(cost)
    owners = {id(layer): layer for layer in owner_of.values()}
    for layer in owners.values():
        for cost in layer.ops:
            layer.activation += cost.activation
            if cost.known:
                _add(layer, cost)
    if any(float in {type(layer.flops), type(layer.macs), type(layer.backward), type(layer.mem_read),
                     type(layer.mem_write), type(layer.saved)} for layer in owners.values()):
        for layer in owners.values():
            layer.flops = layer.macs = layer.backward = layer.mem_read = layer.mem_write = layer.saved = 0
            layer.activation = 0
        _sum_per_op(op_costs, by_path)
        return
    for path in sorted(by_path, key=lambda p: -p.count(".") if p else 1):
        if not path:
            continue
        layer, parent = by_path[path], None
        while parent is None:
            path = path.rpartition(".")[0]
            parent = by_path.get(path)
        parent.activation += layer.activation
        _add(parent, layer)


def _sum_per_op(op_costs: list, by_path: dict) -> None:
    for cost in op_costs:
        owner = cost.op.module if cost.op.module in by_path else ""
        for path in _ancestors(owner):
            if path in by_path:
                layer = by_path[path]
                layer.activation += cost.activation
                if cost.known:
                    _add(layer, cost)


def _add(total, part) -> None:
    """A layer's amounts += those of one of its ops or of a child layer."""
    total.flops += part.flops
    total.macs += part.macs
    total.backward += part.backward
    total.mem_read += part.mem_read
    total.mem_write += part.mem_write
    total.saved += part.saved


def _counted_ops(ops: list, rules: RuleSet) -> set:
    """Indexes of the ops this convention sees (all, or only framework-layer calls; every
    call of a layer, or only its last one)."""
    indexes = [i for i, op in enumerate(ops) if rules.options["functional"] or op.is_layer_call]
    if rules.options["repeated_calls"] == "last":
        last = {}
        for i in indexes:
            last[(ops[i].module, ops[i].is_layer_call) if ops[i].is_layer_call else i] = i
        indexes = list(last.values())
    return set(indexes)


def _class_rule_scopes(root: LayerNode, rules: RuleSet) -> dict:
    """Module path -> class rule, for the outermost user modules a class rule covers."""
    scopes: dict = {}
    if not rules.classes:
        return scopes

    def visit(node: LayerNode):
        rule = rules.for_class(node.type, node.qualified_type) if node.kind is None else None
        if rule is not None and node.name:
            scopes[node.name] = rule
            return
        for child in node.children:
            visit(child)
    visit(root)
    rule = rules.for_class(root.type, root.qualified_type)
    if rule is not None:
        scopes[""] = rule
    return scopes


def _inside(module: str, scopes: dict) -> bool:
    return any(module == path or module.startswith(path + ".") or path == "" for path in scopes)


def _price_class_calls(node: LayerNode, rule, unknowns: list) -> list:
    costs = []
    for call in node.call_shapes:
        op = OpCall(kind=f"class:{node.type}", label=node.type, attrs=dict(node.scalars), inputs=call["inputs"],
                    outputs=call["outputs"], module=node.name, is_layer_call=True, location=node.location)
        env = _env(op)
        cost = _evaluate(op, rule, env, unknowns)
        if cost.known:
            cost.mem_read, cost.mem_write = memory.read_write(op, rule, env, True, unknowns)
        costs.append(cost)
    return costs


def _class_params(node: LayerNode, rule, unknowns: list):
    try:
        return _integral(rule.params.count(dict(node.scalars)))
    except FormulaError as error:
        unknowns.append(Unresolved(node.location, f"parameters of {node.type} could not be evaluated: {error}",
                                   "SF403"))
        return 0


def _ancestors(path: str):
    yield path
    while path:
        path = path.rpartition(".")[0]
        yield path


_OPERATOR_LABELS = {"+", "-", "*", "/", "**", "@"}


def _env(op: OpCall) -> dict:
    env = dict(op.attrs)
    env.update(op.facts)
    env["label"] = op.label
    # How forward reached the op: a framework layer's call, a function, or an operator.
    env["called_as"] = "module" if op.is_layer_call else "operator" if op.label in _OPERATOR_LABELS else "function"
    env["inputs"] = tuple(op.inputs)
    env["outputs"] = tuple(op.outputs)
    env["x"] = op.inputs[0] if op.inputs else ()
    env["y"] = op.outputs[0] if op.outputs else ()
    env["trainable_inputs"] = op.trainable_inputs  # trainable weight tensors the op uses
    return env


_PLAIN = frozenset({int, str, bool, float, type(None), Fraction, Expr})
_PLAIN_OR_TUPLE = _PLAIN | {tuple}
_DIMENSION = frozenset({int, Expr})


def _memo_key(op: OpCall):
    """Everything an op's forward formulas (and memory, and with ``needs_grad`` its backward
    formulas) read: repeated blocks trace equal ops, priced once per ``price`` call.  Argument
    values with their types (``True``, ``1`` and ``1.0`` are equal dict keys otherwise);
    shapes as they are when every dimension is an int or symbolic.  None when a value is not
    plain data: the op is then priced on its own."""
    attrs, facts = _values_key(op.attrs), _values_key(op.facts)
    if attrs is None or facts is None:
        return None
    if not set(map(type, chain.from_iterable(filter(None, (*op.inputs, *op.outputs))))) <= _DIMENSION:
        return None  # 2.0 or True as a dimension would equal 2 or 1
    return (op.kind, op.label, op.is_layer_call, op.trainable_inputs, attrs, facts, tuple(op.inputs),
            tuple(op.outputs))


def _values_key(values: dict):
    if not values:
        return ()
    kinds = tuple(map(type, values.values()))
    distinct = set(kinds)
    if distinct <= _PLAIN:
        return tuple(values.items()), kinds
    if distinct <= _PLAIN_OR_TUPLE:  # tuples of plain values (kernel sizes): their types too
        inner = tuple([tuple(map(type, v)) for v in values.values() if type(v) is tuple])
        if set().union(*inner) <= _PLAIN:
            return tuple(values.items()), kinds, inner
    return None


def _price_op(op: OpCall, rules: RuleSet, unknowns: list) -> OpCost:
    rule = rules.get(op.kind)
    if rule is None:
        unknowns.append(Unresolved(op.location, f"no rule for `{op.kind}` ({op.label}) in rule set `{rules.name}`",
                                   "SF401"))
        return OpCost(op, known=False)
    env = _env(op)
    if op.is_layer_call and rule.params is not None:
        try:  # a layer's parameter count, for conventions that derive cost from it (torchinfo)
            env["params"] = _integral(rule.params.count(op.attrs))
        except FormulaError:
            pass
    cost = _evaluate(op, rule, env, unknowns)
    if cost.known:
        io_default = rules.options["memory"] == "io"
        cost.mem_read, cost.mem_write = memory.read_write(op, rule, env, io_default, unknowns)
    return cost


def _evaluate(op: OpCall, rule, env: dict, unknowns: list) -> OpCost:
    try:
        macs = rule.macs.count(env)
        env["macs"] = macs
        flops = rule.flops.count(env)
    except FormulaError as error:
        unknowns.append(Unresolved(op.location, f"rule `{rule.kind}` ({rule.origin}) could not be evaluated: {error}",
                                   "SF402"))
        return OpCost(op, known=False)
    return OpCost(op, _integral(flops), _integral(macs))


def _priced_flags(ops, replaced, counted) -> list:
    """Which ops this rule set prices itself (not inside a class rule, seen by the convention)."""
    if not replaced:
        return [index in counted for index in range(len(ops))]
    return [not _inside(op.module, replaced) and index in counted for index, op in enumerate(ops)]


def _price_backward(cost: OpCost, rules: RuleSet, unknowns: list) -> None:
    """Which gradients an op computes follows autograd: w.r.t. inputs only when one requires
    grad, w.r.t. weights only when they are trainable; the rule says what each costs."""
    if not cost.known:
        return
    op = cost.op
    rule = rules.get(op.kind)
    needs_input = any(op.needs_grad)
    has_weights = op.trainable_inputs > 0
    if has_weights and op.is_layer_call:
        # A built-in layer's weights are what its rule counts (Keras's front end cannot see them
        # and marks every unfrozen layer call trainable): no parameter formula, or a count of
        # 0, means no weights to differentiate.
        try:
            has_weights = rule.params is not None and not _is_zero(_integral(rule.params.count(op.attrs)))
        except FormulaError:
            pass
    env = _env(op)
    env.update(forward=cost.flops, macs=cost.macs, needs_grad=tuple(op.needs_grad) + (False,) * 4,
               grad_inputs=sum(op.needs_grad), trainable_inputs=op.trainable_inputs)

    def value(formula, needed: bool, what: str):
        if formula is None:
            if _is_zero(cost.flops):
                return 0
            unknowns.append(Unresolved(op.location, f"rule `{op.kind}` gives no {what} cost", "SF401"))
            return 0
        try:
            return _integral(formula.count(env))
        except FormulaError as error:
            unknowns.append(Unresolved(op.location, f"{what} of `{op.kind}` could not be evaluated: {error}", "SF402"))
            return 0

    input_grad = value(rule.input_grad, needs_input, "input-gradient")
    if rule.weight_grad is None and not has_weights:
        weight_grad = 0  # an op without weights needs no weight-gradient rule
    else:
        weight_grad = value(rule.weight_grad, has_weights, "weight-gradient")
    state_grad = value(rule.state_grad, True, "state-gradient") if rule.state_grad is not None else 0
    if needs_input:
        cost.input_grad = input_grad
    else:
        cost.skipped_input_grad = input_grad
    if has_weights:
        cost.weight_grad = weight_grad
    else:
        cost.skipped_weight_grad = weight_grad
    if needs_input or has_weights:
        cost.input_grad = cost.input_grad + state_grad
        cost.saved = memory.saved(op, rule, env, unknowns)


def _is_zero(value) -> bool:
    return not hasattr(value, "terms") and value == 0


def _own_params(node: LayerNode, rules: RuleSet, unknowns: list, counts: dict | None = None) -> tuple:
    """``counts``: the parameter formulas' results by (kind, attribute values), within one
    ``price`` call (the formula reads nothing else; a failing one is not stored)."""
    total, trainable = 0, 0
    if node.kind is not None:
        rule = rules.get(node.kind)
        if rule is None or rule.params is None:
            if rule is None:
                unknowns.append(Unresolved(node.location,
                                           f"no rule for `{node.kind}` ({node.type}) in rule set `{rules.name}`",
                                           "SF401"))
        else:
            attrs = _values_key(node.attrs)
            key = None if attrs is None or counts is None else (node.kind, attrs)
            count = counts.get(key) if key is not None else None
            try:
                if count is None:
                    count = _integral(rule.params.count(node.attrs))  # formulas only read their variables
                    if key is not None:
                        counts[key] = count
            except FormulaError as error:
                unknowns.append(Unresolved(node.location, f"parameters of {node.type} could not be evaluated: {error}",
                                           "SF403"))
                count = 0
            for param in node.replaced_params:  # tied away: counted in the layer that owns it
                if param.shape is None:
                    unknowns.append(Unresolved(node.location,
                                               f"shape of tied parameter `{param.name}` of {node.type} is unknown",
                                               "SF403"))
                    continue
                count -= numel(param.shape)
            total += count
            trainable += 0 if node.frozen else count - sum((numel(p.shape) for p in node.frozen_params
                                                            if p.shape is not None), 0)
    if not node.params:
        return total, trainable
    declared = rules.options["declared_params"]
    for param in node.params if declared is True or (declared == "leaf" and not node.children) else ():
        if param.shape is None:
            unknowns.append(Unresolved(node.location, f"shape of parameter `{param.name}` of {node.type} is unknown",
                                       "SF403"))
            continue
        count = numel(param.shape)
        total += count
        trainable += count if param.trainable and not node.frozen else 0
    return total, trainable


def _integral(value):
    """Counts are whole numbers; a formula with exact division returns a Fraction when it divides."""
    denominator = getattr(value, "denominator", 1)
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    return int(value) if denominator == 1 and not hasattr(value, "terms") else value
