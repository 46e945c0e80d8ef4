"""``mmr config test``: install and auth state of every channel.

Channels are visited one at a time in registry order. Retired, abstract and disabled
channels are reported without running anything and never count as failures; a channel
listed in ``channels_disabled`` is ``disabled`` as well (MMR 4.0.1 probes it and
can fail the test on a channel review would never run). Everything else goes through the
review gate's own check (:func:`mmr.dispatch.auth.check_channel`).
"""

from __future__ import annotations

from typing import Any

from mmr.config.loaded import LoadedConfig
from mmr.config.selection import disabled_channels
from mmr.dispatch.auth import check_channel

#: Gate statuses → the ``auth`` word of ``config test`` and whether the CLI was found.
_NOT_RUN = {"not_installed": "skipped", "skipped": "missing_command"}


def config_test_report(loaded: LoadedConfig) -> tuple[dict[str, dict[str, Any]], bool]:
    """``({channel: {installed, auth, recovery?}}, all_ok)``; recovery text is redacted."""
    listed_off = disabled_channels(loaded.config)
    report: dict[str, dict[str, Any]] = {}
    ok = True
    for name, channel in loaded.channels.items():
        if channel.retired:
            report[name] = {"installed": False, "auth": "retired"}
        elif channel.abstract:
            report[name] = {"installed": False, "auth": "abstract"}
        elif not channel.enabled or name in listed_off:
            report[name] = {"installed": False, "auth": "disabled"}
        else:
            result = check_channel(name, channel)
            if result.status in _NOT_RUN:
                report[name] = {"installed": False, "auth": _NOT_RUN[result.status]}
            else:
                entry: dict[str, Any] = {"installed": True, "auth": result.status}
                if result.recovery:
                    entry["recovery"] = result.recovery
                report[name] = entry
            ok = ok and result.status == "ok"
    return report, ok
