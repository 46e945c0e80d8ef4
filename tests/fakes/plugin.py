"""pytest plugin: fake channel CLIs as real executables on ``PATH``.

Enable it once in ``tests/conftest.py``::

    pytest_plugins = ["tests.fakes.plugin"]

Then any test can ask for the ``fake_cli`` fixture. Each call writes an executable Python
script (``#!<this interpreter>``) called ``name`` into a per-test bin directory that is
first on ``PATH``, and returns a ``FakeCli``::

    def test_codex_reply(fake_cli):
        codex = fake_cli("codex", stdout={"approved": True, "findings": []})
        ...run something that spawns `codex` (through PATH or codex.path)...
        call = codex.last_call()          # argv, stdin, cwd, env, pid, pgid, ...
        assert call["argv"] == ["exec", "-"]
        assert call["stdin"] == "the prompt"

Keyword arguments (all optional; see ``tests/fakes/fakecli.py`` for the exact order):

- ``stdout``: reply text; a dict/list is JSON-encoded, bytes are sent exactly.
- ``stdout_sequence``: replies by invocation (1st call → item 0, …; the last repeats).
- ``stderr``: text for stderr. ``exit_code``: exit status. ``kill_self``: die by this signal.
- ``sleep``: seconds to wait before replying. ``print_bytes``: N extra bytes of ``x``.
- ``echo_stdin``: print the prompt read on stdin this many times before the reply.
- ``ignore_stdin``: never read stdin. ``stdout_before_stdin``: write N bytes first.
- ``ignore_sigterm``: only SIGKILL stops it. ``close_stdout_early``: stdout → /dev/null.
- ``spawn_grandchild``: start a sleeper (same process group, holding stdout) whose pid is
  recorded as ``grandchild_pid``; it writes ``FakeCli.marker`` if it lives
  ``grandchild_sleep`` seconds (default 30). ``grandchild_holds="stdin"``: it keeps only
  stdin open, not stdout/stderr. ``grandchild_escape="setpgid"``/``"setsid"``: it first
  leaves the process group / the session (issue 15's escape patterns).
- ``read_prompt_file``: ``"last"`` or ``"flag"`` — record the prompt file's text.
- ``record_to``: where the JSON-lines record goes (default: ``<tmp>/fake-records/<name>.jsonl``).

Every invocation is recorded, so ``len(fake.calls())`` counts them. Environment variables
``FAKE_*`` override the keyword arguments at run time (a channel's ``env:`` can set them).
``process_gone(pid)``, ``wait_until_gone(pid)`` and ``group_members(pgid)`` help tests that
kill process trees (zombies count as gone: PID 1 may never reap them).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

_FAKECLI_DIR = Path(__file__).resolve().parent
_SCRIPT = """#!{python}
import sys
sys.path.insert(0, {fakes_dir!r})
from fakecli import main
raise SystemExit(main({config!r}))
"""


@dataclass(frozen=True)
class FakeCli:
    """One fake executable and what it recorded."""

    name: str
    path: Path
    record_path: Path
    marker: Path

    def calls(self, *, include_version_probes: bool = False) -> list[dict[str, Any]]:
        """One dict per finished-reading invocation, oldest first.

        ``--version`` probes are left out unless asked for: mmr runs one beside every
        dispatch, and a test counting review runs should not see them.
        """
        if not self.record_path.exists():
            return []
        text = self.record_path.read_text(encoding="utf-8")
        # A fake still writing its record leaves a line without its newline: not finished.
        lines = text.split("\n")[:-1]
        calls = [json.loads(line) for line in lines if line]
        if include_version_probes:
            return calls
        return [call for call in calls if not call.get("version_probe")]

    def last_call(self, *, include_version_probes: bool = False) -> dict[str, Any]:
        calls = self.calls(include_version_probes=include_version_probes)
        assert calls, f"fake {self.name!r} was never invoked"
        return calls[-1]

    def wait_for_call(self, timeout: float = 5.0) -> dict[str, Any]:
        """Poll until the fake has recorded an invocation (for tests that run it async)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            calls = self.calls()
            if calls:
                return calls[-1]
            time.sleep(0.01)
        raise AssertionError(f"fake {self.name!r} recorded no invocation within {timeout}s")


