"""Create or update the one sticky comment mmr keeps on a pull request, through ``gh api``."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from mmr import git
from mmr.comment.body import MARKER, build_body, read_state
from mmr.errors import GitError
from mmr.models import ReconciledResults

NO_GH_MESSAGE = ("'gh' not found on PATH (needed to post the pull-request comment); install "
                 "the GitHub CLI and run `gh auth login`")

# One JSON object a line, whatever the number of pages.
_COMMENT_FIELDS = ".[] | {id: .id, body: .body, url: .html_url}"


@dataclass(frozen=True)
class CommentOutcome:
    action: Literal["created", "updated"]
    comment_id: int
    url: str | None
    resolved: int

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def find_sticky(pr: int, cwd: Path) -> dict[str, object] | None:
    """The pull request's comment carrying :data:`MARKER` (the newest, if several)."""
    out = git.gh_api("GET", f"repos/{{owner}}/{{repo}}/issues/{pr}/comments?per_page=100", cwd,
                     paginate=True, jq=_COMMENT_FIELDS)
    found = None
    for line in out.decode("utf-8", errors="replace").splitlines():
        try:
            comment = json.loads(line)
        except ValueError:
            raise GitError(f"gh api printed something other than comments: {line[:80]}") from None
        if isinstance(comment, dict) and MARKER in str(comment.get("body", "")):
            found = comment
    return found


def post_sticky(results: ReconciledResults, pr: int, cwd: Path) -> CommentOutcome:
    """Update the sticky comment in place, or create it on the first run."""
    try:
        existing = find_sticky(pr, cwd)
    except git.ToolNotFoundError:
        # git's own hint offers --diff, which posting a comment has no use for.
        raise GitError(NO_GH_MESSAGE) from None
    previous = read_state(str(existing.get("body", ""))) if existing else {}
    body = build_body(results, previous)
    existing_id = existing.get("id") if existing is not None else None
    if isinstance(existing_id, int):
        comment_id = existing_id
        reply = git.gh_api("PATCH", f"repos/{{owner}}/{{repo}}/issues/comments/{comment_id}",
                           cwd, body={"body": body.text})
        action: Literal["created", "updated"] = "updated"
    else:
        reply = git.gh_api("POST", f"repos/{{owner}}/{{repo}}/issues/{pr}/comments", cwd,
                           body={"body": body.text})
        action = "created"
    try:
        data = json.loads(reply)
    except ValueError:
        data = {}
    answered = data.get("id") if isinstance(data, dict) else None
    url = data.get("html_url") if isinstance(data, dict) else None
    if not isinstance(answered, int):
        raise GitError(f"gh api {action} no comment: its reply has no comment id")
    return CommentOutcome(action, answered, url if isinstance(url, str) else None,
                          len(body.resolved))
