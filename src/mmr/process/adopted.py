"""A speculative child seen through anyio's ``Process`` surface, for ``run_process``.

:func:`mmr.process.subprocess.run_process` supervises an adopted child with the same code
as one it spawned: the same readers, deadline, kill escalation and reaping. This adapter
gives the ``subprocess.Popen`` of :mod:`mmr.process.speculative` what that code uses —
``pid``, ``returncode``, non-blocking ``stdout``/``stderr`` receive streams, ``wait`` and
``aclose``. Its stdin is ``None``: the early start already feeds it.
"""

from __future__ import annotations

import os
import signal
from contextlib import suppress
from typing import IO

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, Process

from mmr.process.speculative import SpeculativeChild

_POLL_S = 0.02


class _PipeReader(ByteReceiveStream):
    """The read end of a child's pipe, read without blocking the event loop."""

    def __init__(self, pipe: IO[bytes]) -> None:
        self._pipe = pipe
        self._fd = pipe.fileno()
        os.set_blocking(self._fd, False)
        self._closed = False

    async def receive(self, max_bytes: int = 65536) -> bytes:
        while True:
            if self._closed:
                raise anyio.ClosedResourceError
            try:
                data = os.read(self._fd, max_bytes)
            except BlockingIOError:
                await anyio.wait_readable(self._fd)
                continue
            if not data:
                raise anyio.EndOfStream
            return data

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        anyio.notify_closing(self._fd)
        with suppress(OSError):
            self._pipe.close()


class AdoptedProcess(Process):
    """anyio's ``Process`` over a :class:`SpeculativeChild`."""

    def __init__(self, child: SpeculativeChild) -> None:
        self._popen = child.popen
        self._stdout = None if child.popen.stdout is None else _PipeReader(child.popen.stdout)
        self._stderr = None if child.popen.stderr is None else _PipeReader(child.popen.stderr)
        self._pidfd: int | None = None
        with suppress(AttributeError, OSError):
            self._pidfd = os.pidfd_open(child.popen.pid)

    async def wait(self) -> int:
        while self._popen.poll() is None:
            if self._pidfd is not None:
                await anyio.wait_readable(self._pidfd)
            else:
                await anyio.sleep(_POLL_S)
        return self._popen.returncode

    async def aclose(self) -> None:
        with anyio.CancelScope(shield=True) as scope:
            for stream in (self._stdout, self._stderr):
                if stream is not None:
                    await stream.aclose()
            scope.shield = False
            try:
                await self.wait()
            except BaseException:
                scope.shield = True
                self.kill()
                self._popen.wait()
                raise
            finally:
                self._close_pidfd()

    def _close_pidfd(self) -> None:
        if self._pidfd is not None:
            anyio.notify_closing(self._pidfd)
            with suppress(OSError):
                os.close(self._pidfd)
            self._pidfd = None

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def send_signal(self, sig: signal.Signals) -> None:
        with suppress(ProcessLookupError):
            self._popen.send_signal(sig)

    @property
    def pid(self) -> int:
        return self._popen.pid

    @property
    def returncode(self) -> int | None:
        return self._popen.poll()

    @property
    def stdin(self) -> ByteSendStream | None:
        return None

    @property
    def stdout(self) -> ByteReceiveStream | None:
        return self._stdout

    @property
    def stderr(self) -> ByteReceiveStream | None:
        return self._stderr
