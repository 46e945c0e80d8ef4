"""The focus preamble of a compensating pass (the wording is mmr's own).

It tells the substitute model which areas the missing channel usually covers, so the
pass looks where that reviewer would have looked. Lookup: the user's
``defaults.compensator.channel_focus_map`` entry (verbatim, when it is not blank), then a
built-in text, then a generic text naming the channel.
"""

from __future__ import annotations

from collections.abc import Mapping

_BROAD_CONTEXT = (
    "Concentrate on architectural patterns and design consistency: use broad-context "
    "reasoning across the whole change, check the separation of concerns, and look at how "
    "the dependencies between modules are affected."
)

#: (focus text, display name) of the channels with a built-in focus.
_BUILTIN: dict[str, tuple[str, str]] = {
    "codex": (
        "Concentrate on implementation correctness and security: look for security "
        "vulnerabilities, violations of API contracts, missing or weak input validation, and "
        "error handling that loses or hides failures.",
        "Codex",
    ),
    "gemini": (_BROAD_CONTEXT, "Gemini"),
    "antigravity": (_BROAD_CONTEXT, "Antigravity (agy)"),
    "grok": (
        "Act as a second-opinion pass: re-check correctness and code quality, hunt for edge "
        "cases and logic errors, and question assumptions that earlier reviewers may have "
        "accepted without checking.",
        "Grok",
    ),
    "opencode": (
        "Act as a second-opinion pass: check implementation correctness and code quality, "
        "look for logic errors, unhandled edge cases and weak error handling, and challenge "
        "unchecked assumptions.",
        "OpenCode",
    ),
}


def focus_preamble(original: str, focus_map: Mapping[str, str] | None = None) -> str:
    """The preamble for the pass that stands in for channel ``original``."""
    override = (focus_map or {}).get(original)
    if isinstance(override, str) and override.strip():
        return override
    if original in _BUILTIN:
        text, display = _BUILTIN[original]
        return f"{text} You are compensating for the missing {display} review."
    return (
        f"Concentrate on the areas the {original} reviewer usually covers. "
        f"You are compensating for the missing {original} review."
    )
