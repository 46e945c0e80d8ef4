"""The capability manifest ``mmr commands`` prints.

Agents load it once instead of probing ``--help``: every command with a one-line summary,
a runnable example and whether it can change config files or the job store. It is kept
by hand; ``tests/unit/cli/test_commands_manifest.py`` fails when it drifts from the
commands actually registered.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class ManifestEntry:
    """One command. ``writes`` is true when the command, or any sub-command or flag of it,
    can change config files or the job store."""

    command: str
    summary: str
    example: str
    writes: bool


MANIFEST: tuple[ManifestEntry, ...] = (
    ManifestEntry("review", "Review a diff with several AI reviewers and gate on the verdict",
                  "mmr review --pr 47 --sync", True),
    ManifestEntry("critique [input]", "Advisory multi-model critique of a design; never gates",
                  "mmr critique design.md", True),
    ManifestEntry("status <job-id>", "Per-channel status of a review job",
                  "mmr status job_abc", False),
    ManifestEntry("results <job-id>", "Reconcile a finished job and print its verdict",
                  "mmr results job_abc --format text", False),
    ManifestEntry("reconcile <job-id>", "Fold an external channel's findings into a job",
                  "mmr reconcile job_abc --channel superpowers --input findings.json", True),
    ManifestEntry("jobs <list|prune>", "List review jobs, or prune old ones",
                  "mmr jobs list", True),
    ManifestEntry("sessions <start|list|show|end>", "Manage multi-round review sessions",
                  "mmr sessions list", True),
    ManifestEntry("ack <add|list|rm|prune>", "Acknowledge findings so they stop blocking",
                  "mmr ack list", True),
    ManifestEntry("skill install", "Install the mmr review skill for coding agents",
                  "mmr skill install --all", True),
    ManifestEntry("doctor", "Check every channel's install and login; --fix disables missing ones",
                  "mmr doctor", True),
    ManifestEntry("config init", "Write a starter .mmr.yaml for the CLIs found on PATH",
                  "mmr config init", True),
    ManifestEntry("config test", "Check that the configured channels are installed and logged in",
                  "mmr config test", False),
    ManifestEntry("config path", "Show which config files are read and written",
                  "mmr config path", False),
    ManifestEntry("config channels", "List channels with their state and its source",
                  "mmr config channels --format text", False),
    ManifestEntry("config show <channel>", "Show one channel's effective config",
                  "mmr config show codex", False),
    ManifestEntry("config enable <channel>", "Run a channel by default",
                  "mmr config enable grok", True),
    ManifestEntry("config disable <channel>", "Stop running a channel by default",
                  "mmr config disable grok", True),
    ManifestEntry("config set <dotted.path> <value>", "Set a config value (validated first)",
                  "mmr config set defaults.fix_threshold P1", True),
    ManifestEntry("config unset <dotted.path>", "Remove a config value",
                  "mmr config unset defaults.fix_threshold", True),
    ManifestEntry("config schema", "Print the JSON Schema of a config file",
                  "mmr config schema", False),
    ManifestEntry("commands", "This manifest: every command with an example",
                  "mmr commands --json", False),
    ManifestEntry("explain <topic>", "Explain a concept; no topic lists them",
                  "mmr explain compensation", False),
    ManifestEntry("comment --pr <n>", "Post or update one sticky pull-request comment",
                  "mmr comment --pr 47 --results mmr-results.json", False),
    ManifestEntry("explore", "Ask read-only models a question about code; cited answer",
                  'mmr explore --root . --question "Where is the retry limit enforced?"', False),
    ManifestEntry("demo", "A full review of a bundled example with recorded replies, offline",
                  "mmr demo", False),
)


def manifest_json(entries: tuple[ManifestEntry, ...] = MANIFEST) -> str:
    return json.dumps([asdict(entry) for entry in entries], indent=2, ensure_ascii=False)


def manifest_text(entries: tuple[ManifestEntry, ...] = MANIFEST) -> str:
    """One line per entry: two spaces, the command padded to the widest, two spaces, summary."""
    width = max(len(entry.command) for entry in entries)
    return "\n".join(f"  {entry.command.ljust(width)}  {entry.summary}" for entry in entries)
