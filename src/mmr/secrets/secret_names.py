"""Does a name label a secret? Does a command string embed one?

Judged by key *names* (``OPENAI_API_KEY=…``, ``--token …``, ``Authorization: …``), never by
the look of a value: ``sk-abc…`` alone is not recognised. :mod:`mmr.secrets.redact` builds
the redacted views on these predicates.
"""

from __future__ import annotations

import itertools
import re

_SECRET_PARTS = frozenset({
    "auth", "authorization", "cookie", "cred", "credential", "credentials", "creds", "apikey",
    "pass", "passphrase", "passwd", "password", "secret", "session", "sid", "signature", "token",
})
#: With ``key``, these parts make a name secret (``api_key``, ``privateKey``); alone, ``key`` is.
_KEY_CONTEXT_PARTS = frozenset({"api", "openai", "private", "access"})
#: ``api_key_env`` holds an env-var *name*; exempt where it is a channel's own field.
_ENV_NAME_KEY = "api_key_env"
_PART_SPLIT = re.compile(r"[_.-]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SURROUNDING_QUOTE = re.compile(r"^['\"]|['\"]$")

#: Flag names whose words look secret but whose values are not.
_SAFE_COMMAND_KEYS = frozenset({"auth-type", "max-tokens", "session-dir", "token-limit",
                                "token-usage"})
_KEY_VALUE = re.compile(r"""(?:^|[\s'"?&{,=])"?(-{0,2}[A-Za-z0-9_.-]+)"?\s*[:=]""")
_NESTED_KEY_VALUE = re.compile(r"""[=:]"?([A-Za-z0-9_.-]+)"?\s*[:=]""")
_TOKEN = re.compile(r""""[^"]*"|'[^']*'|\S+""")
_PAIR_OPTIONS = frozenset({"--header", "-H", "--env", "-e"})


def name_parts(name: str) -> list[str]:
    """The lower-cased words of a key name, split at ``_ . -`` runs and camelCase humps."""
    return [part.lower() for part in _PART_SPLIT.split(name)]


def is_secret_key(name: str, *, exempt_env_name: bool = True) -> bool:
    """True when a key name looks like it labels a secret value.

    ``exempt_env_name`` keeps ``api_key_env`` non-secret; callers lift it inside ``env``,
    ``headers`` and nested structures, where that key would carry a real value.
    """
    clean = _SURROUNDING_QUOTE.sub("", name)
    if exempt_env_name and clean.lower() == _ENV_NAME_KEY:
        return False
    parts = name_parts(clean)
    if any(part in _SECRET_PARTS for part in parts):
        return True
    if "key" not in parts:
        return False
    return len(parts) == 1 or any(part in _KEY_CONTEXT_PARTS for part in parts)


def is_command_secret_key(name: str) -> bool:
    """True when a flag or variable name inside a command string labels a secret.

    Env-var pointer flags (``--api-key-env``) and a few harmless flags whose words look
    secret (``--token-limit``) are not.
    """
    normalized = name.lstrip("-").lower()
    if normalized.endswith(("-env", "_env")) or normalized in _SAFE_COMMAND_KEYS:
        return False
    return is_secret_key(normalized, exempt_env_name=False)


def _strip_quotes(token: str) -> str:
    return _SURROUNDING_QUOTE.sub("", token)


def contains_inline_secret(command: str) -> bool:
    """True when a command-like string embeds a secret."""
    for pattern in (_KEY_VALUE, _NESTED_KEY_VALUE):
        if any(is_command_secret_key(m.group(1)) for m in pattern.finditer(command)):
            return True
    tokens = [_strip_quotes(t) for t in _TOKEN.findall(command)]
    for token, following in itertools.pairwise(tokens):
        if token in _PAIR_OPTIONS and contains_inline_secret(following):
            return True
        if (not token.startswith("-") or "=" in token or ":" in token
                or following.startswith("-")):
            continue
        if is_command_secret_key(token):
            return True
    return False
