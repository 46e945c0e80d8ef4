"""A fake ``gh`` that serves the REST and GraphQL calls of ``mmr comment`` from JSON files.

``gh api --method GET repos/{owner}/{repo}/issues/<n>/comments… --paginate --jq …`` prints
each stored comment of pull request ``n`` as one JSON line (``{id, body, url}``), as the
real ``--jq`` filter does; ``POST …/issues/<n>/comments`` and ``PATCH
…/issues/comments/<id>`` read ``{"body": …}`` on stdin (``--input -``) and answer with the
comment. Every call is recorded with its stdin. ``FAKE_GH_STATUS=403`` answers as GitHub
does for a read-only token.

With a pull request modelled (:meth:`FakeGhApi.model_pr`: a real git repository, its base
and head refs), it also serves ``gh pr diff`` (``git diff base...head``), ``GET pulls/<n>``
(head sha, owner, name), ``POST pulls/<n>/reviews`` (each comment becomes a thread; a line
outside the diff, or listed in ``refuse_lines``, is refused with HTTP 422 as GitHub does)
and ``gh api graphql``: the viewer, the reviews and threads query, and
``resolveReviewThread``. Reviews and comments written through the fake are authored by
``<viewer>[bot]``, as an app's are.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

_SCRIPT = '''#!{python}
import json, os, re, subprocess, sys
from pathlib import Path
here = Path({here!r})
args = sys.argv[1:]
stdin = sys.stdin.read() if "--input" in args else None
with open(here / "calls.jsonl", "a") as log:
    record = {{"argv": args, "stdin": stdin, "env_repo": os.environ.get("GH_REPO")}}
    log.write(json.dumps(record) + "\\n")
if os.environ.get("FAKE_GH_STATUS") == "403":
    sys.stderr.write("gh: Resource not accessible by integration (HTTP 403)\\n")
    sys.exit(1)
model_file = here / "pr.json"
if model_file.exists():
    model = json.loads(model_file.read_text())
    # GitHub's side of the model: mmr's fence on gh's environment is not GitHub's.
    server_env = {{k: v for k, v in os.environ.items() if not k.startswith("GIT_CONFIG")}}
    def git(*a):
        return subprocess.run(["git", *a], cwd=model["repo"], capture_output=True, text=True,
                              check=True, env=server_env).stdout
    def diff():
        return git("diff", model["base"] + "..." + model["head"])
    def in_diff(path, line):
        lines, file, number = set(), None, 0
        for row in diff().splitlines():
            if row.startswith("+++ "):
                file = row[6:] if row.startswith("+++ b/") else None
            elif row.startswith("@@"):
                number = int(re.match(r"@@ -\\S+ \\+(\\d+)", row).group(1))
            elif file and row[:1] in (" ", "+"):
                lines.add((file, number))
                number += 1
        return (path, line) in lines and [path, line] not in model["refuse_lines"]
    def done(out):
        model_file.write_text(json.dumps(model))
        print(json.dumps(out))
        sys.exit(0)
    if args[:2] == ["pr", "diff"]:
        sys.stdout.write(diff())
        sys.exit(0)
    endpoint = args[3]
    head = git("rev-parse", model["head"]).strip()
    bot = model["viewer"] + "[bot]"
    if endpoint == "graphql":
        request = json.loads(stdin)
        if "resolveReviewThread" in request["query"]:
            [thread] = [t for t in model["threads"] if t["id"] == request["variables"]["id"]]
            thread["isResolved"] = True
            done({{"data": {{"resolveReviewThread": {{"thread": {{"id": thread["id"]}}}}}}}})
        def node(c):
            return {{"body": c["body"], "author": {{"login": c["author"]}}}}
        threads = [{{"id": t["id"], "isResolved": t["isResolved"],
                    "comments": {{"nodes": [node(c) for c in t["comments"]]}}}}
                   for t in model["threads"]]
        done({{"data": {{"viewer": {{"login": model["viewer"]}}, "repository": {{"pullRequest": {{
            "reviews": {{"nodes": [node(r) for r in model["reviews"]]}},
            "reviewThreads": {{"nodes": threads}}}}}}}}}})
    if re.fullmatch(r"repos/\\{{owner\\}}/\\{{repo\\}}/pulls/\\d+", endpoint):
        done({{"sha": head, "owner": "acme", "repo": "app"}})
    if endpoint.endswith("/reviews") and "pulls/" in endpoint:
        review = json.loads(stdin)
        for c in review["comments"]:
            lines = range(c.get("start_line", c["line"]), c["line"] + 1)
            if review["commit_id"] != head or not all(in_diff(c["path"], n) for n in lines):
                sys.stderr.write("gh: Validation Failed: Pull request review thread line "
                                 "must be part of the diff (HTTP 422)\\n")
                sys.exit(1)
        review_id = 5000 + len(model["reviews"])
        model["reviews"].append({{"id": review_id, "body": review["body"], "author": bot,
                                 "event": review["event"], "comments": review["comments"]}})
        for c in review["comments"]:
            model["threads"].append({{"id": f"T{{len(model['threads'])}}", "isResolved": False,
                                     "path": c["path"], "line": c["line"],
                                     "comments": [{{"body": c["body"], "author": bot}}]}})
        done({{"id": review_id}})
store = here / "comments.json"
comments = json.loads(store.read_text()) if store.exists() else []
method = args[args.index("--method") + 1]
endpoint = args[3]
def show(c):
    return {{"id": c["id"], "body": c["body"], "html_url": f"https://example.test/pr/{{c['pr']}}#c{{c['id']}}"}}
if method == "GET":
    pr = int(re.search(r"issues/(\\d+)/comments", endpoint).group(1))
    for c in comments:
        if c["pr"] == pr:
            print(json.dumps({{"id": c["id"], "body": c["body"], "url": show(c)["html_url"]}}))
elif method == "POST":
    pr = int(re.search(r"issues/(\\d+)/comments", endpoint).group(1))
    c = {{"id": 1000 + len(comments), "pr": pr, "body": json.loads(stdin)["body"]}}
    comments.append(c)
    print(json.dumps(show(c)))
elif method == "PATCH":
    cid = int(endpoint.rsplit("/", 1)[1])
    [c] = [c for c in comments if c["id"] == cid]
    c["body"] = json.loads(stdin)["body"]
    print(json.dumps(show(c)))
store.write_text(json.dumps(comments))
'''


@dataclass(frozen=True)
class FakeGhApi:
    directory: Path

    def calls(self) -> list[dict[str, Any]]:
        log = self.directory / "calls.jsonl"
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text().splitlines()]

    def methods(self) -> list[str]:
        return [call["argv"][call["argv"].index("--method") + 1] for call in self.calls()]

    def comments(self) -> list[dict[str, Any]]:
        store = self.directory / "comments.json"
        return json.loads(store.read_text()) if store.exists() else []

    def model_pr(self, repo: Path, base: str, head: str, *, viewer: str = "mmr-bot",
                 refuse_lines: Sequence[tuple[str, int]] = ()) -> None:
        """Model one pull request of ``repo``: ``base...head``, no reviews yet."""
        (self.directory / "pr.json").write_text(json.dumps({
            "repo": str(repo), "base": base, "head": head, "viewer": viewer,
            "refuse_lines": [list(x) for x in refuse_lines], "reviews": [], "threads": []}))

    def pr(self) -> dict[str, Any]:
        return json.loads((self.directory / "pr.json").read_text())

    def edit_pr(self, **changes: Any) -> None:
        (self.directory / "pr.json").write_text(json.dumps(self.pr() | changes))

    def reply_in_thread(self, thread_id: str, login: str, body: str) -> None:
        """A comment in a thread, as a person (or anyone) writes it."""
        model = self.pr()
        [thread] = [t for t in model["threads"] if t["id"] == thread_id]
        thread["comments"].append({"body": body, "author": login})
        (self.directory / "pr.json").write_text(json.dumps(model))

    def add_thread(self, login: str, body: str) -> None:
        model = self.pr()
        model["threads"].append({"id": f"T{len(model['threads'])}", "isResolved": False,
                                 "comments": [{"body": body, "author": login}]})
        (self.directory / "pr.json").write_text(json.dumps(model))

    def add_comment(self, pr: int, body: str) -> None:
        comments = self.comments()
        comments.append({"id": 1000 + len(comments), "pr": pr, "body": body})
        (self.directory / "comments.json").write_text(json.dumps(comments))


def install_script(directory: Path, name: str, template: str,
                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Write ``template`` (``{python}``, ``{here}``) as executable ``directory/name``, first
    on PATH."""
    directory.mkdir()
    script = directory / name
    script.write_text(template.format(python=sys.executable, here=str(directory)))
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{directory}{os.pathsep}{os.environ['PATH']}")


def install_fake_gh_api(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeGhApi:
    """Write the fake ``gh`` and put its directory first on PATH."""
    install_script(tmp_path / "fake-gh-api", "gh", _SCRIPT, monkeypatch)
    return FakeGhApi(tmp_path / "fake-gh-api")

