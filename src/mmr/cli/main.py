"""Entry point and the single error boundary (exceptions → one line + exit code)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"]:
        # Fast path: no typer/pydantic import, so `mmr --version` starts in a few ms.
        from mmr import __version__

        sys.stdout.write(__version__ + "\n")
        return 0
    from mmr.cli.app import run

    return run(args)


if __name__ == "__main__":
    raise SystemExit(main())
