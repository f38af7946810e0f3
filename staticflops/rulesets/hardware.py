"""Device peak throughputs (``rules/hardware.yaml``), for turning training FLOPs into hours."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, ValidationError

from staticflops.diagnostics import AnalysisError, UsageError
from staticflops.rulesets.loader import _read_yaml, builtin_rules_dir
from staticflops.shapes.precision import precision as number_format


class Device(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    source: str
    peak: dict[str, float]  # precision -> FLOP/s


class HardwareFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    devices: dict[str, Device]


def load_device(key: str, precision: str) -> tuple[Device, float]:
    """The device ``key`` and its peak FLOP/s at ``precision`` (any name of
    ``shapes/precision.py``: bf16, bfloat16...)."""
    precision = number_format(precision, "--precision").short
    path = builtin_rules_dir() / "hardware.yaml"
    _node, data = _read_yaml(path)
    try:
        devices = HardwareFile.model_validate(data).devices
    except ValidationError as error:
        raise AnalysisError(f"{path}: {error.errors()[0]['msg']}", code="SF205") from None
    device = devices.get(key.lower())
    if device is None:
        raise UsageError(f"--hardware {key!r}: known devices are {', '.join(sorted(devices))}")
    if precision not in device.peak:
        raise UsageError(f"--precision {precision!r}: {device.name} lists {', '.join(device.peak)}")
    return device, device.peak[precision]
