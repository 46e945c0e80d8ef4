"""The base model and constrained number types shared by every config model."""

from __future__ import annotations

import math
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, WithJsonSchema

from mmr.types import NumberValue


def _positive_finite(value: float) -> float:
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"must be a finite number greater than 0, got {value}")
    return value


def _non_negative_finite(value: float) -> float:
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"must be a finite number of at least 0, got {value}")
    return value


#: Timeouts in seconds: finite and > 0 (MMR 4.0.1 takes any number).
Seconds = Annotated[NumberValue, AfterValidator(_positive_finite),
                    WithJsonSchema({"type": "number", "exclusiveMinimum": 0})]
#: Retention periods in days: finite and >= 0.
Days = Annotated[NumberValue, AfterValidator(_non_negative_finite),
                 WithJsonSchema({"type": "number", "minimum": 0})]


class ConfigModel(BaseModel):
    """Base of every config model: unknown keys are dropped, values are read-only."""

    model_config = ConfigDict(extra="ignore", frozen=True)
