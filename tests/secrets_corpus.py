"""A corpus of fake credentials, generated to each vendor's published format (never real keys).

Each family's values follow its issuer's documented shape (prefix, alphabet, length, and the
CRC32 tail GitHub and npm append); each value is then rendered the ways code commits it:
Python, ``.env``, YAML, JSON, split across a string concatenation, TOML, INI, plus the
family's own config files (``.npmrc``, ``.pypirc``, ``.netrc``, Docker ``config.json``,
kubeconfig). Used by tests/unit/secrets and benchmarks/bench_secrets.py.
"""

from __future__ import annotations

import base64
import binascii
import json
import random
import re
import string
from collections.abc import Callable
from dataclasses import dataclass

B62 = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = string.ascii_letters + string.digits + "+/"
B64URL = string.ascii_letters + string.digits + "-_"


@dataclass(frozen=True)
class Case:
    """One rendered credential: the file it sits in, its lines, and what must not survive."""

    family: str
    rendering: str
    path: str
    lines: tuple[str, ...]
    #: Substrings that must be gone after redaction (the value, or each split fragment).
    secrets: tuple[str, ...]


def _pick(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _base62(number: int, width: int) -> str:
    digits = string.digits + string.ascii_uppercase + string.ascii_lowercase
    out = ""
    while number:
        number, rem = divmod(number, 62)
        out = digits[rem] + out
    return out.rjust(width, "0")


def _crc_token(rng: random.Random, prefix: str) -> str:
    """GitHub's and npm's format: 30 random base62 characters and a 6-character CRC32."""
    body = _pick(rng, B62, 30)
    return prefix + body + _base62(binascii.crc32(body.encode()), 6)


def _pem(rng: random.Random, label: str) -> list[str]:
    body = base64.b64encode(rng.randbytes(48 * 6)).decode()
    return ([f"-----BEGIN {label}-----"] + [body[i:i + 64] for i in range(0, len(body), 64)]
            + [f"-----END {label}-----"])


def _jwt(rng: random.Random) -> str:
    def part(obj: object) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")
    return (part({"alg": "HS256", "typ": "JWT"}) + "." + part({"sub": _pick(rng, HEX, 12),
            "iat": rng.randint(1_600_000_000, 1_700_000_000)}) + "." + _pick(rng, B64URL, 43))


def _password(rng: random.Random) -> str:
    return _pick(rng, string.ascii_letters, 5) + _pick(rng, string.digits, 3) + rng.choice(
        "!@#%^*-_") + _pick(rng, B62, 4)


#: family -> (variable name, value makers). Names are neutral for vendor formats, so the
#: format itself must be recognised; the generic families use secret-like names.
FAMILIES: dict[str, tuple[str, tuple[Callable[[random.Random], str], ...]]] = {
    "github": ("github_creds_value", (
        lambda r: _crc_token(r, "ghp_"), lambda r: _crc_token(r, "gho_"),
        lambda r: "github_pat_11" + _pick(r, B62.upper(), 20) + "_" + _pick(r, B62, 59))),
    "gitlab": ("gitlab_value", (
        lambda r: "glpat-" + _pick(r, B62 + "-_", 20), lambda r: "glrt-" + _pick(r, B62, 20),
        lambda r: "gldt-" + _pick(r, B62, 20))),
    "google": ("maps_value", (lambda r: "AIza" + _pick(r, B62 + "-_", 35),
                              lambda r: "GOCSPX-" + _pick(r, B62 + "-_", 28))),
    "aws": ("aws_value", (lambda r: "AKIA" + _pick(r, string.ascii_uppercase + "234567", 16),
                          lambda r: "ASIA" + _pick(r, string.ascii_uppercase + "234567", 16))),
    "aws-secret": ("aws_secret_access_key", (lambda r: _pick(r, B64, 40),)),
    "aws-session": ("aws_session_token", (lambda r: "IQoJb3JpZ2luX2Vj" + _pick(r, B64, 300),)),
    "slack": ("slack_value", (
        lambda r: f"xoxb-{r.randint(10**11, 10**12)}-{r.randint(10**11, 10**12)}-"
        + _pick(r, B62, 24),
        lambda r: f"xapp-1-A{_pick(r, B62.upper(), 10)}-{r.randint(10**12, 10**13)}-"
        + _pick(r, HEX, 64),
        lambda r: "https://hooks.slack.com/services/T" + _pick(r, B62.upper(), 8) + "/B"
        + _pick(r, B62.upper(), 10) + "/" + _pick(r, B62, 24))),
    "stripe": ("stripe_value", (lambda r: "sk_live_" + _pick(r, B62, 99),
                                lambda r: "rk_test_" + _pick(r, B62, 24),
                                lambda r: "whsec_" + _pick(r, B62, 32))),
    "openai": ("openai_value", (
        lambda r: "sk-proj-" + _pick(r, B64URL, 156),
        lambda r: "sk-" + _pick(r, B62, 20) + "T3BlbkFJ" + _pick(r, B62, 20))),
    "anthropic": ("claude_value", (
        lambda r: "sk-ant-api03-" + _pick(r, B64URL, 93) + "AA",)),
    "npm": ("npm_value", (lambda r: _crc_token(r, "npm_"),)),
    "pypi": ("pypi_value", (lambda r: "pypi-AgEIcHlwaS5vcmc" + _pick(r, B64URL, 150),)),
    "jwt": ("session_value", (_jwt,)),
    "azure": ("azure_value", (
        lambda r: "DefaultEndpointsProtocol=https;AccountName=demo;AccountKey="
        + _pick(r, B64, 86) + "==;EndpointSuffix=core.windows.net",
        lambda r: _pick(r, B62, 3) + str(r.randint(0, 9)) + "Q~" + _pick(r, B62 + "_~.-", 34))),
    "twilio": ("twilio_value", (lambda r: "SK" + _pick(r, HEX, 32),)),
    "sendgrid": ("sendgrid_value", (
        lambda r: "SG." + _pick(r, B64URL, 22) + "." + _pick(r, B64URL, 43),)),
    "database-url": ("database_url", (
        lambda r: f"postgres://app:{_password(r)}@db.internal:5432/app",
        lambda r: f"mongodb+srv://svc:{_password(r)}@cluster0.mongodb.net/x",
        lambda r: f"redis://:{_password(r)}@cache:6379/0",
        lambda r: f"Server=db;Database=app;User Id=sa;Password={_password(r)};")),
    "basic-auth-url": ("mirror_url", (
        lambda r: f"https://deploy:{_password(r)}@git.internal/org/repo.git",)),
    "password": ("db_password", (_password,)),
    "secret": ("client_secret", (lambda r: _pick(r, B62, 32),)),
    "api-key": ("api_key", (lambda r: _pick(r, HEX, 32), lambda r: _pick(r, B62, 40))),
    "token": ("auth_token", (lambda r: _pick(r, B64URL, 40),)),
    "high-entropy": ("signing_key", (lambda r: _pick(r, B64, 44), lambda r: _pick(r, HEX, 64))),
    "other-vendors": ("vendor_value", (
        lambda r: "key-" + _pick(r, HEX, 32), lambda r: _pick(r, HEX, 32) + "-us14",
        lambda r: "shpat_" + _pick(r, HEX, 32), lambda r: "dop_v1_" + _pick(r, HEX, 64),
        lambda r: f"{r.randint(10**8, 10**9)}:AA" + _pick(r, B64URL, 33),
        lambda r: "sq0atp-" + _pick(r, B64URL, 22), lambda r: "hvs." + _pick(r, B64URL, 90),
        lambda r: "dapi" + _pick(r, HEX, 32), lambda r: "hf_" + _pick(r, string.ascii_letters, 34),
        lambda r: "lin_api_" + _pick(r, B62, 40),
        lambda r: "PMAK-" + _pick(r, HEX, 24) + "-" + _pick(r, HEX, 34),
        lambda r: "pul-" + _pick(r, HEX, 40), lambda r: "NRAK-" + _pick(r, B62.upper(), 27),
        lambda r: "sntryu_" + _pick(r, HEX, 64),
        lambda r: "dp.pt." + _pick(r, B62, 43), lambda r: "LTAI" + _pick(r, B62, 20),
        lambda r: "glsa_" + _pick(r, B62, 32) + "_" + _pick(r, HEX, 8))),
    # Held out until now: vendor formats and values with no telling name beside them.
    "discord": ("bot_value", (
        lambda r: "M" + _pick(r, B62, 25) + "." + _pick(r, B64URL, 6) + "."
        + _pick(r, B64URL, 38),
        lambda r: "N" + _pick(r, B62, 23) + "." + _pick(r, B64URL, 6) + "."
        + _pick(r, B64URL, 27))),
    "unnamed-entropy": ("setting_value", (
        lambda r: _pick(r, B62, 32), lambda r: _pick(r, B62, 24),
        lambda r: base64.b64encode(r.randbytes(33)).decode(),
        lambda r: _pick(r, B64URL, 40))),
    "jdbc": ("jdbc_url", (
        lambda r: f"jdbc:postgresql://db:5432/app?user=app&password={_password(r)}",
        lambda r: f"jdbc:mysql://db:3306/app?useSSL=true&user=app&password={_password(r)}",
        lambda r: f"jdbc:sqlserver://db:1433;databaseName=app;user=sa;password={_password(r)};",
        lambda r: f"jdbc:oracle:thin:scott/{_password(r)}@db:1521:orcl",
        lambda r: f"Driver={{ODBC Driver 18}};Server=db;Uid=sa;Pwd={_password(r)};")),
    "encoded-env": ("bootstrap_data", (
        lambda r: base64.b64encode(f"DEBUG=0\nDB_PASSWORD={_password(r)}\n".encode())
        .decode(),
        lambda r: base64.b64encode(("STRIPE=sk_live_" + _pick(r, B62, 40) + "\n").encode())
        .decode())),
}
#: Passwords on shell command lines, ``.pgpass`` lines: (rendering, path, line template).
COMMAND_LINES = (
    ("curl", "scripts/deploy.sh", "curl -fsS -u deploy:{} https://ci.internal/api"),
    ("curl", ".github/workflows/ci.yml", "        run: curl --user 'ci:{}' https://x.internal"),
    ("docker-login", "scripts/deploy.sh", "docker login -u bot -p {} registry.internal"),
    ("docker-login", "Makefile", "\tdocker login --password={} registry.internal"),
    ("sshpass", "scripts/sync.sh", "sshpass -p '{}' rsync -a build/ web:/srv"),
    ("mysql", "scripts/backup.sh", "mysqldump -u root -p{} app > dump.sql"),
    ("mysql", "README.md", "    mysql --password={} -h db app"),
    (".pgpass", ".pgpass", "db.internal:5432:app:svc:{}"),
    (".pgpass", "deploy/pgpass", "*:5433:*:replicator:{}"),
)
KEY_LABELS = ("RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY",
              "PGP PRIVATE KEY BLOCK")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


#: The sensitive part of a value that also carries harmless text (a URL's password).
_SENSITIVE = re.compile(r"://[^:@/]*:(?P<s>[^@]+)@|(?i:password|pwd)=(?P<p>[^;&]+)"
                        r"|AccountKey=(?P<k>[^;]+)|/services/(?P<w>\S+)|thin:[^/]+/(?P<o>[^@]+)@")


def _sensitive(value: str) -> tuple[int, int]:
    m = _SENSITIVE.search(value)
    if m is None:
        return 0, len(value)
    group = next(g for g in ("s", "p", "k", "w", "o") if m.group(g) is not None)
    return m.start(group), m.end(group)


def _single_line(family: str, name: str, value: str, rng: random.Random) -> list[Case]:
    cut = max(2, len(value) // 2)
    left, right = value[:cut], value[cut:]
    start, end = _sensitive(value)
    secret = value[start:end]
    # Split across the concatenation, what must go is the sensitive part of each piece.
    pieces = (value[start:min(end, cut)], value[max(start, cut):end])
    fragments = tuple(f for f in pieces if len(f) >= 4)

    def case(rendering: str, path: str, line: str, secrets: tuple[str, ...] = (secret,)) -> Case:
        return Case(family, rendering, path, (line,), secrets)

    cases = [
        case("python", "app/settings.py", f'{name} = "{value}"'),
        case(".env", ".env", f"{name.upper()}={value}"),
        case("yaml", "config/app.yaml", f"{name.replace('_', '-')}: {value}"),
        case("json", "config/app.json", f'  "{_camel(name)}": "{value}",'),
        case("split", "app/split.py", f'{name} = "{left}" + "{right}"', fragments),
        case("toml", "config/app.toml", f'{name} = "{value}"'),
        case("ini", "config/app.ini", f"{name} = {value}"),
    ]
    if family == "npm":
        cases.append(case(".npmrc", ".npmrc", f"//registry.npmjs.org/:_authToken={value}"))
    if family == "pypi":
        cases.append(case(".pypirc", ".pypirc", f"password = {value}"))
    if family == "password":
        cases.append(case(".netrc", ".netrc", f"machine git.internal login ci password {value}"))
        auth = base64.b64encode(f"ci:{value}".encode()).decode()
        cases.append(case("docker-config", ".docker/config.json", f'      "auth": "{auth}"',
                          (auth,)))
    if family == "jwt":
        cases.append(case("kubeconfig", ".kube/config", f"    token: {value}"))
    del rng
    return cases


def _key_cases(rng: random.Random) -> list[Case]:
    cases = []
    for label in KEY_LABELS:
        lines = _pem(rng, label)
        body = tuple(lines[1:-1])
        cases.append(Case("private-key", "pem", "keys/id.pem", tuple(lines), body))
        cases.append(Case("private-key", "python", "app/keys.py",
                          (f'KEY = """{lines[0]}', *lines[1:-1], f'{lines[-1]}"""'), body))
        cases.append(Case("private-key", "yaml", "config/keys.yaml",
                          ("signing: |", *(f"  {line}" for line in lines)), body))
        escaped = "\\n".join(lines) + "\\n"
        cases.append(Case("private-key", "json", "config/sa.json",
                          (f'  "private_key": "{escaped}",',), body))
        cases.append(Case("private-key", ".env", ".env", (f'PRIVATE_KEY="{escaped}"',), body))
        wrapped = base64.b64encode("\n".join(lines).encode()).decode()
        cases.append(Case("private-key", "kubeconfig", ".kube/config",
                          (f"    client-key-data: {wrapped}",), (wrapped,)))
    public = base64.b64encode(rng.randbytes(51)).decode()
    private = base64.b64encode(rng.randbytes(96)).decode()
    putty = ("PuTTY-User-Key-File-3: ssh-ed25519", "Encryption: none", "Comment: deploy",
             "Public-Lines: 2", public[:64], public[64:], "Private-Lines: 2", private[:64],
             private[64:], "Private-MAC: " + _pick(rng, HEX, 64))
    cases.append(Case("private-key", "putty", "keys/deploy.ppk", putty,
                      (private[:64], private[64:])))
    return cases


def build_corpus(seed: int = 14) -> list[Case]:
    """Every case, deterministically from ``seed``."""
    rng = random.Random(seed)
    cases: list[Case] = []
    for family, (name, makers) in FAMILIES.items():
        for make in makers:
            cases += _single_line(family, name, make(rng), rng)
    for rendering, path, template in COMMAND_LINES:
        value = _password(rng)
        family = "pgpass" if path.endswith("pgpass") else "shell-command"
        cases.append(Case(family, rendering, path,
                          (template.format(value),), (value,)))
    return cases + _key_cases(rng)


def corpus_files(cases: list[Case]) -> dict[str, list[tuple[Case, int]]]:
    """Cases grouped into files: path -> [(case, first line number)], a blank line apart."""
    files: dict[str, list[tuple[Case, int]]] = {}
    sizes: dict[str, int] = {}
    for case in cases:
        start = sizes.get(case.path, 0) + 1
        files.setdefault(case.path, []).append((case, start))
        sizes[case.path] = start + len(case.lines)
    return files


def file_text(entries: list[tuple[Case, int]]) -> str:
    return "".join("\n".join(case.lines) + "\n\n" for case, _ in entries)


def corpus_diff(cases: list[Case]) -> str:
    """A git diff adding every corpus file."""
    out = []
    for path, entries in corpus_files(cases).items():
        lines = file_text(entries).splitlines()
        out.append(f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n"
                   f"+++ b/{path}\n@@ -0,0 +1,{len(lines)} @@\n"
                   + "".join(f"+{line}\n" for line in lines))
    return "".join(out)
