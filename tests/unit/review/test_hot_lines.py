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


def every_line(text: str, path: str | None = None) -> tuple[str, int]:
    """The full scan: every line through the redactor (as the diff's lines at ``path``)."""
    lines = text.splitlines(keepends=True)
    bodies = [line.rstrip("\r\n") for line in lines]
    redactor = LineRedactor()
    for body in bodies:
        redactor.line(body, path=path)
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


#: A code file, config files of each kind the redactor knows, pgpass files (one also config).
PATHS = ("src/app.py", "deploy/settings.yaml", "app.conf", ".env.example", "db.pgpass",
         "config.pgpass")


@pytest.mark.parametrize("path", PATHS)
def test_redaction_of_a_file_is_the_full_scan_at_its_path(path: str) -> None:
    """Where a file lies changes what counts (an unquoted ``password: hunter22`` in a
    config file): only the lines the full scan at that path leaves alone may be skipped."""
    lines = [line for text in texts()[:400] for line in text.splitlines()]
    lines += ["password hunter22x", "db_password: Sup3rS3cretPw", "host:6543:db:me:Zq9vL2xK",
              "api_token = abcd==", "secret=(\"x1y2z3w4\")",
              # The shortest value judged outside a config file: six characters, listed.
              "x;api_secret=abcd==;", "x;api_secret=abc;",
              # Credentials known by shape alone, each at the least that shape needs: a
              # random value's 16-character part, a 32-character base64 blob hiding a
              # ``.env`` line, a 59-character Discord token, two literals joined.
              'x = "Ab3dEf9hIj2kLm4n.Op5qRs7tUv"', "data cGFzc3dvcmQ9WnE5dkwyeEtwNFR3OEFi end",
              "run(MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs)",
              'abcdefghij_klmnopqrstuvw("Ab3dEf9hIjKl" + "2nOp5rStUv8xYz")',
              # A password on a command line; literals joined beside a URL (its ``://``
              # a rule's word, so the joined value is judged).
              "run mariadb -pS3cr3tPass db", 'f("Ab3dEf9hIjKl" "2nOp5rStUv8xYz", "ftp://x")',
              # An XML element named for a secret; a certificate's END line giving back
              # the full-width lines taken as a key's body a line before.
              "<db_password>Sup3rS3cret9</db_password>", "x = 1",
              "grcO7n8aUDm+8H7CNH8GbtCPXcdRJEfjQEMAAmtuVFWUoGVoXWTEmAu41FRKhyGp",
              "mgGtIZ61nPahXvbxWh2DC7fOCda7wATnF1xkPH3ssLWA7De8lxLdLmquuUuujS+f",
              "Zm9v", "-----END CERTIFICATE-----"]
    text = "\n".join(lines) + "\n"
    assert redact_credentials(text, path) == every_line(text, path)
    assert redact_credentials(text, path) != redact_credentials(text) or path == PATHS[0]
