"""The parsed flags of one ``mmr critique`` run and their checks."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from mmr.errors import UsageError

CritiqueFormat = Literal["text", "json"]
ContextMode = Literal["none", "repo"]


class CritiqueRequest(BaseModel):
    """Every ``mmr critique`` flag, as given (``None`` = not given)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input: str | None = None
    text: str | None = None  #: mmr: inline text instead of a file
    focus: str | None = None
    channels: tuple[str, ...] | None = None
    timeout: float | None = None
    format: CritiqueFormat | None = None
    dry_run: bool = False
    synthesis: bool = True
    context: ContextMode | None = None
    context_paths: str | None = None
    session: str | None = None
    lenses: str | None = None
    config_base_ref: str | None = None
    trust_project_config: bool = False

    @property
    def output_format(self) -> CritiqueFormat:
        """``json`` only when asked for; config ``defaults.format`` is not consulted."""
        return "json" if self.format == "json" else "text"

    @property
    def explicit_paths(self) -> list[str] | None:
        """``--context-paths`` split on commas (trimmed, empties dropped), or None."""
        if self.context_paths is None:
            return None
        return [path.strip() for path in self.context_paths.split(",") if path.strip()]

    @property
    def wants_context(self) -> bool:
        """``--context repo``, or ``--context-paths`` (which implies it)."""
        return self.context == "repo" or self.context_paths is not None

    def config_overrides(self) -> dict[str, Any]:
        """The flags that are a config layer: ``defaults.timeout`` and ``defaults.format``."""
        return {"timeout": self.timeout, "format": self.format}


def check_request(request: CritiqueRequest) -> None:
    """Flag checks that need no file or config; :class:`UsageError` (one line, exit 1)."""
    if request.timeout is not None and not request.timeout > 0:
        raise UsageError(f"--timeout must be a number of seconds > 0 (got {request.timeout:g})")
    if request.input is not None and request.text is not None:
        raise UsageError("Pass either an input path (or -) or --text, not both.")
