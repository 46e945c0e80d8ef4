"""An HTTP channel at a server with a small context gets shards that fit it (issue 30).

The server on 127.0.0.1 reports its context the way llama.cpp's (``/props``) or vLLM's
(``max_model_len`` in ``/v1/models``) does, and refuses a prompt longer than that context
with HTTP 400, as both do.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import write_user_config

from .conftest import FakeServer, Recorded, openai_envelope

MMR = Path(sys.executable).with_name("mmr")
CONTEXT = 4096
FILES = [f"src/m{i:02d}.py" for i in range(30)]


def server_tokens(text: str) -> int:
    """The server's own count: words and punctuation marks (a tokenizer splits finer)."""
    return len(re.findall(r"\w+|[^\w\s]", text))


def _prompt(request: Recorded) -> str:
    return str(request.json()["messages"][-1]["content"])


def chat(request: Recorded) -> tuple[int, str]:
    """A review of the files shown, or HTTP 400 for a prompt over the context."""
    prompt = _prompt(request)
    if server_tokens(prompt) > CONTEXT:
        return 400, json.dumps({"error": {"message": "the request exceeds the available "
                                                     "context size",
                                          "type": "exceed_context_size_error"}})
    files = sorted(set(re.findall(r"^\+\+\+ b/(.+)$", prompt, re.M)))
    return 200, openai_envelope(json.dumps({"approved": True, "summary": "ok", "findings": [
        {"severity": "P3", "location": f"{f}:1", "description": f"Unused helper in {f}",
         "suggestion": "Remove it"} for f in files]}))


def serve_small_context(server: FakeServer, style: str) -> None:
    entry: dict[str, Any] = {"id": "small", "object": "model"}
    if style == "vllm":
        entry["max_model_len"] = CONTEXT
        server.set("/props", status=404, body="{}")
    else:
        entry["meta"] = {"n_ctx_train": 131072}  # what the model could; n_ctx is what runs
        server.set("/props", body=json.dumps({"default_generation_settings": {"n_ctx": CONTEXT}}))
    server.set("/v1/models", body=json.dumps({"object": "list", "data": [entry]}))
    server.set("/v1/chat/completions", body=chat)


@pytest.mark.parametrize("style", ["llama.cpp", "vllm"])
def test_a_small_context_server_gets_shards_that_fit(tmp_path: Path, http_server: FakeServer,
                                                     style: str) -> None:
    serve_small_context(http_server, style)
    repo = GitRepo.create(tmp_path / "repo", {"README.md": "x\n"})
    repo.write({path: "".join(f"def helper_{i}_{n}(x):\n    return x * 1 + {n}\n"
                              for n in range(20)) for i, path in enumerate(FILES)})
    repo.git("add", "-A")
    write_user_config({"local": {"kind": "http", "endpoint": http_server.url(),
                                 "model": "small", "endpoint_convention": "openai-chat"}},
                      {"min_completed_channels": 1})
    done = subprocess.run([str(MMR), "review", "--sync", "--staged", "--format", "json"],
                          cwd=repo.root, env=dict(os.environ), capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    posts = [r for r in http_server.requests if r.method == "POST"]
    assert len(posts) > 1
    assert all(server_tokens(_prompt(r)) <= CONTEXT for r in posts)
    assert doc["per_channel"]["local"]["status"] == "completed"
    [local] = doc["coverage"]["channels"]
    assert local["shards"] == len(posts) and not local.get("unreviewed_files")
    assert {f["location"].split(":")[0] for f in doc["reconciled_findings"]} == set(FILES)
    asked = [r.path for r in http_server.requests if r.method == "GET"]
    assert asked.count("/v1/models") == 2  # the budget question, then the auth probe
