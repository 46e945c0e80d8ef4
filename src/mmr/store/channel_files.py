"""The plain files of a job: outputs, logs, pids, prompts, the diff, results.

Formats are MMR 4.0.1's: ``<ch>.json`` holds the raw reply encoded as one JSON
*string* (``mmr reconcile`` stores a normalised *object* instead), ``<ch>.pid`` the
decimal pid without a newline, everything else plain text. Every write is atomic; only
``results.json`` is also fsynced (with ``job.json``, what a crashed job is recovered from:
a status, reply or log lost to a power cut leaves the channel to be re-run or reported).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mmr.fs import atomic_write_text, dumps_json, encode_text, ensure_private_dir
from mmr.secrets.credentials import redact_credentials
from mmr.store import held
from mmr.store.layout import JobPaths


class ChannelFiles:
    """File operations shared by :class:`mmr.store.jobs.JobStore` (mixed in)."""

    def existing(self, job_id: str) -> JobPaths:  # pragma: no cover - provided by JobStore
        raise NotImplementedError

    # -- per channel -------------------------------------------------------------------

    def write_channel_output(self, job_id: str, channel: str, text: str) -> None:
        """Save a reply as ``<ch>.json``: the text as a JSON string literal, UTF-8 kept."""
        held.write_bytes(self._write_target(job_id, channel, ".json"), dumps_json(text),
                         durable=False)

    def write_channel_output_object(
        self, job_id: str, channel: str, document: Mapping[str, Any]
    ) -> None:
        """Save a normalised ``{approved, findings, summary}`` object (``mmr reconcile``)."""
        path = self._write_target(job_id, channel, ".json")
        held.write_bytes(path, dumps_json(dict(document)), durable=False)

    def read_channel_output(self, job_id: str, channel: str) -> str | None:
        """The raw reply: the decoded string when the file holds a JSON string, else its
        text (an injected object is handed to the parser as JSON text); None if missing."""
        try:
            data = held.read_bytes(self._channel_path(job_id, channel, ".json"))
        except FileNotFoundError:
            return None
        with contextlib.suppress(ValueError):
            decoded = json.loads(data)
            if isinstance(decoded, str):
                return decoded
        return data.decode("utf-8", "surrogateescape")

    def write_log(self, job_id: str, channel: str, text: str) -> None:
        """``<ch>.log``: a CLI's own words (stderr, claude's stdout envelope), so redacted."""
        held.write_text(self._write_target(job_id, channel, ".log"),
                        redact_credentials(text)[0], durable=False)

    def read_log(self, job_id: str, channel: str) -> str | None:
        return _read_text(self._channel_path(job_id, channel, ".log"))

    def write_pid(self, job_id: str, channel: str, pid: int) -> None:
        held.write_text(self._write_target(job_id, channel, ".pid"), str(pid), durable=False)

    def write_channel_prompt(self, job_id: str, channel: str, prompt: str) -> Path:
        """Write the channel's prompt file (exact text) and return its path.

        Never held in memory: the channel's CLI reads it from disk."""
        path = self._write_target(job_id, channel, ".prompt.txt")
        atomic_write_text(path, prompt, durable=False)
        return path

    def stdout_spool_path(self, job_id: str, channel: str) -> Path:
        """``<ch>.stdout``, where a running channel's raw stdout is streamed (its directory
        is created private). The dispatcher removes it once the reply is in ``<ch>.json``
        and keeps it only for a reply too large to parse."""
        return self._write_target(job_id, channel, ".stdout")

    def discard_stdout_spool(self, job_id: str, channel: str) -> None:
        held.remove(self._channel_path(job_id, channel, ".stdout"))

    def clear_attempt(self, job_id: str, channel: str) -> None:
        """Delete output, log, pid and spool before a retry, so nothing stale can pass a gate."""
        for suffix in (".json", ".log", ".pid", ".stdout"):
            held.remove(self._channel_path(job_id, channel, suffix))

    # -- per job -----------------------------------------------------------------------

    def write_prompt(self, job_id: str, prompt: str) -> None:
        held.write_text(self.existing(job_id).prompt, prompt, durable=False)

    def write_diff(self, job_id: str, diff: str) -> None:
        held.write_text(self.existing(job_id).diff, diff, durable=False)

    def read_diff(self, job_id: str) -> str | None:
        return _read_text(self.existing(job_id).diff)

    def write_results(self, job_id: str, document: Mapping[str, Any]) -> None:
        """Overwrite ``results.json`` with the JSON form of the last results."""
        held.write_json(self.existing(job_id).results, dict(document))

    def write_results_text(self, job_id: str, text: str) -> None:
        """Overwrite ``results.json`` with ``text`` (already the JSON document)."""
        held.write_bytes(self.existing(job_id).results, encode_text(text))

    def worker_log_path(self, job_id: str) -> Path:
        return self.existing(job_id).worker_log

    def _channel_path(self, job_id: str, channel: str, suffix: str) -> Path:
        return self.existing(job_id).channel_file(channel, suffix)

    def _write_target(self, job_id: str, channel: str, suffix: str) -> Path:
        paths = self.existing(job_id)
        path = paths.channel_file(channel, suffix)
        ensure_private_dir(paths.channels_dir)
        return path


def append_line(path: Path, line: str) -> None:
    """Append ``line`` to a text file, atomically (the file is small: logs, diagnostics)."""
    existing = _read_text(path) or ""
    separator = "" if not existing or existing.endswith("\n") else "\n"
    held.write_text(path, f"{existing}{separator}{line}\n", durable=False)


def _read_text(path: Path) -> str | None:
    try:
        return held.read_text(path)
    except FileNotFoundError:
        return None
