"""A fake ``gh`` that serves the REST calls of ``mmr comment`` from a JSON file.

``gh api --method GET repos/{owner}/{repo}/issues/<n>/comments… --paginate --jq …`` prints
each stored comment of pull request ``n`` as one JSON line (``{id, body, url}``), as the
real ``--jq`` filter does; ``POST …/issues/<n>/comments`` and ``PATCH
…/issues/comments/<id>`` read ``{"body": …}`` on stdin (``--input -``) and answer with the
comment. Every call is recorded with its stdin. ``FAKE_GH_STATUS=403`` answers as GitHub
does for a read-only token.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

_SCRIPT = '''#!{python}
import json, os, re, sys
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

