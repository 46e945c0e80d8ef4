"""What ``mmr review --dry-run`` prints .

MMR 4.0.1's listing — banner, the channels that would dispatch, one line per channel that
would not, each dispatchable channel's assembled prompt — is kept as it is. After it, mmr adds
a dispatch plan per resolved channel: its argv (secret values redacted, placeholders that only
exist at dispatch such as ``{{prompt_file}}`` left as written), how the prompt reaches it,
its auth check, and whether it would dispatch (and why not). ``--format json`` gives the
same as one JSON document.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mmr.config.channel_schema import HttpChannel, ReplayChannel
from mmr.diff.shards import estimate_tokens
from mmr.dispatch.findings_schema import FINDINGS_SCHEMA_JSON
from mmr.dispatch.placeholders import PROMPT_FILE_PLACEHOLDER, PlaceholderValues, expand_argv
from mmr.dispatch.plan import ChannelPlan
from mmr.dispatch.replay import replay_argv
from mmr.errors import ConfigError
from mmr.formatters.json import dumps
from mmr.formatters.sanitize import visible_controls
from mmr.process.types import redact_argv
from mmr.review.preflight import DRY_RUN_BANNER, GateResult
from mmr.secrets.redact import redact_text


def channel_argv(result: GateResult, repo_root: Path) -> list[str] | None:
    """The argv a subprocess channel would run, redacted; None for an http channel."""
    channel = result.planned.channel
    if isinstance(channel, HttpChannel):
        return None
    if isinstance(channel, ReplayChannel):
        return replay_argv(result.name, channel)
    file_mode = channel.prompt_delivery == "prompt-file"
    values = PlaceholderValues(channel=result.name, repo_root=repo_root, vars=channel.vars or {},
                               prompt_file=Path(PROMPT_FILE_PLACEHOLDER) if file_mode else None,
                               findings_schema=FINDINGS_SCHEMA_JSON)
    try:
        argv = expand_argv(channel.command or "", channel.flags, values=values)
    except ConfigError as exc:
        return [f"(cannot build the command: {redact_text(str(exc))})"]
    return [redact_text(arg) for arg in redact_argv(tuple(argv))]


def prompt_delivery(result: GateResult) -> str:
    """``stdin``, ``prompt-file`` or ``http`` (the request body)."""
    channel = result.planned.channel
    if isinstance(channel, HttpChannel):
        return "http"
    return channel.prompt_delivery or "stdin"


def auth_check(result: GateResult) -> str | None:
    """The channel's auth check as it runs: ``sh -c`` text, or the http probe."""
    channel = result.planned.channel
    if isinstance(channel, HttpChannel):
        key = f" with ${channel.api_key_env}" if channel.api_key_env else ""
        return redact_text(f"GET {channel.probe_url}{key}")
    if isinstance(channel, ReplayChannel):
        return "the recorded reply must exist (no process runs before dispatch)"
    if channel.auth is None:
        return None
    codes = ", ".join(str(code) for code in channel.auth.failure_exit_codes)
    return redact_text(f"sh -c {shlex.quote(channel.auth.check)} (fails on exit {codes})")


def channel_entry(result: GateResult, repo_root: Path) -> dict[str, Any]:
    plan = result.planned.plan
    return {
        "channel": result.name,
        "would_dispatch": result.passed,
        "status": "ok" if result.passed else result.raw_status,
        "reason": None if result.passed else result.reason,
        "argv": channel_argv(result, repo_root),
        "prompt_delivery": prompt_delivery(result),
        "auth_check": auth_check(result),
        "prompt": plan.prompt if result.passed and plan is not None else None,
        **budget_entry(plan),
    }


def budget_entry(plan: ChannelPlan | None) -> dict[str, Any]:
    """The channel's prompt budget, its estimated size, and its shards (None: one prompt)."""
    if plan is None:
        return dict.fromkeys(("estimated_tokens", "max_prompt_tokens", "shards"))
    tokens = [estimate_tokens(shard.prompt) for shard in plan.shards]
    shards = [{"files": list(shard.files), "estimated_tokens": n}
              for shard, n in zip(plan.shards, tokens, strict=True)]
    return {"estimated_tokens": sum(tokens) if tokens else estimate_tokens(plan.prompt),
            "max_prompt_tokens": plan.max_prompt_tokens, "shards": shards or None}


def plan_lines(result: GateResult, repo_root: Path) -> list[str]:
    """The text form of one channel's dispatch plan."""
    entry = channel_entry(result, repo_root)
    verdict = ("would dispatch" if result.passed
               else f"would not dispatch — {entry['status']}: {entry['reason']}")
    argv = entry["argv"]
    shown = (f"(http) POST {redact_text(result.planned.channel.endpoint)}"
             if argv is None and isinstance(result.planned.channel, HttpChannel)
             else shlex.join(argv or []))
    shards = entry["shards"] or []
    lines = [f"{result.name}: {verdict}",
             f"  argv: {shown}",
             f"  prompt delivery: {entry['prompt_delivery']}",
             f"  auth check: {entry['auth_check'] or '(none: only the install check)'}"]
    if entry["estimated_tokens"] is not None:
        lines.append(f"  prompt: ~{entry['estimated_tokens']} estimated tokens, budget "
                     f"{entry['max_prompt_tokens'] or 'none'}, "
                     + (f"{len(shards)} shards" if shards else "one prompt"))
    return lines + [f"    shard-{i} (~{shard['estimated_tokens']} tokens): "
                    + ", ".join(map(visible_controls, shard["files"]))
                    for i, shard in enumerate(shards, 1)]


def dry_run_report(results: Sequence[GateResult], repo_root: Path) -> str:
    """The ``--dry-run`` text (gate results and the dispatch plan), no trailing newline."""
    passing = [r for r in results if r.passed]
    lines = [DRY_RUN_BANNER,
             "Channels that would dispatch: " + (", ".join(r.name for r in passing) or "(none)")]
    lines += [r.line() for r in results if not r.passed]
    for result in passing:
        plan = result.planned.plan
        shards = [(f".shard-{i}", s.prompt) for i, s in enumerate(plan.shards if plan else (), 1)]
        for suffix, prompt in shards or [("", "" if plan is None else plan.prompt)]:
            lines += ["", f"--- Assembled prompt for {result.name}{suffix} ---", prompt]
    lines += ["", "--- Dispatch plan ---"]
    for result in results:
        lines += plan_lines(result, repo_root)
    return "\n".join(lines)


def dry_run_json(results: Sequence[GateResult], repo_root: Path) -> str:
    """``--dry-run --format json``: the same facts as one document."""
    return dumps({"dry_run": True,
                  "would_dispatch": [r.name for r in results if r.passed],
                  "channels": [channel_entry(r, repo_root) for r in results]})