class FakeCliFactory:
    """Callable that writes fake CLIs into ``bin_dir`` (already first on PATH)."""

    def __init__(self, root: Path) -> None:
        self.bin_dir = root / "fake-bin"
        self.records_dir = root / "fake-records"
        self.bin_dir.mkdir(parents=True, exist_ok=True)
        self.records_dir.mkdir(parents=True, exist_ok=True)

    def kill_leftovers(self) -> None:
        """SIGKILL the process groups recorded by this factory's fakes (never our own)."""
        own = os.getpgid(0)
        for record in self.records_dir.glob("*.jsonl"):
            for line in record.read_text(encoding="utf-8").splitlines():
                pgid = json.loads(line).get("pgid") if line else None
                if isinstance(pgid, int) and pgid not in (own, 0, 1):
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(pgid, signal.SIGKILL)

    def __call__(
        self,
        name: str,
        *,
        stdout: str | bytes | dict[str, Any] | list[Any] | None = None,
        stdout_sequence: Sequence[str | dict[str, Any]] | None = None,
        stderr: str | None = None,
        exit_code: int = 0,
        sleep: float = 0,
        ignore_stdin: bool = False,
        ignore_sigterm: bool = False,
        spawn_grandchild: bool = False,
        grandchild_sleep: float = 30,
        grandchild_holds: str = "all",
        grandchild_escape: str | None = None,
        record_to: Path | None = None,
        print_bytes: int = 0,
        close_stdout_early: bool = False,
        stdout_before_stdin: int = 0,
        kill_self: int | None = None,
        read_prompt_file: str | None = None,
        echo_stdin: int = 0,
    ) -> FakeCli:
        record = record_to or self.records_dir / f"{name}.jsonl"
        marker = self.records_dir / f"{name}.grandchild-survived"
        config: dict[str, Any] = {
            "stderr": stderr, "exit_code": exit_code, "sleep": sleep,
            "ignore_stdin": ignore_stdin, "ignore_sigterm": ignore_sigterm,
            "spawn_grandchild": spawn_grandchild, "grandchild_sleep": grandchild_sleep,
            "grandchild_holds": grandchild_holds, "grandchild_escape": grandchild_escape,
            "grandchild_marker": str(marker), "record_to": str(record),
            "print_bytes": print_bytes, "close_stdout_early": close_stdout_early,
            "stdout_before_stdin": stdout_before_stdin, "kill_self": kill_self,
            "read_prompt_file": read_prompt_file, "echo_stdin": echo_stdin,
            "counter_file": str(self.records_dir / f"{name}.count"),
        }
        if isinstance(stdout, bytes):
            config["stdout_b64"] = base64.b64encode(stdout).decode()
        elif isinstance(stdout, dict | list):
            config["stdout"] = json.dumps(stdout)
        else:
            config["stdout"] = stdout
        if stdout_sequence is not None:
            config["stdout_sequence"] = [
                item if isinstance(item, str) else json.dumps(item) for item in stdout_sequence
            ]
        path = self.bin_dir / name
        path.write_text(_SCRIPT.format(
            python=sys.executable, fakes_dir=str(_FAKECLI_DIR), config=json.dumps(config)
        ))
        path.chmod(0o755)
        return FakeCli(name=name, path=path, record_path=record, marker=marker)


@pytest.fixture
def fake_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeCliFactory]:
    """Factory for fake channel CLIs; their bin directory is prepended to ``PATH``.

    At teardown every process group a fake ran in is SIGKILLed, so a test that fails
    half-way cannot leave sleepers behind.
    """
    factory = FakeCliFactory(tmp_path)
    monkeypatch.setenv("PATH", f"{factory.bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    yield factory
    factory.kill_leftovers()


def process_gone(pid: int) -> bool:
    """True when ``pid`` no longer runs (a zombie awaiting its reaper counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


def wait_until_gone(pid: int, timeout: float = 3.0) -> bool:
    """Poll ``process_gone`` for up to ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process_gone(pid):
            return True
        time.sleep(0.01)
    return process_gone(pid)


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes whose process group is ``pgid`` (Linux ``/proc``)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z" and int(fields[2]) == pgid:
            members.append(int(entry.name))
    return members
