"""Build the review prompt every channel receives.

Sections are joined with one blank line, in a fixed order with fixed headings that scripts
grep for (``## Project Review Criteria``); the diff goes last, fenced so that nothing inside
it can close the fence and read as instructions. The same assembled text goes to every
channel; only the per-channel wrapper differs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from mmr.resources import CORE_PROMPT_TEMPLATE, read_template
from mmr.severity import prompt_definitions

PROMPT_PLACEHOLDER = "{{prompt}}"
SECTION_SEPARATOR = "\n\n"
_BACKTICK_RUN = re.compile(r"`+")


SEVERITY_PLACEHOLDER = "{{severity_definitions}}"


@cache
def core_prompt() -> str:
    """The shipped core prompt (its trailing newline included), with the severity scale
    filled in from :mod:`mmr.severity`, the one source of its wording."""
    return read_template(CORE_PROMPT_TEMPLATE).replace(SEVERITY_PLACEHOLDER,
                                                        prompt_definitions())


def diff_fence(diff: str) -> str:
    """A backtick fence one longer than the longest backtick run in ``diff`` (minimum 3).

    A diff holding a line of three backticks (a Markdown file) would otherwise close the
    fixed fence MMR 4.0.1 uses early and let the rest of the diff read as prompt text.
    """
    longest = max((len(run) for run in _BACKTICK_RUN.findall(diff)), default=0)
    return "`" * max(3, longest + 1)


def _bullets(heading: str, items: Sequence[str]) -> str:
    return heading + "\n" + "\n".join(f"- {item}" for item in items)


def assemble_prompt(
    diff: str,
    *,
    review_criteria: Sequence[str] = (),
    template_criteria: Sequence[str] = (),
    focus: str | None = None,
    incremental: str | None = None,
    core: str | None = None,
) -> str:
    """The unwrapped prompt: core prompt, criteria, focus, then the fenced diff.

    Criteria and focus go in as given, unescaped (they come from the operator and trusted
    config). ``diff`` must already be redacted for the channel. ``core``
    replaces the shipped template, for tests and tools that bring their own.
    """
    sections = [core_prompt() if core is None else core]
    if review_criteria:
        sections.append(_bullets("## Project Review Criteria", review_criteria))
    if template_criteria:
        sections.append(_bullets("## Template Criteria", template_criteria))
    if focus:
        sections.append(f"## Focus Areas\n{focus}")
    if incremental:  # a follow-up review of a pull request: what the diff leaves out
        sections.append(incremental)
    fence = diff_fence(diff)
    sections.append(f"## Diff\n{fence}diff\n{diff}\n{fence}")
    return SECTION_SEPARATOR.join(sections)


def apply_wrapper(wrapper: str | None, prompt: str) -> str:
    """The channel's ``prompt_wrapper`` with every ``{{prompt}}`` replaced by ``prompt``.

    The replacement is literal and single-pass, so ``$&`` or a ``{{prompt}}`` inside the
    diff reaches the channel unchanged. A wrapper with no placeholder sends only itself
    (the config loader warns about that).
    """
    if wrapper is None or wrapper == PROMPT_PLACEHOLDER:
        return prompt
    return wrapper.replace(PROMPT_PLACEHOLDER, prompt)


def compensating_prompt(focus_preamble: str, prompt: str, wrapper: str | None) -> str:
    """A compensating pass's prompt: the preamble for the missing channel, a blank line,
    the unwrapped review prompt, all inside the *compensator's* wrapper."""
    return apply_wrapper(wrapper, focus_preamble + SECTION_SEPARATOR + prompt)
