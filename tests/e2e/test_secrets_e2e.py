"""Issue 14 end to end: the installed ``mmr`` reviews a change that adds the whole credential
corpus; no raw value reaches a channel's prompt, a file under MMR_HOME, stdout or stderr,
in any output format — also when a model repeats one in its findings."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import certifi
import yaml

from mmr.config.paths import mmr_home, user_config_path
from mmr.vocabulary import FORMATS
from tests.builtin_channels import ENABLED_BUILTINS
from tests.e2e.test_review_e2e import mmr_command
from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.secrets_corpus import build_corpus, corpus_files, file_text


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*mmr_command(), *args], cwd=cwd, capture_output=True, text=True,
                          env=dict(os.environ), timeout=180, check=False)


def _stored_text() -> str:
    return "".join(f"\n== {path}\n" + path.read_bytes().decode("utf-8", "replace")
                   for path in mmr_home().rglob("*") if path.is_file())


def test_no_raw_credential_leaves_through_any_channel_file_or_format(
        tmp_path: Path, fake_cli: FakeCliFactory) -> None:
    cases = build_corpus()
    repo = GitRepo.create(tmp_path / "repo", {"README.md": "demo\n"})
    repo.stage({path: file_text(entries) for path, entries in corpus_files(cases).items()})
    # Judged by entropy alone, a random value split into literals too short to look
    # random on their own line may pass (see docs/secrets.md); nothing else may leak.
    secrets = sorted({s for case in cases for s in case.secrets
                      if (case.family, case.rendering) != ("unnamed-entropy", "split")})
    stripe = next(c.secrets[0] for c in cases if c.family == "stripe")
    # A model that repeats a credential (it cannot have seen: the prompt is redacted).
    echoing = fake_cli("rev1", stdout={"approved": False, "summary": f"found {stripe}",
                                       "findings": [{
                                           "severity": "P2", "location": "app/settings.py:1",
                                           "description": f"Hard-coded key {stripe} here",
                                           "suggestion": f"Move {stripe} to the vault"}]})
    refusing = fake_cli("rev2", stdout={"approved": True, "findings": [], "summary": "ok"})
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({
        "channels": {"rev1": {"command": "rev1"},
                     "rev2": {"command": "rev2", "on_credentials": "refuse"}},
        "channels_disabled": ENABLED_BUILTINS,
    }))
    review = _run("review", "--sync", "--staged", cwd=repo.root)
    assert review.returncode == 2, review.stderr  # the committed credentials block
    doc = json.loads(review.stdout)
    assert doc["per_channel"]["rev2"]["reason"] == "credential_refused"
    assert refusing.calls() == []
    prompt = echoing.last_call()["stdin"]
    assert "<redacted:stripe-key>" in prompt
    secret_rows = [f for f in doc["reconciled_findings"] if "mmr-secrets" in f["sources"]]
    assert len(secret_rows) >= len(cases) - 60  # one per credential line (keys: one each)
    echoed = [f for f in doc["reconciled_findings"] if "rev1" in f["sources"]]
    # rev1's finding may be merged with mmr-secrets' at the same line: its own wording
    # is then its member's description.
    [own] = [m for m in echoed[0].get("members", [echoed[0]]) if m.get("channel", "rev1") == "rev1"]
    assert "<redacted:stripe-key>" in own["description"]
    outputs = [review.stdout, review.stderr]
    for fmt in FORMATS:
        shown = _run("results", doc["job_id"], "--format", fmt, "--raw", cwd=repo.root)
        assert shown.returncode == 2, (fmt, shown.stderr)
        outputs += [shown.stdout, shown.stderr]
    stored = _stored_text()
    for where, text in {"prompt": prompt, "store": stored, **{
            f"output {i}": out for i, out in enumerate(outputs)}}.items():
        leaked = [s for s in secrets if s in text]
        context = [text[max(0, text.find(s) - 300):text.find(s)] for s in leaked]
        assert leaked == [], f"{where} holds {len(leaked)} raw value(s): {context}"


def test_a_public_ca_bundle_reaches_the_reviewer_whole_and_raises_no_finding(
        tmp_path: Path, fake_cli: FakeCliFactory) -> None:
    """150 lines of a real CA bundle (certifi's, which httpx brings) and a public key and a
    certificate request: public material, not a secret. A private key after them in the same
    file is still redacted."""
    bundle = Path(certifi.where()).read_text().splitlines()[:150]
    public = ["-----BEGIN PUBLIC KEY-----", *bundle[8:14], "-----END PUBLIC KEY-----",
              "-----BEGIN CERTIFICATE REQUEST-----", *bundle[8:12],
              "-----END CERTIFICATE REQUEST-----"]
    key_case = next(c for c in build_corpus() if c.family == "private-key"
                    and c.rendering == "pem")
    repo = GitRepo.create(tmp_path / "repo", {"README.md": "demo\n"})
    repo.stage({"certs/ca.pem": "\n".join(bundle) + "\n",
                "certs/mixed.pem": "\n".join([*public, *key_case.lines]) + "\n"})
    reviewer = fake_cli("rev1", stdout={"approved": True, "findings": [], "summary": "ok"})
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({"channels": {"rev1": {"command": "rev1"}},
                                    "channels_disabled": ENABLED_BUILTINS}))
    review = _run("review", "--sync", "--staged", cwd=repo.root)
    doc = json.loads(review.stdout)
    prompt = reviewer.last_call()["stdin"]
    assert all(line in prompt for line in [*bundle, *public]), "public lines were redacted"
    assert not any(line in prompt for line in key_case.secrets)
    rows = [f for f in doc["reconciled_findings"] if "mmr-secrets" in f["sources"]]
    assert [row["location"] for row in rows] == ["certs/mixed.pem:" + str(len(public) + 1)]
