"""The dispatch modules are imported by a thread while the review's set-up runs (issue 19)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

CHILD = textwrap.dedent("""
    import sys, threading
    import mmr.review.pipeline as pipeline
    assert "mmr.dispatch.runner" not in sys.modules and "asyncio" not in sys.modules
    {setup}
    pipeline.prefetch_dispatch_modules()
    for thread in threading.enumerate():
        if thread.name == "mmr-prefetch":
            thread.join(60)
    print(" ".join(sorted(m for m in sys.modules if m in {{"asyncio", "mmr.dispatch.runner",
                                                           "mmr.dispatch.versions"}})))
""")


def _run(setup: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", CHILD.format(setup=setup)],
                          capture_output=True, text=True, check=False, timeout=120)


def test_the_prefetch_thread_imports_the_dispatch_modules() -> None:
    done = _run()
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["asyncio", "mmr.dispatch.runner", "mmr.dispatch.versions"]


def test_a_failing_prefetch_import_is_silent() -> None:
    done = _run('pipeline.DISPATCH_MODULES = ("mmr.no_such_module", "asyncio")')
    assert done.returncode == 0, done.stderr
    assert done.stderr == "" and done.stdout.split() == []
