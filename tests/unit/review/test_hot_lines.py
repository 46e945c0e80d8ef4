"""Plain-text redaction scans only the lines that can hold a credential, and its result is
byte for byte what the full line-by-line scan gives: on every credential of the corpus, in
files mixed with ordinary code, with CRLF and odd line breaks, and on third-party source."""

from __future__ import annotations

import random
import sysconfig
from pathlib import Path

import pytest

from mmr.secrets.credentials import redact_credentials
from mmr.secrets.line_redactor import LineRedactor
from tests.secrets_corpus import build_corpus, corpus_files, file_text


def every_line(text: str) -> tuple[str, int]:
    """The full scan: every line through the redactor."""
    lines = text.splitlines(keepends=True)
    bodies = [line.rstrip("\r\n") for line in lines]
    redactor = LineRedactor()
    for body in bodies:
        redactor.line(body)
    redactor.finish()
    return "".join(content + line[len(body):] for content, line, body
                   in zip(redactor.out, lines, bodies, strict=True)), len(redactor.hits)


def texts() -> list[str]:
    cases = build_corpus()
    files = [file_text(entries) for entries in corpus_files(cases).values()]
    stdlib = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))[:60]
    code = [path.read_text("utf-8", "replace") for path in stdlib]
    rng = random.Random(27)
    mixed = []
    for text in files:
        lines = (text + rng.choice(code)).split("\n")
        rng.shuffle(lines)  # credentials between, before and after code, blocks cut
        mixed.append("\n".join(lines))
    variants = [t.replace("\n", "\r\n") for t in files] + [
        t.replace("\n", "\r", 2) for t in files] + ["\n".join(files) + "\u2028x = 1\n"]
    # The words are looked for in the UTF-8 bytes: multi-byte and undecodable characters
    # (kept as surrogates) must not move a hit to another line.
    variants += [t.replace(" ", "\u00e9\u65e5 ", 9) for t in files] + [
        (b"\xff\xfe" + t.encode().replace(b"\n", b" \xc3\n")).decode("utf-8", "surrogateescape")
        for t in files]
    return files + code + mixed + variants


@pytest.mark.parametrize("text", texts())
def test_redaction_is_the_full_scan(text: str) -> None:
    assert redact_credentials(text) == every_line(text)
