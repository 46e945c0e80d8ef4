"""Channel health for ``mmr doctor``: one row per configured channel.

Channels are visited in config order. Retired, abstract and disabled channels
(``enabled: false`` or listed in ``channels_disabled``) and command-less subprocess
channels are reported without running anything. Every other channel goes through the
review gate's own install + auth check (:func:`mmr.dispatch.auth.check_channels`), so
``doctor``, ``config test`` and ``review`` can never disagree about a channel; the checks
run concurrently (in order when ``defaults.parallel`` is false) and the rows keep config
order. mmr additions: each installed built-in CLI's ``--version`` line (``version``), and a
``suggestion`` on the ``minimax`` row when its CLI is installed but the channel is off.

``installed: false`` on a row that was not probed means "not probed", not "absent".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import anyio

from mmr.config.channel_schema import HttpChannel, ReplayChannel, SubprocessChannel
from mmr.config.defaults import BUILTIN_CHANNEL_ORDER
from mmr.config.loaded import LoadedConfig
from mmr.config.selection import disabled_channels
from mmr.dispatch.auth import check_channels, install_token, is_installed
from mmr.dispatch.plan import AuthResult
from mmr.dispatch.versions import cli_versions_async
from mmr.secrets.redact import redact_text

Channel = SubprocessChannel | HttpChannel
HealthStatus = Literal[
    "ok", "auth_failed", "timeout", "not_installed", "missing_command",
    "disabled", "abstract", "retired",
]

READY: frozenset[HealthStatus] = frozenset({"ok"})
NEEDS_ATTENTION: frozenset[HealthStatus] = frozenset(
    {"auth_failed", "timeout", "not_installed", "missing_command"})
OFF: frozenset[HealthStatus] = frozenset({"disabled", "abstract", "retired"})
#: Problems ``--fix`` cannot touch: any of them makes ``mmr doctor`` exit 1.
UNFIXABLE: frozenset[HealthStatus] = frozenset({"auth_failed", "timeout", "missing_command"})

MINIMAX = "minimax"
ENABLE_MINIMAX = "mmr config enable minimax"

_FROM_GATE: dict[str, HealthStatus] = {"ok": "ok", "failed": "auth_failed", "timeout": "timeout"}


@dataclass(frozen=True)
class ChannelHealth:
    """One doctor row. ``recovery`` is already redacted; absent fields are omitted in JSON."""

    name: str
    status: HealthStatus
    installed: bool
    recovery: str | None = None
    version: str | None = None  #: mmr: the CLI's ``--version`` line
    suggestion: str | None = None  #: mmr: a command worth running (minimax opt-in)

    def to_json(self) -> dict[str, Any]:
        """``{name, status, installed[, recovery][, version][, suggestion]}``."""
        row: dict[str, Any] = {"name": self.name, "status": self.status,
                               "installed": self.installed}
        for key in ("recovery", "version", "suggestion"):
            value = getattr(self, key)
            if value is not None:
                row[key] = value
        return row


def not_installed_recovery(token: str, name: str, install: str | None = None) -> str:
    """The fix ``doctor`` prints for a missing CLI; the token is redacted (a command may
    start with ``KEY=secret``).

    mmr addition: the channel's ``auth.install`` names the package and its install command.
    """
    how = f" ({redact_text(install)})" if install else ""
    return f"install {redact_text(token)}{how}, or stop dispatching it: mmr config disable {name}"


def unprobed_health(name: str, channel: Channel, listed_off: set[str]) -> ChannelHealth | None:
    """The row of a channel that is never probed (retired, abstract, disabled, or without
    a command); None: probe it."""
    if channel.retired:
        return ChannelHealth(name, "retired", installed=False)
    if channel.abstract:
        return ChannelHealth(name, "abstract", installed=False)
    if not channel.enabled or name in listed_off:
        return ChannelHealth(name, "disabled", installed=False)
    if (isinstance(channel, SubprocessChannel) and not isinstance(channel, ReplayChannel)
            and not install_token(channel.command)):
        return ChannelHealth(name, "missing_command", installed=False)
    return None


def probed_health(name: str, channel: Channel, result: AuthResult,
                  version: str | None = None) -> ChannelHealth:
    """The row for a gate result: the recovery of an ``auth_failed`` one, else the check's
    own words when it failed."""
    if result.status == "not_installed" and isinstance(channel, ReplayChannel):
        return ChannelHealth(name, "not_installed", installed=False, recovery=result.recovery)
    if result.status == "not_installed" and isinstance(channel, SubprocessChannel):
        token = install_token(channel.command)
        return ChannelHealth(name, "not_installed", installed=False,
                             recovery=not_installed_recovery(
                                 token, name, channel.auth.install if channel.auth else None))
    status = _FROM_GATE.get(result.status)
    if status is None:  # "skipped": the gate found no command (unprobed_health catches it)
        return ChannelHealth(name, "missing_command", installed=False)
    # Without a recovery the check's own words say what went wrong (refused, timed out).
    recovery = result.recovery if status == "auth_failed" else None
    if status != "ok" and recovery is None and result.detail:
        recovery = redact_text(result.detail)
    return ChannelHealth(name, status, installed=True, recovery=recovery, version=version)


def probed_channels(loaded: LoadedConfig) -> list[str]:
    """The channels whose install and auth checks doctor runs, in config order."""
    listed_off = disabled_channels(loaded.config)
    return [name for name, channel in loaded.channels.items()
            if unprobed_health(name, channel, listed_off) is None]


async def probe_health_async(loaded: LoadedConfig) -> list[ChannelHealth]:
    """Every channel's row, in config order (auth checks and version probes concurrent)."""
    listed_off = disabled_channels(loaded.config)
    fixed = {name: unprobed_health(name, channel, listed_off)
             for name, channel in loaded.channels.items()}
    live = [(name, loaded.channels[name]) for name, row in fixed.items() if row is None]
    results: dict[str, AuthResult] = {}
    versions: dict[str, str] = {}

    async def run_checks() -> None:
        results.update(await check_channels(live, parallel=loaded.defaults.parallel))

    async def run_version_probes() -> None:
        # A channel of one's own may be the reviewer itself: only presets are asked.
        versions.update(await cli_versions_async(
            {name: channel for name, channel in live if name in BUILTIN_CHANNEL_ORDER}))

    async with anyio.create_task_group() as group:
        group.start_soon(run_checks)
        group.start_soon(run_version_probes)
    rows = [row if row is not None
            else probed_health(name, loaded.channels[name], results[name], versions.get(name))
            for name, row in fixed.items()]
    return [_with_suggestion(row, loaded) for row in rows]


def _with_suggestion(row: ChannelHealth, loaded: LoadedConfig) -> ChannelHealth:
    """Suggest ``mmr config enable minimax`` when its CLI is installed but it is off."""
    channel = loaded.channels.get(row.name)
    if row.name != MINIMAX or row.status != "disabled" or not isinstance(channel,
                                                                         SubprocessChannel):
        return row
    token = install_token(channel.command)
    if not token or not is_installed(token):
        return row
    return ChannelHealth(row.name, row.status, row.installed, row.recovery, row.version,
                         suggestion=ENABLE_MINIMAX)


def doctor_exit_code(rows: list[ChannelHealth], fixed: set[str] | None = None,
                     fix_failed: bool = False) -> int:
    """1 when no row is ready, a row needs attention that ``--fix`` did not settle, or a
    fix failed.

    ``fixed`` names the ``not_installed`` channels ``--fix`` disabled and verified.
    """
    if not any(row.status in READY for row in rows):
        return 1
    done = fixed or set()
    for row in rows:
        if row.status in UNFIXABLE or (row.status == "not_installed" and row.name not in done):
            return 1
    return 1 if fix_failed else 0
