#!/usr/bin/env python3
"""A fake AI CLI for mmr's tests. Standard library only.

Normally run through the small scripts the ``fake_cli`` fixture writes (see
``tests/fakes/plugin.py``), which call ``main(<json config>)``. Every config key can also
be overridden at run time by an environment variable, so a channel's own ``env:`` can
change a fake's behaviour per channel:

=======================  ==========================  ========================================
config key               env override                effect
=======================  ==========================  ========================================
``ignore_sigterm``       ``FAKE_IGNORE_SIGTERM=1``   SIGTERM is ignored (only SIGKILL stops it)
``close_stdout_early``   ``FAKE_CLOSE_STDOUT=1``     stdout is closed first (fd 1 → /dev/null)
``spawn_grandchild``     ``FAKE_GRANDCHILD=1``       start a sleeper in the same process group
                                                     that holds stdout and, if it survives
                                                     ``grandchild_sleep`` s, writes
                                                     ``grandchild_marker``
                                                     (``grandchild_holds="stdin"``: it keeps
                                                     only stdin open)
``stdout_before_stdin``  ``FAKE_EARLY_BYTES=N``      write N bytes of stdout before reading
``ignore_stdin``         ``FAKE_IGNORE_STDIN=1``     never read stdin
``read_prompt_file``     ``FAKE_READ_PROMPT_FILE``   ``last``: read the last argv element as the
                                                     prompt file; ``flag``: the one after
                                                     ``--prompt-file``
``record_to``            ``FAKE_RECORD_DIR`` (dir)   append one JSON line per invocation
``stderr``               ``FAKE_STDERR``             text written to stderr
``sleep``                ``FAKE_SLEEP``              seconds to sleep before replying
``stdout_sequence``      ``FAKE_SEQUENCE``           nth invocation prints the nth item (the
                                                     last repeats); env: JSON list or
                                                     comma-separated
``stdout_file``          ``FAKE_STDOUT_FILE``        reply read from this file
``stdout``               ``FAKE_STDOUT``             reply text
``echo_stdin``           ``FAKE_ECHO_STDIN=N``       print stdin N times before the reply (a CLI
                                                     that echoes its prompt or transcript)
``print_bytes``          ``FAKE_PRINT_BYTES=N``      N bytes of ``x`` on stdout (after reply)
``kill_self``            ``FAKE_KILL_SELF=9``        die by this signal at the end
``exit_code``            ``FAKE_EXIT``               exit status (default 0)
=======================  ==========================  ========================================

A ``--version`` probe (mmr runs one beside every dispatch, and ``mmr doctor`` runs them)
behaves as configured but is not counted (it never advances ``stdout_sequence``) and is
recorded with ``"version_probe": true``, which ``FakeCli.calls()`` leaves out by default.
The steps run in the order of the table. ``counter_file`` (``FAKE_COUNTER_FILE``) counts
invocations; ``stdout_b64`` is the reply as base64 (exact bytes).
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

_ENV = {
    "ignore_sigterm": ("FAKE_IGNORE_SIGTERM", "bool"),
    "close_stdout_early": ("FAKE_CLOSE_STDOUT", "bool"),
    "spawn_grandchild": ("FAKE_GRANDCHILD", "bool"),
    "stdout_before_stdin": ("FAKE_EARLY_BYTES", "int"),
    "ignore_stdin": ("FAKE_IGNORE_STDIN", "bool"),
    "read_prompt_file": ("FAKE_READ_PROMPT_FILE", "str"),
    "stderr": ("FAKE_STDERR", "str"),
    "sleep": ("FAKE_SLEEP", "float"),
    "stdout_sequence": ("FAKE_SEQUENCE", "list"),
    "counter_file": ("FAKE_COUNTER_FILE", "str"),
    "stdout_file": ("FAKE_STDOUT_FILE", "str"),
    "stdout": ("FAKE_STDOUT", "str"),
    "echo_stdin": ("FAKE_ECHO_STDIN", "int"),
    "print_bytes": ("FAKE_PRINT_BYTES", "int"),
    "kill_self": ("FAKE_KILL_SELF", "int"),
    "exit_code": ("FAKE_EXIT", "int"),
}
_GRANDCHILD = (
    "import os, sys, time\n"
    "if sys.argv[3] == 'setpgid': os.setpgid(0, 0)\n"
    "if sys.argv[3] == 'setsid': os.setsid()\n"
    "time.sleep(float(sys.argv[2]))\n"
    "open(sys.argv[1], 'w').write('survived')\n"
)


def _from_env(kind: str, raw: str) -> Any:
    if kind == "bool":
        return raw not in ("", "0", "false")
    if kind == "int":
        return int(raw)
    if kind == "float":
        return float(raw)
    if kind == "list":
        return json.loads(raw) if raw.startswith("[") else raw.split(",")
    return raw


def load_config(config_json: str) -> dict[str, Any]:
    """The fixture's config with any ``FAKE_*`` environment overrides applied."""
    config: dict[str, Any] = json.loads(config_json)
    for key, (var, kind) in _ENV.items():
        if var in os.environ:
            config[key] = _from_env(kind, os.environ[var])
    if "FAKE_RECORD_DIR" in os.environ:
        config["record_to"] = str(Path(os.environ["FAKE_RECORD_DIR"]) / f"{_name()}.jsonl")
    return config


