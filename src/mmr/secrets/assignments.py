"""Values judged by the name they are assigned to: ``password = "…"``, ``API_KEY=…``, ``token: …``.

One scanner covers Python/JS/Go assignments, keyword arguments, ``.env``/INI/TOML/YAML/JSON
keys, ``.npmrc``/``.pypirc``/``.netrc`` lines and XML elements, in snake, camel, kebab and
env-var case. A quoted value is judged as written; a concatenation of string literals
(``"sk_live_" + "…"``) on the joined value, each literal then replaced; an unquoted value
only in a config-like file, or anywhere when it looks random (entropy over its alphabet,
as detect-secrets measures it). Placeholders, env-var references and names that describe a
secret rather than hold it (``password_file``, ``token_url``) are left alone.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import cache
from typing import NamedTuple

from mmr.secrets.secret_names import name_parts

_PASSWORD_WORDS = frozenset({"password", "passwd", "pwd", "passphrase", "secret", "pass",
                             "contrasena", "passwort"})
_TOKEN_WORDS = frozenset({
    "token", "apikey", "auth", "authtoken", "accesstoken", "credential", "credentials",
    "creds", "privatekey", "secretkey", "accesskey", "clientsecret", "sessiontoken",
    "apitoken", "bearer", "authkey",
})
#: With ``key``, these make a name secret (``api_key``, ``privateKey``, ``AccessKey``).
_KEY_CONTEXT = frozenset({"api", "access", "private", "secret", "client", "auth", "service",
                          "account", "master", "signing", "encryption", "app", "db",
                          "database", "priv", "license", "storage", "subscription"})
#: A last word that makes the name describe the secret rather than hold it.
_DESCRIPTIVE = frozenset({
    "name", "names", "file", "files", "path", "env", "var", "field", "label", "prompt",
    "placeholder", "hint", "help", "message", "msg", "text", "title", "pattern", "regex", "re",
    "url", "uri", "dir", "type", "types", "kind", "mode", "method", "scheme", "header",
    "headers", "prefix", "len", "length", "count", "class", "cls", "required", "enabled",
    "expires", "expiry", "ttl", "timeout", "size", "format", "style", "index", "idx", "pos",
    "version", "endpoint", "host", "port", "user", "username", "login", "email", "error",
    "exception", "callback", "handler", "provider", "manager", "store", "cache", "backend",
    "policy", "validator", "list", "map", "dict", "kwargs", "args", "param", "params",
    "attr", "column", "table", "schema", "model", "form", "widget", "input", "view", "id",
    "ids", "hash", "digest", "location", "source", "command", "cmd", "id_env", "set",
    "flag", "option", "options", "config", "settings", "changed", "reset", "check",
})
_FIRST_WORDS_NOT_SECRET = frozenset({"max", "min", "num", "is", "has", "use", "no", "allow",
                                     "require", "requires", "should", "get", "set", "with"})
_PLACEHOLDER_STARTS = ("$", "{{", "%(", "<", "os.environ", "process.env", "env(", "ENV[",
                       "!", "*", "&", "~/", "./", "../", "@")
_PLACEHOLDERS = frozenset({"none", "null", "nil", "true", "false", "undefined", "changeme",
                           "password", "secret", "token", "xxx", "example", "redacted",
                           "your-api-key", "your_api_key", "your-token", "yourpassword"})
_CONFIG_SUFFIXES = (".env", ".ini", ".cfg", ".conf", ".properties", ".yaml", ".yml", ".toml",
                    ".npmrc", ".pypirc", ".netrc", "_netrc", ".envrc", ".json", ".tfvars",
                    ".sh", ".bash", ".zsh", "dockerfile", ".config", ".kubeconfig", ".env.example")


@cache
def _values() -> tuple[re.Pattern[str], ...]:
    """(marker, identifier-like, AWS secret, bare token, secret words), compiled on use."""
    return (re.compile(r"<redacted(?::[a-z0-9-]+)?>"),
            re.compile(r"[A-Za-z0-9]*[_.][A-Za-z0-9_.]*"), re.compile(r"[A-Za-z0-9/+=]{40}"),
            # An unquoted value in code: token characters only, with a digit
            # (``USE_DEFAULT`` and other constants have none).
            re.compile(r"(?=[^0-9]*[0-9])[A-Za-z0-9+/=_~-]+"),
            re.compile(r"password|passwd|secret|token|key|auth|credential", re.I))


class ValueSpan(NamedTuple):
    start: int
    end: int
    name: str


_QUOTED = r"""(?:"[^"\n]{0,1000}"|'[^'\n]{0,1000}'|`[^`\n]{0,1000}`)"""
_NAME = r"(?<![A-Za-z0-9_.$-])(?P<name>[A-Za-z_][A-Za-z0-9_.-]*+)"


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    assign = re.compile(
        _NAME + r"""["'\]]{0,2}[ \t]*(?::[ \t]*[A-Za-z_][\w.\[\]|, ]{0,60}?[ \t]*(?==))?"""
        r"""(?P<op>:=|=>|=(?!=)|:(?![:/\\]))[ \t]*"""
        r"""(?P<value>\(?[ \t]*""" + _QUOTED + r"""(?:[ \t]*(?:\+|\.|\|\|)?[ \t]*""" + _QUOTED
        + r""")*+|[^\s'"`,;&()<>{}\[\]=]++={0,2})""")
    netrc = re.compile(r"(?:^|\s)(?:password|passwd|secret)\s+(?P<value>[^\s'\"]+)")
    xml = re.compile(r"<(?P<name>[A-Za-z_][\w.-]{0,60})>(?P<value>[^<\s]{6,1000})</")
    return assign, netrc, xml


