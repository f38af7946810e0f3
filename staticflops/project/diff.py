"""Two analyses of one model compared: totals and the layers that were added, removed or changed.

Layers are matched by aligning the two layer lists (tree order) on what each layer is and costs,
so inserting into an ``nn.Sequential`` shows one added layer, not every later index "changed";
rows the alignment cannot pair are matched by name.  A module's counts include its children, so
a changed module is listed only when none of its descendants changed: the row where the change
happened, not every ancestor it propagates to.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from staticflops.project.config import ModelConfig, ProjectConfig
from staticflops.project.run import Outcome, analyse_models
from staticflops.project.sources import DiskReader, git_reader, resolve_revision
from staticflops.report import Report
from staticflops.report.review import DiffResult, LayerChange, ModelDiff, TotalChange

TOTAL_METRICS = ("forward_flops", "macs", "params", "backward_flops", "training_flops")


def diff_project(config: ProjectConfig, models: list[ModelConfig], base: str, use_cache: bool = True,
                 jobs: int | None = None) -> DiffResult:
    commit = resolve_revision(config.root, base)
    before = analyse_models(config, models, git_reader(config.root, commit), use_cache, jobs)
    after = analyse_models(config, models, DiskReader(config.root), use_cache, jobs)
    return DiffResult(base=base, base_commit=commit,
                      models=[diff_outcomes(model, before[model.name], after[model.name]) for model in models])


def diff_outcomes(model: ModelConfig, before: Outcome, after: Outcome) -> ModelDiff:
    base_missing = before.report is None and _is_missing_file(before.error)
    work_missing = after.report is None and _is_missing_file(after.error)
    if base_missing and after.report is not None:
        return _one_sided(model, after.report, "added")
    if work_missing and before.report is not None:
        return _one_sided(model, before.report, "removed")
    errors = [f"{side}: {outcome.error}" for side, outcome in (("base", before), ("working tree", after))
              if outcome.error]
    if before.report is None or after.report is None:
        return ModelDiff(name=model.name, file=model.path, status="error", errors=errors)
    return diff_reports(model.name, before.report, after.report)


def diff_reports(name: str, before: Report, after: Report) -> ModelDiff:
    totals = [total_change(metric, getattr(before.totals, metric, None), getattr(after.totals, metric, None))
              for metric in TOTAL_METRICS]
    totals = [t for t in totals if t.before is not None or t.after is not None]
    layers = layer_changes(before, after)
    changed = bool(layers) or any(t.delta != 0 for t in totals)
    return ModelDiff(name=name, file=after.file, status="changed" if changed else "unchanged", totals=totals,
                     layers=layers, complete=before.totals.complete and after.totals.complete,
                     rules=after.rules, convention=after.totals.convention)


def total_change(metric: str, before, after) -> TotalChange:
    delta = subtract(after, before)
    percent = 100 * delta / before if isinstance(delta, int) and isinstance(before, int) and before else None
    return TotalChange(metric=metric, before=before, after=after, delta=delta, percent=percent)


def layer_changes(before: Report, after: Report) -> list[LayerChange]:
    old, new = before.layers, after.layers
    old_ids, new_ids = [_identity(r) for r in old], [_identity(r) for r in new]
    opcodes = SequenceMatcher(None, old_ids, new_ids, autojunk=False).get_opcodes()
    changes = []
    for tag, i1, i2, j1, j2 in _slid(opcodes, old, new, old_ids, new_ids):
        if tag == "equal":
            continue
        removed = {row.name: row for row in old[i1:i2]}
        for row in new[j1:j2]:
            previous = removed.get(row.name)
            if previous is not None and previous.type == row.type:
                del removed[row.name]
                changes.append(_change("changed", previous, row))
            else:
                changes.append(_change("added", None, row))
        changes += [_change("removed", row, None) for row in removed.values()]
    return _where_it_happened(changes)


def _slid(opcodes: list, old: list, new: list, old_ids: list, new_ids: list) -> list:
    """The opcodes with each run of added (or removed) rows slid along the identical rows after
    it, to where its names are new (or gone).  A block appended to a run of equal blocks (one
    more decoder layer) can be matched as inserted anywhere in the run, and the matcher takes the
    longest match, which often calls the first block added and every later one renamed.
    Sliding keeps the counts and the number of rows; only which index is called added changes."""
    old_names, new_names = {r.name for r in old}, {r.name for r in new}
    slid = []
    for k, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        following = opcodes[k + 1] if k + 1 < len(opcodes) and opcodes[k + 1][0] == "equal" else None
        if tag == "equal" or following is None:
            slid.append((tag, i1, i2, j1, j2))
            continue
        room = following[2] - following[1]
        # the added rows at the end of the block (names the old side of the block lacks), or
        # the removed ones
        added = _tail(new, j1, j2, {r.name for r in old[i1:i2]})
        removed = _tail(old, i1, i2, {r.name for r in new[j1:j2]})
        if added < j2 and removed == i2:
            shift = _best_shift(new, new_ids, added, j2, room, old_names)
            slid += [("replace", i1, i2, j1, added)] if added > j1 or i2 > i1 else []
            slid.append(("insert", i2 + shift, i2 + shift, added + shift, j2 + shift))
        elif removed < i2 and added == j2:
            shift = _best_shift(old, old_ids, removed, i2, room, new_names)
            slid += [("replace", i1, removed, j1, j2)] if removed > i1 or j2 > j1 else []
            slid.append(("delete", removed + shift, i2 + shift, j2 + shift, j2 + shift))
        else:
            slid.append((tag, i1, i2, j1, j2))
    return slid


def _tail(rows: list, start: int, end: int, names: set) -> int:
    while end > start and rows[end - 1].name not in names:
        end -= 1
    return end


def _best_shift(rows: list, ids: list, start: int, end: int, room: int, other_names: set) -> int:
    """How far the run rows[start:end] slides (at most ``room``, through rows identical to it)
    so that most of its names are absent from the other side; the least such shift."""
    most = 0
    while most < room and end + most < len(ids) and ids[start + most] == ids[end + most]:
        most += 1
    return max(range(most + 1), key=lambda s: (sum(r.name not in other_names for r in rows[start + s:end + s]), -s))


def _identity(row) -> tuple:
    """Two rows with this in common are the same layer, unchanged, whatever their index."""
    return row.kind, row.depth, row.type, row.forward_flops, row.macs, row.params, str(row.output_shape)


def _change(kind: str, before, after) -> LayerChange:
    shown = after if after is not None else before
    location = shown.location + (" (base)" if after is None else "")
    fields = {}
    for field, name in (("forward_flops", "flops"), ("macs", "macs"), ("params", "params")):
        old = getattr(before, field) if before else None
        new = getattr(after, field) if after else None
        fields[f"before_{name}"], fields[f"after_{name}"] = old, new
        fields[f"delta_{name}"] = subtract(new if after else 0, old if before else 0)
    return LayerChange(name=shown.name, type=shown.type, change=kind, location=location, **fields,
                       before_shape=before.output_shape if before else None,
                       after_shape=after.output_shape if after else None)


def _where_it_happened(changes: list[LayerChange]) -> list[LayerChange]:
    """Drop a changed module when a descendant changed too, and the descendants of an added or
    removed module (its own row already carries their counts)."""
    names = {c.name for c in changes}
    whole = [c.name for c in changes if c.change != "changed"]
    kept = []
    for change in changes:
        if any(change.name.startswith(root + ".") for root in whole if root != change.name):
            continue
        if change.change == "changed" and any(other.startswith(change.name + ".") for other in names):
            continue
        kept.append(change)
    return kept


def _one_sided(model: ModelConfig, report: Report, status: str) -> ModelDiff:
    totals = []
    for metric in TOTAL_METRICS:
        value = getattr(report.totals, metric, None)
        if value is not None:
            totals.append(TotalChange(metric=metric, before=value if status == "removed" else None,
                                      after=value if status == "added" else None))
    return ModelDiff(name=model.name, file=model.path, status=status, totals=totals,
                     complete=report.totals.complete, rules=report.rules, convention=report.totals.convention)


def _is_missing_file(error: str | None) -> bool:
    return bool(error) and ("not in revision" in error or "No such file" in error)


_SCALED = re.compile(r"(\d+)\*(.+)")


def subtract(after, before):
    """``after - before`` for counts that may be formula strings (``8178368512*B``); None when
    it cannot be written exactly."""
    if after is None or before is None:
        return None
    if isinstance(after, int) and isinstance(before, int):
        return after - before
    if after == before:
        return 0
    a, b = (_SCALED.fullmatch(str(v)) if not isinstance(v, int) else None for v in (after, before))
    if a and b and a.group(2) == b.group(2) and "+" not in a.group(2) and " - " not in a.group(2):
        return f"{int(a.group(1)) - int(b.group(1))}*{a.group(2)}"
    if a and before == 0 and isinstance(before, int):
        return after
    if b and after == 0 and isinstance(after, int):
        return f"-{before}"
    return None
