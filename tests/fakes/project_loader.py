"""A fake reviewer CLI that loads project-local files the way the real one does (issue 15).

Installed under a preset's command name (``claude``, ``codex``, ``agy``, ``opencode``,
``grok``), it looks for that CLI's project files in its working directory and every
parent, as the real CLI does, and *runs* the commands they name (hooks, MCP servers,
plugins); then it prints a clean review. Which files and flags count follows each CLI's
documentation (docs/trust.md, "presets"):

- ``claude``: ``.claude/settings.json`` and ``.claude/settings.local.json`` hooks (skipped
  when ``--setting-sources`` leaves out ``project``/``local``), ``.mcp.json`` servers
  (skipped with ``--strict-mcp-config``);
- ``codex``: ``.codex/config.toml`` ``[mcp_servers.*]``;
- ``agy``: ``.gemini/settings.json`` and ``.agent/mcp_config.json`` ``mcpServers``;
- ``opencode``: ``opencode.json`` ``mcp`` servers, ``.opencode/plugin/*.sh`` (skipped with
  ``--pure``);
- ``grok``: ``.grok/settings.json`` ``mcpServers``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CLEAN = json.dumps({"approved": True, "findings": [], "summary": "no issues"})


def _dirs() -> Iterator[Path]:
    here = Path.cwd().resolve()
    yield here
    yield from here.parents


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _servers(data: dict[str, Any], key: str) -> list[list[str]]:
    found = []
    for server in (data.get(key) or {}).values():
        command = server.get("command")
        if isinstance(command, list):
            found.append([str(part) for part in command])
        elif isinstance(command, str):
            found.append([command, *map(str, server.get("args", []))])
    return found


def _claude(argv: list[str], directory: Path) -> list[list[str]]:
    sources = "user,project,local"
    if "--setting-sources" in argv:
        sources = argv[argv.index("--setting-sources") + 1]
    commands = []
    for source, name in (("project", "settings.json"), ("local", "settings.local.json")):
        if source in sources.split(","):
            hooks = _json(directory / ".claude" / name).get("hooks") or {}
            commands += [["sh", "-c", hook["command"]] for event in hooks.values()
                         for group in event for hook in group.get("hooks", [])]
    if "--strict-mcp-config" not in argv:
        commands += _servers(_json(directory / ".mcp.json"), "mcpServers")
    return commands


def _codex(argv: list[str], directory: Path) -> list[list[str]]:
    try:
        data = tomllib.loads((directory / ".codex" / "config.toml").read_text())
    except (OSError, tomllib.TOMLDecodeError):
        return []
    return _servers(data, "mcp_servers")


def _agy(argv: list[str], directory: Path) -> list[list[str]]:
    return (_servers(_json(directory / ".gemini" / "settings.json"), "mcpServers")
            + _servers(_json(directory / ".agent" / "mcp_config.json"), "mcpServers"))


def _opencode(argv: list[str], directory: Path) -> list[list[str]]:
    commands = _servers(_json(directory / "opencode.json"), "mcp")
    if "--pure" not in argv:
        commands += [["sh", str(p)] for p in sorted((directory / ".opencode/plugin").glob("*.sh"))]
    return commands


def _grok(argv: list[str], directory: Path) -> list[list[str]]:
    return _servers(_json(directory / ".grok" / "settings.json"), "mcpServers")


LOADERS = {"claude": _claude, "codex": _codex, "agy": _agy, "opencode": _opencode,
           "grok": _grok}


def main() -> int:
    name = Path(sys.argv[0]).name
    argv = sys.argv[1:]
    if argv == ["--version"]:  # as the real CLIs: a version probe loads no project file
        sys.stdout.write(f"{name} 0.0.0\n")
        return 0
    if argv == ["--help"]:  # the grok preset tells xAI's CLI by its --prompt-file flag
        sys.stdout.write(f"usage: {name} [--prompt-file FILE] [--model MODEL]\n")
        return 0
    for directory in _dirs():
        for command in LOADERS[name](argv, directory):
            subprocess.run(command, check=False)
    if not sys.stdin.isatty():
        sys.stdin.read()
    reply = json.dumps({"result": CLEAN, "is_error": False}) if name == "claude" else CLEAN
    if "respond with ok" in argv:  # an auth check that asks for a one-word answer
        reply = "ok"
    sys.stdout.write(reply + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
