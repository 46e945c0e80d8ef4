"""``mmr comment --inline``: one pull-request review with a comment at each finding's line.

Each comment and each finding listed in a review body ends with a hidden
``<!-- mmr:finding KEY -->`` line, so a later run posts only findings not posted before.
A thread of mmr's whose finding is gone from the run is resolved, unless a person replied
in it. Only what the token's own account wrote counts: a look-alike comment by anyone
else steers nothing.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from mmr import git
from mmr.comment.body import finding_summary, inert
from mmr.errors import GitError
from mmr.formatters.labels import run_total_line, verdict_label
from mmr.fs import read_bytes_nofollow
from mmr.models import ReconciledFinding, ReconciledResults
from mmr.prompt.assemble import diff_fence
from mmr.reconcile.anchoring import split_location
from mmr.reconcile.calibrated import line_range
from mmr.reconcile.diff_filter import normalize_path
from mmr.unidiff.walk import walk_diff

_FINGERPRINT = re.compile(r"<!-- mmr:finding ([0-9a-f]+) -->\Z")
_THREADS = """query($owner: String!, $repo: String!, $pr: Int!) {
  viewer { login }
  repository(owner: $owner, name: $repo) { pullRequest(number: $pr) {
    reviews(first: 100) { nodes { body author { login } } }
    reviewThreads(first: 100) { nodes { id isResolved
      comments(first: 100) { nodes { body author { login } } } } } } } }"""
_RESOLVE = """mutation($id: ID!) {
  resolveReviewThread(input: {threadId: $id}) { thread { id } } }"""


@dataclass(frozen=True)
class InlineOutcome:
    review_id: int | None
    inline: int
    in_body: int
    already_posted: int
    resolved: int
    kept_open: int

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def fingerprint(key: str) -> str:
    return f"<!-- mmr:finding {key} -->"


def _keys_in(body: str) -> set[str]:
    """The fingerprints a body carries, each on a line of its own (reviewer text in a
    review body is one escaped line a finding, so it cannot forge one)."""
    return {m.group(1) for line in body.splitlines() if (m := _FINGERPRINT.match(line.strip()))}


def _login(author: object) -> str:
    """An author's login; an app's ``name[bot]`` is its ``name`` (as GraphQL's viewer)."""
    login = author.get("login") if isinstance(author, dict) else None
    return str(login or "").removesuffix("[bot]")


def _json(out: bytes, what: str) -> Any:
    try:
        return json.loads(out)
    except ValueError:
        raise GitError(f"gh api {what} printed something other than JSON") from None


def _graphql(query: str, cwd: Path, **variables: object) -> dict[str, Any]:
    reply = _json(git.gh_api("POST", "graphql", cwd,
                             body={"query": query, "variables": variables}), "graphql")
    data = reply.get("data") if isinstance(reply, dict) else None
    if not isinstance(data, dict):
        raise GitError("gh api graphql answered without data; check `gh auth status`")
    return data


def _new_side_lines(diff: str) -> dict[str, dict[int, str]]:
    """Each file's lines a review comment can sit on (added and context), by number."""
    lines: dict[str, dict[int, str]] = {}
    for row in walk_diff(diff):
        if row.kind in ("added", "context") and row.file and row.line is not None:
            lines.setdefault(row.file, {})[row.line] = row.content
    return lines


def _placed(finding: ReconciledFinding, diff_lines: dict[str, dict[int, str]],
            ) -> tuple[str, int, int] | None:
    """``(path, first, last)`` when every line the finding names is in the diff."""
    span = line_range(finding.location)
    path = normalize_path(split_location(finding.location)[0])
    if span is None or not all(n in diff_lines.get(path, {}) for n in range(span[0],
                                                                           span[1] + 1)):
        return None
    return path, span[0], span[1]


def _applies(finding: ReconciledFinding, reviewed: Path, first: int,
             at_head: list[str]) -> bool:
    """A replacement, for lines that read at the PR head as in the checkout reviewed."""
    if not finding.replacement or "<redacted:" in finding.replacement:
        return False
    try:  # not through a symlink: the pull request's own link could point anywhere
        lines = read_bytes_nofollow(reviewed).decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return False
    return lines[first - 1:first - 1 + len(at_head)] == at_head


def _comment_text(finding: ReconciledFinding, suggestion: bool) -> str:
    lines = [f"**{finding.severity}** {inert(finding.description)}"]
    if finding.suggestion:
        lines += ["", f"Suggestion: {inert(finding.suggestion)}"]
    if suggestion and finding.replacement is not None:
        fence = diff_fence(finding.replacement)
        lines += ["", fence + "suggestion", finding.replacement.rstrip("\n"), fence]
    return "\n".join([*lines, "", fingerprint(finding.finding_key)])


def _review_body(results: ReconciledResults, in_body: list[ReconciledFinding]) -> str:
    lines = [f"**mmr: {verdict_label(results)}** — {inert(results.summary)}"]
    if (total := run_total_line(results)) is not None:
        lines.append(total)
    if in_body:
        lines += ["", "Findings this review cannot place on a line of the diff:", ""]
        for finding in in_body:
            summary = finding_summary(finding.severity, finding.location, finding.description)
            lines += [f"- {summary}", fingerprint(finding.finding_key)]
    return "\n".join(lines)


def post_inline(results: ReconciledResults, pr: int, cwd: Path, max_inline: int) -> InlineOutcome:
    """Post the findings not posted before as one review; resolve the fixed ones' threads."""
    head = _json(git.gh_api(
        "GET", f"repos/{{owner}}/{{repo}}/pulls/{pr}", cwd,
        jq="{sha: .head.sha, owner: .base.repo.owner.login, repo: .base.repo.name}"), "pulls")
    diff_lines = _new_side_lines(git.pr_diff(pr, cwd))
    data = _graphql(_THREADS, cwd, owner=head["owner"], repo=head["repo"], pr=pr)
    me = _login(data.get("viewer"))
    pull = (data.get("repository") or {}).get("pullRequest")
    if not isinstance(pull, dict):
        raise GitError(f"gh api graphql found no pull request {pr}; check the number")
    posted = {key for review in pull["reviews"]["nodes"] if _login(review.get("author")) == me
              for key in _keys_in(review.get("body") or "")}
    threads = []  # mmr's own threads, with the findings they are about
    for thread in pull["reviewThreads"]["nodes"]:
        first = thread["comments"]["nodes"][:1]
        if first and _login(first[0].get("author")) == me:
            # Only a comment's last line: its suggestion block holds reviewer text.
            last = (first[0].get("body") or "").rstrip().rsplit("\n", 1)[-1]
            threads.append((thread, _keys_in(last)))
            posted |= threads[-1][1]

    every = [*results.reconciled_findings, *(results.outside_diff_findings or []),
             *(results.unanchored_findings or [])]
    current = {f.finding_key for f in every}
    fresh = [f for f in {f.finding_key: f for f in every}.values()
             if f.finding_key not in posted]
    root = git.show_toplevel(cwd)
    comments: list[tuple[ReconciledFinding, dict[str, object]]] = []
    in_body: list[ReconciledFinding] = []
    for finding in fresh:
        place = _placed(finding, diff_lines)
        if place is None or len(comments) >= max_inline:
            in_body.append(finding)
            continue
        path, first_line, last = place
        at_head = [diff_lines[path][n] for n in range(first_line, last + 1)]
        applies = _applies(finding, root / path, first_line, at_head)
        comment: dict[str, object] = {"path": path, "line": last, "side": "RIGHT",
                                      "body": _comment_text(finding, applies)}
        if first_line < last:
            comment |= {"start_line": first_line, "start_side": "RIGHT"}
        comments.append((finding, comment))

    review_id = None
    if fresh:
        review_id, comments, in_body = _post_review(results, pr, cwd, head["sha"],
                                                    comments=comments, in_body=in_body)
    resolved = kept = 0
    # A finding is gone only when every reviewer reported: a channel that failed this run
    # did not say its earlier findings are fixed.
    everyone = all(ch.status == "completed" for ch in results.per_channel.values())
    for thread, keys in threads:
        if not keys or thread["isResolved"] or keys & current:
            continue
        if not everyone:
            kept += 1
            continue
        if any(_login(c.get("author")) != me for c in thread["comments"]["nodes"]):
            kept += 1  # a person answered: the conversation is theirs to close
            continue
        _graphql(_RESOLVE, cwd, id=thread["id"])
        resolved += 1
    return InlineOutcome(review_id, len(comments), len(in_body), len(current) - len(fresh),
                         resolved, kept)


def _post_review(results: ReconciledResults, pr: int, cwd: Path, sha: str, *,
                 comments: list[tuple[ReconciledFinding, dict[str, object]]],
                 in_body: list[ReconciledFinding],
                 ) -> tuple[int | None, list[tuple[ReconciledFinding, dict[str, object]]],
                            list[ReconciledFinding]]:
    """One review (event COMMENT). GitHub refuses the whole review (HTTP 422) when a line
    is not in its diff (the pull request moved on since its diff was read): then every
    finding goes to the body, so none is lost."""
    endpoint = f"repos/{{owner}}/{{repo}}/pulls/{pr}/reviews"
    review = {"commit_id": sha, "event": "COMMENT",
              "body": _review_body(results, in_body), "comments": [c for _, c in comments]}
    try:
        reply = git.gh_api("POST", endpoint, cwd, body=review)
    except GitError as exc:
        if "HTTP 422" not in str(exc) or not comments:
            raise
        in_body = [*(f for f, _ in comments), *in_body]
        comments = []
        reply = git.gh_api("POST", endpoint, cwd, body=review | {
            "body": _review_body(results, in_body), "comments": []})
    answered = _json(reply, "reviews").get("id")
    return (answered if isinstance(answered, int) else None), comments, in_body
