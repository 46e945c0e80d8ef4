"""The severity scale, in one place: what P0-P3 mean and what each ``fix_threshold`` gates.

The meanings are MMR 4.0.1's prompt wording (part of how its reviewers judge);
the prompt, ``mmr config init``, ``.mmr.yaml.example``, docs/config.md, ``mmr explain
severity`` and the text report's gate line all render from here, so they cannot
drift apart again. Layer: beside :mod:`mmr.models` (imports nothing of mmr).
"""

from __future__ import annotations

#: ``(label, meaning)`` per severity, as the prompt states them.
MEANINGS: dict[str, tuple[str, str]] = {
    "P0": ("Critical", "the change breaks the build or the program, loses or corrupts data, "
                       "opens an exploitable security hole, or rests on an architecture that "
                       "is wrong at its root."),
    "P1": ("High", "a defect users will hit in normal operation, an internal inconsistency "
                   "(code that contradicts itself, its documentation or its callers), or "
                   "anything that would hold up work that depends on this change."),
    "P2": ("Medium", "an improvement worth making: naming, style, missing or stale "
                     "documentation, a modest optimisation."),
    "P3": ("Trivial", "a matter of taste or a nit."),
}
#: What each ``fix_threshold`` blocks (findings at or above it block; the rest are advisory).
THRESHOLDS: dict[str, str] = {
    "P0": "only P0 blocks: breakage, data loss, exploitable security holes",
    "P1": "P0 and P1 block: defects only (low friction)",
    "P2": "P0-P2 block: improvements such as naming and style block too (DEFAULT)",
    "P3": "every finding blocks, nits included (strict)",
}
_P3_PROMPT_NOTE = " Raise P3 findings only when you have found nothing above P3."


def threshold_meaning(threshold: str) -> str:
    """``P2 — P0-P2 block, so improvements …``: the gate line's words for a threshold."""
    return f"{threshold} — {THRESHOLDS.get(threshold, 'unknown threshold')}"


def _wrap(text: str, width: int, first: str, rest: str) -> list[str]:
    lines, line = [], first
    for word in text.split():
        if len(line) + len(word) + 1 > width and line.strip():
            lines.append(line.rstrip())
            line = rest
        line += word + " "
    lines.append(line.rstrip())
    return lines


def prompt_definitions() -> str:
    """The prompt's ``## Severity Definitions`` bullets, wrapped at 92 columns."""
    lines: list[str] = []
    for level, (label, meaning) in MEANINGS.items():
        text = meaning + (_P3_PROMPT_NOTE if level == "P3" else "")
        lines += _wrap(text, 92, f"- **{level} ({label})**: ", "  ")
    return "\n".join(lines)


def threshold_comment(indent: str) -> list[str]:
    """The ``fix_threshold`` comment lines of a config file (``#   P0 - …`` per level)."""
    lines = [f"{indent}# fix_threshold: the lowest severity that blocks a change (lower "
             "ones are advisory).",
             f"{indent}# The scale is the prompt's: P0 critical, P1 defects, P2 improvements",
             f"{indent}# (naming, style, docs), P3 nits. Set P1 to gate on defects only."]
    lines += [f"{indent}#   {level} - {THRESHOLDS[level]}" for level in THRESHOLDS]
    return lines


def explain_text() -> str:
    """``mmr explain severity``: the scale and what each threshold gates."""
    lines = ["Severities (what the reviewers are told):", ""]
    for level, (label, meaning) in MEANINGS.items():
        lines += _wrap(meaning, 88, f"  {level} ({label}): ", "      ")
    lines += ["", "defaults.fix_threshold (findings at or above it block, exit 2):", ""]
    lines += [f"  {level}: {text}" for level, text in THRESHOLDS.items()]
    lines += ["", "The default P2 blocks improvements such as naming and style; set",
              "`fix_threshold: P1` (or pass --fix-threshold P1) to gate on defects only.",
              "Findings outside the diff or without a usable location are reported and,",
              "unless defaults.outside_diff_findings is `block`, not gated."]
    return "\n".join(lines)


if __name__ == "__main__":  # regenerate templates/explain/severity.md
    print(explain_text())