@cache
def _literal() -> re.Pattern[str]:
    return re.compile(_QUOTED)


def is_secret_name(name: str) -> bool:
    parts = [p for p in name_parts(name.strip("_.-")) if p]
    if not parts or parts[-1] in _DESCRIPTIVE or parts[0] in _FIRST_WORDS_NOT_SECRET:
        return False
    joined = "".join(parts)
    if any(p in _PASSWORD_WORDS or p in _TOKEN_WORDS for p in parts) or joined in _TOKEN_WORDS:
        return True
    return "key" in parts and any(p in _KEY_CONTEXT for p in parts)


def _is_password_name(name: str) -> bool:
    return any(p in _PASSWORD_WORDS for p in name_parts(name))


def shannon_entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def looks_random(value: str, minimum: int = 8) -> bool:
    """A random-looking token: long enough, mixed characters, entropy over its alphabet."""
    if len(value) < minimum or any(c.isspace() for c in value):
        return False
    hexish = all(c in "0123456789abcdefABCDEF" for c in value)
    threshold = 2.8 if hexish else 3.0
    mixed = (any(c.isdigit() for c in value) + any(c.islower() for c in value)
             + any(c.isupper() for c in value) + (not value.isalnum()))
    return mixed >= 2 and shannon_entropy(value) >= threshold


def is_secret_value(name: str, value: str, *, config_file: bool) -> bool:
    """Whether ``value`` (unquoted, joined) assigned to ``name`` is a credential."""
    stripped = value.strip()
    if (len(stripped) < 6 or stripped.startswith(_PLACEHOLDER_STARTS) or "${" in stripped
            or "{{" in stripped or "%s" in stripped or "{}" in stripped or "{0}" in stripped
            or _values()[0].search(stripped) or stripped.lower() in _PLACEHOLDERS
            or len(set(stripped)) <= 2 or "://" in stripped):
        return False
    if _values()[1].fullmatch(stripped) and _values()[4].search(stripped):
        return False  # a name (``API_TOKEN``, ``password_hash``), not a value
    if _is_password_name(name):
        words = stripped.split()
        if len(words) > 3 or (stripped[-1] in ":.?!" and len(words) > 1):
            return False
        return config_file or len(stripped) >= 8 or looks_random(stripped, 6)
    return looks_random(stripped)


