"""Drop an echo of mmr's prompt from the front of a reply.

Several reviewer CLIs print their prompt, or a transcript holding it, on stdout before
their answer. The prompt carries JSON objects of its own: the Output Format example, the
clean reply to copy, and whatever the reviewed diff adds. Read from the start, such an echo
decides the verdict (its clean example passes; a brace the diff leaves open hides the real
answer). So the JSON parsers read only what follows the last echo, which mmr recognises by
two landmarks every review prompt has, whatever channel wrapper surrounds it:

- the closing paragraph of the core prompt (the instructions that hold both examples);
- the fenced diff that ends the prompt: ``## Diff`` then a fence of N backticks and
  ``diff``, closed by a line that starts with exactly that fence (a CLI may print its
  answer right after it, with no newline between). The fence is longer than any run of
  backticks in the diff, so nothing inside the diff can close it early or fake its end.

A reply without either landmark is read whole. What comes after the last landmark is the
reviewer's own text, parsed as usual; when it holds no answer, the channel fails.
"""

from __future__ import annotations

import re
from functools import cache

from mmr.resources import CORE_PROMPT_TEMPLATE, read_template

_DIFF_OPENING = re.compile(r"^## Diff\n(`{3,})diff\n", re.MULTILINE)


@cache
def _core_prompt_ending() -> str:
    """The core prompt's last paragraph (it follows both example objects)."""
    return read_template(CORE_PROMPT_TEMPLATE).rstrip().rsplit("\n\n", 1)[-1]


def after_echo(text: str) -> str:
    """``text`` after the last echoed landmark of the review prompt; all of it when it
    echoes none."""
    ending = _core_prompt_ending()
    at = text.rfind(ending)
    end = at + len(ending) if at >= 0 else 0
    for opening in _DIFF_OPENING.finditer(text, end):
        fence = opening.group(1)
        closing = re.compile("^" + fence + "(?!`)", re.MULTILINE).search(text, opening.end())
        if closing is not None:
            end = max(end, closing.end())
    return text[end:]
