"""Strict scalar types for config models.

MMR 4.0.1's validator never coerces: ``"300"`` is not a number, ``true`` is not a
number, ``1`` is not a bool or a string. Integer fields accept integral floats (``2.0``)
and reject ``1.5``; pydantic's strict int would reject ``2.0``, hence the validator here.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field, Strict


def _integral(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("expected integer, got boolean")
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"expected integer, got {value}")
        return int(value)
    if not isinstance(value, int):
        raise ValueError(f"expected integer, got {type(value).__name__}")
    return value


def _number(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"expected number, got {type(value).__name__}")
    return value


StrictStr = Annotated[str, Strict()]
StrictBool = Annotated[bool, Strict()]
Integer = Annotated[int, BeforeValidator(_integral)]
PositiveInt = Annotated[int, BeforeValidator(_integral), Field(ge=1)]
NonNegativeInt = Annotated[int, BeforeValidator(_integral), Field(ge=0)]

#: A number that keeps its YAML type (``600`` stays an int, ``1e3`` is a float), so dumps
#: and ``config show`` print what the user wrote. Never a bool or a numeric string.
NumberValue = Annotated[int | float, BeforeValidator(_number)]
