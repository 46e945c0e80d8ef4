"""Run a shell command on a fresh pseudo-terminal, then close the terminal under it.

    python close_terminal.py <marker> <command...>

The command runs in ``sh -c '<command>; sleep 60'`` as the session leader of a new
terminal, as in a terminal window. Once its output contains ``marker``, the terminal's
master side is closed — the window goes away: the kernel hangs up the terminal and sends
SIGHUP to the session's foreground process group. Prints everything the command wrote,
then ``SHELL-STATUS <wait status>``.

It waits for the marker itself, or for the terminal to report end of output, never for a
fixed time: on a loaded machine mmr may take long to print, and closing the terminal
before the marker would test nothing (the caller's own timeout bounds a hang).
"""

from __future__ import annotations

import os
import pty
import select
import shlex
import sys


def main(argv: list[str]) -> int:
    marker, command = argv[0].encode(), shlex.join(argv[1:])
    pid, master = pty.fork()
    if pid == 0:
        os.execvp("sh", ["sh", "-c", f"{command}; sleep 60"])  # noqa: S606 - sh is the point
    output = b""
    while marker not in output:
        select.select([master], [], [])
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    os.close(master)
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(output.decode("utf-8", "replace") + f"\nSHELL-STATUS {status}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
