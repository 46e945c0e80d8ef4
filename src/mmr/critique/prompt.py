"""The critique prompt, layer by layer, and the ``--dry-run`` document.

Layers, joined with one blank line: the channel's lens, the critique template, the focus,
the previous session round, the repository context, and last the artifact in a fence no
line of it can close. The base prompt saved on the job is the same without the lens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from mmr.critique.lenses import lens_preamble
from mmr.critique.session import SessionRound
from mmr.prompt.assemble import diff_fence as fence_for
from mmr.resources import read_template

CRITIQUE_TEMPLATE = "critique/critique-prompt.md"
DRY_RUN_BANNER = "=== DRY RUN - no channels will be dispatched ==="
PRIOR_ROUND_INSTRUCTION = (
    "The artifact below is a revision of one critiqued before; these are the points raised "
    "last round. First judge each of them against the revision: leave out a point the "
    "revision resolves, and raise a point that is still open again, naming its id (for "
    "example [C-002]) at the start of the observation. Then raise new points, if any."
)
CONTEXT_INSTRUCTION = (
    "Judge how well the design fits this codebase (its structure, conventions and what "
    "already exists), using the files below as they are on disk now."
)


@cache
def critique_template() -> str:
    return read_template(CRITIQUE_TEMPLATE).strip()


@dataclass(frozen=True)
class PromptParts:
    """Every layer but the lens: the same for every channel."""

    artifact: str
    focus: str | None = None
    previous: SessionRound | None = None
    context: str | None = None

    def assemble(self, lens: str | None = None) -> str:
        """The unwrapped prompt, with the ``## Your lens`` layer when ``lens`` is given."""
        layers: list[str] = []
        if lens:
            layers.append(f"## Your lens\n{lens_preamble(lens)}")
        layers.append(critique_template())
        if self.focus:
            layers.append(f"## Focus Areas\n{self.focus}")
        if self.previous is not None and self.previous.items:
            layers.append(prior_round_layer(self.previous))
        if self.context is not None:
            layers.append(f"## Repository context\n{CONTEXT_INSTRUCTION}\n\n{self.context}")
        fence = fence_for(self.artifact)
        layers.append(f"## Artifact to critique\n{fence}\n{self.artifact}\n{fence}")
        return "\n\n".join(layers)


def prior_round_layer(previous: SessionRound) -> str:
    """``## Previously raised (round n)``, the instruction, and one line per item."""
    lines = []
    for item in previous.items:
        observation = " ".join((item.observation or "?").split()) or "?"
        lines.append(f"- [{item.id or '?'}] ({item.kind or '?'} · {item.theme or '?'}): "
                     f"{observation}")
    return (f"## Previously raised (round {previous.round})\n{PRIOR_ROUND_INSTRUCTION}\n\n"
            + "\n".join(lines))


def dry_run_document(source: str, prompts: Sequence[tuple[str, str]],
                     context_lines: Sequence[str] = ()) -> str:
    """The dry-run report: banner, artifact, channels, then each channel's full prompt."""
    names = ", ".join(name for name, _ in prompts) or "(none)"
    lines = [DRY_RUN_BANNER, f"Artifact: {source}", f"Channels configured: {names}",
             *context_lines]
    for name, prompt in prompts:
        lines += ["", f"--- Assembled prompt for {name} ---", prompt]
    return "\n".join(lines)