def is_config_file(path: str | None) -> bool:
    if path is None:
        return False
    lower = path.lower().rsplit("/", 1)[-1]
    return lower.endswith(_CONFIG_SUFFIXES) or lower.startswith((".env", "config", "credentials"))


def is_pgpass_file(path: str | None) -> bool:
    """A ``.pgpass``-like file: every line is judged by its shape."""
    return (path or "").endswith("pgpass")


def path_kind(path: str | None) -> str:
    """All the redactor asks of a file's path (:func:`is_config_file`,
    :func:`is_pgpass_file`) as one word: ``code``, ``config``, ``pgpass`` or
    ``config-pgpass``. Redacted content is the same for every path of one kind."""
    kinds = [kind for kind, holds in (("config", is_config_file(path)),
                                      ("pgpass", is_pgpass_file(path))) if holds]
    return "-".join(kinds) or "code"


def assignment_spans(text: str, path: str | None) -> list[ValueSpan]:
    """Spans of values assigned to secret-like names in one line."""
    config = is_config_file(path)
    assign, netrc, xml = _patterns()
    spans: list[ValueSpan] = []
    position = 0
    while (m := assign.search(text, position)) is not None:
        name, value = m.group("name"), m.group("value")
        secret = is_secret_name(name)
        position = max(m.end(), m.start() + 1) if secret else m.end("op")
        if not secret:
            continue
        start = m.start("value")
        if value.lstrip("( \t")[:1] in "\"'`":
            pieces = [(start + p.start() + 1, start + p.end() - 1)
                      for p in _literal().finditer(value)]
            joined = "".join(text[a:b] for a, b in pieces)
            if is_secret_value(name, joined, config_file=True):
                spans += [ValueSpan(a, b, name) for a, b in pieces if b > a]
            continue
        if name_kind(name) == "aws-secret-key" and _values()[2].fullmatch(value):
            spans.append(ValueSpan(start, m.end("value"), name))
            continue
        # ``Server=…;Password=…;`` is a connection string whatever file holds it.
        listed = config or ";" in (text[m.start() - 1:m.start()], text[m.end():m.end() + 1])
        bare = _values()[3].fullmatch(value) is not None and looks_random(value, 16)
        if (listed or bare) and is_secret_value(name, value, config_file=listed):
            spans.append(ValueSpan(start, m.end("value"), name))
    if config or "machine" in text:
        spans += [ValueSpan(m.start("value"), m.end("value"), "password")
                  for m in netrc.finditer(text)
                  if is_secret_value("password", m.group("value"), config_file=True)]
    for m in xml.finditer(text):
        if is_secret_name(m.group("name")) and is_secret_value(
                m.group("name"), m.group("value"), config_file=True):
            spans.append(ValueSpan(m.start("value"), m.end("value"), m.group("name")))
    return spans


def name_kind(name: str) -> str:
    """The kind a value assigned to ``name`` is reported as."""
    parts = name_parts(name)
    joined = "".join(parts)
    if "aws" in parts or "secretaccesskey" in joined or "awssecret" in joined:
        if "secret" in joined:
            return "aws-secret-key"
        if "session" in parts or "security" in parts:
            return "aws-session-token"
    return "password" if _is_password_name(name) else "secret-value"


def concatenations(text: str) -> list[tuple[str, list[tuple[int, int]]]]:
    """Every run of two or more string literals joined by ``+``/``.``/juxtaposition:
    the joined value and each literal's content span."""
    out: list[tuple[str, list[tuple[int, int]]]] = []
    run: list[tuple[int, int]] = []
    last_end = -1
    for m in _literal().finditer(text):
        between = text[last_end:m.start()].strip() if last_end >= 0 else None
        if between is not None and between in ("+", ".", "||", ""):
            run.append((m.start() + 1, m.end() - 1))
        else:
            if len(run) > 1:
                out.append(("".join(text[a:b] for a, b in run), run))
            run = [(m.start() + 1, m.end() - 1)]
        last_end = m.end()
    if len(run) > 1:
        out.append(("".join(text[a:b] for a, b in run), run))
    return out
