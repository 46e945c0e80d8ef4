"""One dispatch attempt of a subprocess channel.

Order: write the prompt file if the channel asks for one, resolve the neutral
posture, build argv (no shell, ever), write ``running`` with a fresh ``started_at``, spawn
(writing ``<ch>.pid``), feed the prompt, collect output under the deadline, and settle:

=======================================  =========  =======================================
what happened                            status     file written
=======================================  =========  =======================================
exit 0 with at least one byte of stdout  completed  ``<ch>.json`` (the stdout)
exit 0 with no stdout, exit N, a signal  failed     (log text: stderr, else the exit line)
the executable or cwd is missing         failed     (log text: ``spawn <cmd> ENOENT``)
stdout over ``MAX_REPLY_BYTES``          failed     (log text: the size; redacted head kept)
the deadline fired first                 timeout    (log text: captured stderr, if any)
stderr repeats a stuck-retry line        failed     (log text: why mmr stopped it, stderr)
=======================================  =========  =======================================

Stdout is read into memory up to its head (the parse cap); the rest is drained and
counted, so a runaway channel can exhaust neither mmr's memory nor the disk. Nothing of a
reply reaches the disk before it is redacted, however the run ends: a reply that fits goes
to ``<ch>.json`` redacted; the head of one too large to parse goes to ``<ch>.stdout``,
redacted and cut at its last whitespace (a credential cut in two at the cap would not be
recognised); a killed or timed-out run leaves only its redacted log.

The log text is returned, not written: the caller writes ``<ch>.log`` once the channel is
final, after any re-dispatch, so the log describes the outcome that stands.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import anyio

from mmr.config.channel_schema import HttpChannel, ReplayChannel, SubprocessChannel
from mmr.dispatch.failure_reason import StuckWatch, failure_log, stuck_log
from mmr.dispatch.findings_schema import FINDINGS_SCHEMA_JSON
from mmr.dispatch.http import run_http_channel
from mmr.dispatch.isolation import Posture, open_posture
from mmr.dispatch.placeholders import PlaceholderValues, expand_argv
from mmr.dispatch.plan import ChannelEvent, ChannelPlan, DispatchContext
from mmr.dispatch.replay import replay_argv
from mmr.dispatch.store_io import emit, in_thread, update_status
from mmr.dispatch.workspace import working_directory
from mmr.errors import MmrError
from mmr.models import ChannelStatus, Telemetry
from mmr.process.subprocess import ProcessRequest, run_process
from mmr.process.types import ProcessOutcome
from mmr.secrets.credentials import redact_credentials
from mmr.store.records import iso_timestamp

#: The most stdout mmr keeps in memory and parses from one reply; the rest of a longer
#: one is counted and dropped (a real review is well under 1 MiB).
MAX_REPLY_BYTES = 16 * 1024 * 1024
#: The kept head of a reply too large to parse ends at the last of these: a credential
#: cut in two at the cap would not be recognised, so its first part is not kept.
_WORD_BREAKS = (" ", "\n", "\t", "\r")


@dataclass(frozen=True, slots=True)
class AttemptResult:
    """How one process run settled. ``raw`` is the stdout of a ``completed`` run."""

    status: ChannelStatus
    started_at: str | None
    raw: str | None = None
    log: str | None = None
    telemetry: Telemetry | None = None  #: figures the transport reported (HTTP ``usage``)


def _argv(plan: ChannelPlan, ctx: DispatchContext, channel: SubprocessChannel,
          prompt_file: Path | None, posture: Posture) -> list[str]:
    if isinstance(channel, ReplayChannel):
        return replay_argv(plan.name, channel)
    values = PlaceholderValues(channel=plan.name, prompt_file=prompt_file, repo_root=ctx.repo_root,
                               roots=ctx.roots, vars=channel.vars or {},
                               neutral_dir=posture.directory,
                               findings_schema=FINDINGS_SCHEMA_JSON)
    return expand_argv(channel.command or "", channel.flags, values=values)


def too_large_log(outcome: ProcessOutcome, spool: Path | None) -> str:
    """The log of a reply over :data:`MAX_REPLY_BYTES` (never a silent cut)."""
    where = (f"; its first {MAX_REPLY_BYTES} bytes, redacted and cut at the last "
             f"whitespace, are in {spool}") if spool is not None else ""
    return (f"stdout was {outcome.stdout_bytes} bytes, over the {MAX_REPLY_BYTES} bytes mmr "
            f"reads from a reply, so it was not parsed{where}")


def settle(outcome: ProcessOutcome, started_at: str, spool: Path | None = None,
           prompt: str | None = None) -> AttemptResult:
    """Which status a finished process gives, and its log text.

    A reply longer than :data:`MAX_REPLY_BYTES` is ``failed`` whatever the exit code: only
    its head is in memory, and a review cut short must not pass as a complete one. The log
    of a failure starts with the CLI's own reason (:mod:`mmr.dispatch.failure_reason`:
    claude's ``is_error`` envelope on stdout, ``ERROR:`` lines of stderr), without escape
    codes or the echoed ``prompt``.
    """
    stderr = outcome.stderr_text()
    if outcome.timed_out:
        return AttemptResult("timeout", started_at, log=failure_log("", stderr, prompt))
    if outcome.truncated:
        return AttemptResult("failed", started_at, log=too_large_log(outcome, spool))
    if outcome.rc == 0 and outcome.stdout_bytes > 0:
        return AttemptResult("completed", started_at, raw=outcome.stdout_text())
    if outcome.gave_up:
        return AttemptResult("failed", started_at,
                             log=stuck_log(outcome.stdout_text(), stderr, prompt))
    log = failure_log(outcome.stdout_text(), stderr, prompt)
    return AttemptResult("failed", started_at, log=log or outcome.exit_message())


async def run_attempt(plan: ChannelPlan, ctx: DispatchContext, attempt: int) -> AttemptResult:
    """Run ``plan`` once and save its output; the status is left ``running`` for the caller."""
    channel = plan.channel
    if isinstance(channel, HttpChannel):
        return await _run_http_attempt(plan, ctx, attempt)
    prompt_file: Path | None = None
    if channel.prompt_delivery == "prompt-file":
        try:  # never held: the CLI reads it from disk, so a refused write fails the channel
            written = await in_thread(ctx.store.write_channel_prompt, ctx.job_id, plan.name,
                                      plan.prompt)
        except MmrError as exc:
            return AttemptResult("failed", None, log=str(exc))
        prompt_file = written.absolute()
    cwd, env = working_directory(channel, workspace=ctx.workspace, repo_root=ctx.repo_root)
    posture = open_posture(env, cwd)
    try:
        try:
            argv = _argv(plan, ctx, channel, prompt_file, posture)
        except MmrError as exc:
            return AttemptResult("failed", None, log=str(exc))
        started_at = iso_timestamp()
        spool = await in_thread(ctx.store.stdout_spool_path, ctx.job_id, plan.name)
        request = ProcessRequest(
            tuple(argv), cwd=posture.cwd, env=posture.env,
            stdin=None if prompt_file is not None else plan.prompt.encode("utf-8"),
            prompt_file=prompt_file, timeout_s=plan.timeout_s, stderr=channel.stderr,
            label=plan.name, max_capture_bytes=MAX_REPLY_BYTES,
            give_up=StuckWatch() if channel.stderr == "capture" else None,
        )
        outcome = await _spawn_then_mark(request, plan, ctx, attempt, started_at)
    finally:
        posture.cleanup()
    result = settle(outcome, started_at, spool, plan.prompt)
    head = outcome.stdout_text() if outcome.truncated else None
    await in_thread(_keep_reply, ctx, plan.name, result.raw, head)
    return result


def _keep_reply(ctx: DispatchContext, channel: str, raw: str | None, head: str | None) -> None:
    """One worker-thread hop: the redacted reply to ``<ch>.json``, or the redacted head of
    a reply too large to parse to ``<ch>.stdout``."""
    if raw is not None:
        ctx.store.write_channel_output(ctx.job_id, channel, redact_credentials(raw)[0])
    if head is not None:
        whole_words = head[: max(map(head.rfind, _WORD_BREAKS)) + 1]
        ctx.store.write_stdout_head(ctx.job_id, channel, redact_credentials(whole_words)[0])


async def _spawn_then_mark(request: ProcessRequest, plan: ChannelPlan, ctx: DispatchContext,
                           attempt: int, started_at: str) -> ProcessOutcome:
    """Run the child, writing ``running`` (a locked store write) once it is spawned.

    The write waits for the spawn so no channel's start queues behind the job lock (issue
    19); it still lands before the caller's terminal status, and a spawn that fails writes
    it too, so the status file goes through the same states. A failing write stops the
    child and is raised, as it was when the write came first.
    """
    spawned = anyio.Event()
    failure: list[BaseException] = []

    def on_spawn(pid: int) -> None:
        ctx.store.write_pid(ctx.job_id, plan.name, pid)
        spawned.set()

    async def mark() -> None:
        # Shielded: an interrupt still finds ``running`` (and its started_at) written, as
        # when the write came first; the host's ``finally`` always sets ``spawned``.
        with anyio.CancelScope(shield=True):
            await spawned.wait()
            try:
                await _mark_running(plan, ctx, attempt, started_at)
            except Exception as exc:
                failure.append(exc)
                group.cancel_scope.cancel()

    outcome: list[ProcessOutcome] = []
    async with anyio.create_task_group() as group:
        group.start_soon(mark)
        try:
            outcome.append(await run_process(request, on_spawn=on_spawn))
        except Exception as exc:  # raised below as itself, not inside an exception group
            failure.append(exc)
        finally:
            spawned.set()
    if failure:
        raise failure[0]
    return outcome[0]


async def _mark_running(plan: ChannelPlan, ctx: DispatchContext, attempt: int,
                        started_at: str | None = None) -> str:
    started_at = started_at or iso_timestamp()
    await update_status(ctx, plan.name, status="running", started_at=started_at, completed_at=None,
                        reason=None, telemetry=None, output_parser=plan.output_parser)
    emit(ctx, ChannelEvent(plan.name, "running", attempt=attempt))
    return started_at


async def _run_http_attempt(plan: ChannelPlan, ctx: DispatchContext, attempt: int) -> AttemptResult:
    """One request of an HTTP channel; settles like a subprocess attempt."""
    started_at = await _mark_running(plan, ctx, attempt)
    result = await run_http_channel(plan)
    if result.status == "completed" and result.content is not None:
        await in_thread(ctx.store.write_channel_output, ctx.job_id, plan.name,
                        redact_credentials(result.content)[0])
        return AttemptResult("completed", started_at, raw=result.content,
                             telemetry=result.telemetry)
    return AttemptResult(result.status, started_at, log=result.log or result.error)