def _name() -> str:
    return Path(sys.argv[0]).name


def _next_invocation(config: dict[str, Any]) -> int:
    """0-based number of this invocation, counted in ``counter_file`` when one is set."""
    counter = config.get("counter_file")
    if not counter:
        return 0
    path = Path(counter)
    count = int(path.read_text() or "0") if path.exists() else 0
    path.write_text(str(count + 1))
    return count


def _spawn_grandchild(config: dict[str, Any]) -> int:
    marker = config.get("grandchild_marker") or os.devnull
    sleep = str(config.get("grandchild_sleep", 30))
    # "stdin": the sleeper keeps only stdin open (stdout/stderr → /dev/null).
    quiet = subprocess.DEVNULL if config.get("grandchild_holds") == "stdin" else None
    child = subprocess.Popen(
        [sys.executable, "-c", _GRANDCHILD, marker, sleep,
         str(config.get("grandchild_escape") or "")], stdout=quiet, stderr=quiet
    )
    return child.pid


def _read_prompt_file(mode: str) -> str | None:
    args = sys.argv[1:]
    if mode == "last" and args:
        return Path(args[-1]).read_text()
    if mode == "flag" and "--prompt-file" in args[:-1]:
        return Path(args[args.index("--prompt-file") + 1]).read_text()
    return None


def _reply(config: dict[str, Any], invocation: int) -> bytes:
    sequence = config.get("stdout_sequence")
    if sequence:
        return str(sequence[min(invocation, len(sequence) - 1)]).encode()
    if config.get("stdout_file"):
        return Path(config["stdout_file"]).read_bytes()
    if config.get("stdout_b64") is not None:
        return base64.b64decode(config["stdout_b64"])
    return str(config.get("stdout") or "").encode()


def _write_stdout(data: bytes, extra: int) -> None:
    out = sys.stdout.buffer
    out.write(data)
    block = b"x" * (1 << 20)
    while extra > 0:
        out.write(block[:extra])
        extra -= len(block)
    out.flush()


def _record(config: dict[str, Any], facts: dict[str, Any]) -> None:
    path = config.get("record_to")
    if not path:
        return
    line = (json.dumps(facts) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:  # one append per record, so a reader never sees two fakes' lines interleaved
        os.write(fd, line)
    finally:
        os.close(fd)


def main(config_json: str = "{}") -> int:
    """Behave as configured; returns the exit status."""
    config = load_config(config_json)
    version_probe = sys.argv[1:] == ["--version"]
    invocation = 0 if version_probe else _next_invocation(config)
    if config.get("ignore_sigterm"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if config.get("close_stdout_early"):
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    grandchild = _spawn_grandchild(config) if config.get("spawn_grandchild") else None
    if config.get("stdout_before_stdin"):
        _write_stdout(b"", int(config["stdout_before_stdin"]))
    stdin = None if config.get("ignore_stdin") else sys.stdin.buffer.read()
    mode = config.get("read_prompt_file")
    _record(config, {
        "name": _name(),
        "argv": sys.argv[1:],
        "cwd": str(Path.cwd()),
        "env": dict(os.environ),
        "stdin": None if stdin is None else stdin.decode("utf-8", errors="replace"),
        "stdin_bytes": None if stdin is None else len(stdin),
        "prompt_file_text": _read_prompt_file(mode) if mode else None,
        "pid": os.getpid(),
        "pgid": os.getpgid(0),
        "sid": os.getsid(0),
        "grandchild_pid": grandchild,
        "invocation": invocation,
        "version_probe": version_probe,
        "stdin_isatty": os.isatty(0),
        "stdout_isatty": os.isatty(1),
    })
    if config.get("stderr"):
        sys.stderr.write(str(config["stderr"]))
        sys.stderr.flush()
    time.sleep(float(config.get("sleep") or 0))
    try:
        echo = (stdin or b"") * int(config.get("echo_stdin") or 0)
        _write_stdout(echo + _reply(config, invocation), int(config.get("print_bytes") or 0))
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # the reader went away; exit quietly
    if config.get("kill_self"):
        os.kill(os.getpid(), int(config["kill_self"]))
    return int(config.get("exit_code") or 0)


if __name__ == "__main__":  # run directly (e.g. symlinked into bin/): env overrides only
    raise SystemExit(main())
