"""Object-form ``output_parser`` specs.

A parser spec is either a registered parser *name* (a string) or one of these objects,
discriminated on ``kind``. Unknown keys are dropped (MMR 4.0.1's objects are not
strict); an unknown ``kind`` is a validation error. Field order is the dump order.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Annotated, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
)

from mmr.types import PositiveInt, StrictBool, StrictStr
from mmr.vocabulary import Severity


class _Spec(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class IncompleteGuard(_Spec):
    """Fail the parse when ``status_path`` resolves to one of ``values`` (e.g. grok's Cancelled)."""

    status_path: StrictStr = Field(description="JSONPath of the status.")
    values: Annotated[list[StrictStr], Field(min_length=1)] = Field(
        description="Statuses meaning incomplete.")
    message: StrictStr = Field(description="Failure message for them.")


class UnwrapJsonpathSpec(_Spec):
    kind: Literal["unwrap-jsonpath"] = Field(
        description="Take a value out of a JSON envelope first.")
    wrap: StrictStr = Field(description="JSONPath of the inner reply (e.g. `$.result`).")
    error_path: StrictStr | None = Field(
        None, description="JSONPath of an error flag; true fails the parse.")
    then: ParserSpec = Field("default", description="Parser for the unwrapped value.")
    incomplete: IncompleteGuard | None = Field(
        None, description="Treat some envelopes as an unfinished reply.")


class RegexFields(_Spec):
    """Capture-group numbers (named groups are numbered too) for each finding field."""

    location: PositiveInt = Field(description="Group holding `path:line`.")
    description: PositiveInt = Field(description="Group holding the description.")
    id: PositiveInt | None = Field(None, description="Group holding an id.")
    category: PositiveInt | None = Field(None, description="Group holding the category.")
    severity: PositiveInt | None = Field(None, description="Group holding the severity.")
    suggestion: PositiveInt | None = Field(None, description="Group holding a suggested fix.")


_REGEX_FLAGS = "[dgimsuvy]*"


class RegexFindingsSpec(_Spec):
    kind: Literal["regex-findings"] = Field(
        description="Findings matched line by line with a regex.")
    pattern: StrictStr = Field(description="The regular expression.")
    flags: StrictStr = Field("gm", description="JavaScript-style flags (`dgimsuvy`).",
                             json_schema_extra={"pattern": f"^{_REGEX_FLAGS}$"})
    default_severity: Severity = Field("P2", description="Severity when none is captured.")
    fields: RegexFields = Field(description="Capture group number of each finding field.")

    @field_validator("flags")
    @classmethod
    def _known_flags(cls, value: str) -> str:
        if not re.fullmatch(_REGEX_FLAGS, value):
            raise ValueError(f"flags must use only the letters dgimsuvy (got {value!r})")
        return value


DEFAULT_SEVERITY_MAP: dict[str, Severity] = {"BLOCKER": "P1", "SHOULD-FIX": "P2", "NIT": "P3"}


class MarkdownGate(_Spec):
    require_existing_path: StrictBool = Field(
        True, description="Drop findings whose path is not in the repository.")


class MarkdownFindingsSpec(_Spec):
    """``### [BLOCKER|SHOULD-FIX|NIT] title`` blocks."""

    kind: Literal["markdown-findings"] = Field(
        description="`### [BLOCKER|SHOULD-FIX|NIT] title` blocks.")
    severity_map: dict[StrictStr, Severity] = Field(
        default_factory=lambda: dict(DEFAULT_SEVERITY_MAP), description="Label → severity.")
    gate: MarkdownGate = Field(
        default_factory=MarkdownGate, description="Citation checks on each finding.")


class AnswerGate(_Spec):
    require_citation: StrictBool = Field(
        True, description="The answer must cite `path:line` or say `NOT FOUND`.")


class AnswerSpec(_Spec):
    """The reply text as the answer (explore channels)."""

    kind: Literal["answer"] = Field(description="The reply text is the answer (explore channels).")
    gate: AnswerGate = Field(default_factory=AnswerGate, description="Checks on the answer.")


ObjectParserSpec = Annotated[
    UnwrapJsonpathSpec | RegexFindingsSpec | MarkdownFindingsSpec | AnswerSpec,
    Field(discriminator="kind"),
]
ParserSpec = StrictStr | ObjectParserSpec

UnwrapJsonpathSpec.model_rebuild()

#: Every object spec, in the order the config reference documents them.
OBJECT_SPECS = (UnwrapJsonpathSpec, RegexFindingsSpec, MarkdownFindingsSpec, AnswerSpec)
_KINDS = frozenset(get_args(spec.model_fields["kind"].annotation)[0] for spec in OBJECT_SPECS)


@cache
def _spec_adapter() -> TypeAdapter[ParserSpec]:
    return TypeAdapter(ParserSpec)


def coerce_parser_spec(spec: object) -> ParserSpec:
    """A parser spec from a model, a name, or its JSON form (as saved on a job record).

    Raises ValueError with a one-line message: ``Unsupported output_parser kind: X`` for an
    unknown kind, else the first validation problem.
    """
    if isinstance(spec, (str, *OBJECT_SPECS)):
        return spec
    if isinstance(spec, Mapping) and spec.get("kind") not in _KINDS:
        raise ValueError(f"Unsupported output_parser kind: {spec.get('kind')}")
    try:
        return _spec_adapter().validate_python(spec)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ValueError(f"invalid output_parser ({where}): {first['msg']}") from None
