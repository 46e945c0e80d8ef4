"""The vendor token table: each credential format its issuer publishes (prefix, alphabet, length).

Every rule names lower-case keywords, one of which any match contains (gitleaks' idea): a
line is only tried against the rules whose keyword it holds, so ordinary code costs a few
substring tests. The table compiles on first use, not at import (start-up stays cheap).
Checksums (GitHub's and npm's CRC32 tail) are not required to match: a credential-shaped
string with a wrong checksum is still not sent anywhere.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from functools import cache
from typing import NamedTuple

from ahocorasick_rs import BytesAhoCorasick

#: A token must not be glued to a longer run of the same alphabet on its left.
_L = r"(?<![A-Za-z0-9_])"


class TokenRule(NamedTuple):
    kind: str
    keywords: tuple[str, ...]
    pattern: re.Pattern[str]
    #: Optional extra test of the matched text (the ``value`` group when the rule has one).
    check: Callable[[str], bool] | None = None


def _decodes_to_private_key(text: str) -> bool:
    head = text[:96]
    head = head[: len(head) - len(head) % 4]
    try:
        return b"PRIVATE KEY" in base64.b64decode(head)
    except (binascii.Error, ValueError):
        return False


#: (kind, keywords, regex); a ``value`` group, when present, is the part replaced.
_TABLE: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("github-token", ("ghp_",), r"ghp_[A-Za-z0-9]+"),
    ("github-token", ("gho_", "ghu_", "ghs_", "ghr_"), r"gh[oprsu]_[A-Za-z0-9]{36,}"),
    ("github-token", ("github_pat_",), r"github_pat_[A-Za-z0-9_]{22,}"),
    ("gitlab-token", ("glpat-",), r"glpat-[A-Za-z0-9_.-]*"),
    ("gitlab-token", ("gldt-", "glrt-", "glptt-", "glcbt-", "gloas-", "glimt-", "glft-",
                      "glsoat-", "glagent-", "gr1348941"),
     r"(?:gl(?:dt|rt|ptt|cbt|oas|imt|ft|soat|agent)-|GR1348941)[A-Za-z0-9_.-]{20,}"),
    ("aws-access-key", ("akia", "asia", "abia", "acca", "a3t"),
     r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}"),
    ("slack-token", ("xox",), r"xox[abposre]-[A-Za-z0-9-]{10,}"),
    ("slack-token", ("xapp-",), r"xapp-\d-[A-Za-z0-9-]{20,}"),
    ("slack-webhook", ("hooks.slack.com",),
     r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<value>[A-Za-z0-9+/_-]{20,})"),
    ("google-api-key", ("aiza",), r"AIza[0-9A-Za-z_-]{35}"),
    ("google-oauth-secret", ("gocspx-",), r"GOCSPX-[A-Za-z0-9_-]{28}"),
    ("google-oauth-token", ("ya29.",), r"ya29\.[A-Za-z0-9_-]{30,}"),
    ("stripe-key", ("sk_", "rk_"), _L + r"[sr]k_(?:live|test|prod)_[A-Za-z0-9]{10,247}"),
    ("stripe-key", ("whsec_",), r"whsec_[A-Za-z0-9+/=]{24,}"),
    ("anthropic-key", ("sk-ant-",), r"sk-ant-(?:api|admin|oat)\d\d-[A-Za-z0-9_-]{32,}"),
    ("openai-key", ("sk-",),
     _L + r"sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{20}T3BlbkFJ"
     r"[A-Za-z0-9]{20}|[A-Za-z0-9]{32,})"),
    ("npm-token", ("npm_",), _L + r"npm_[A-Za-z0-9]{36}"),
    ("pypi-token", ("pypi-",), r"pypi-AgE[A-Za-z0-9]{12,}[A-Za-z0-9_-]{40,}"),
    ("jwt", ("eyj",),
     _L + r"eyJ[A-Za-z0-9_-]{8,}={0,2}\.eyJ[A-Za-z0-9_-]{8,}={0,2}\.[A-Za-z0-9_-]*={0,2}"),
    ("azure-storage-key", ("accountkey=", "sharedaccesskey="),
     r"(?i:AccountKey|SharedAccessKey)=(?P<value>[A-Za-z0-9+/]{40,100}={0,2})"),
    ("azure-sas-token", ("sig=",), r"[?&]sig=(?P<value>[A-Za-z0-9%+/=]{30,})"),
    ("azure-client-secret", ("q~",),
     r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}"),
    ("twilio-key", ("sk",), _L + r"SK[0-9a-fA-F]{32}(?![A-Za-z0-9])"),
    ("sendgrid-key", ("sg.",), r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
    ("mailgun-key", ("key-",), _L + r"key-[0-9a-f]{32}(?![A-Za-z0-9])"),
    ("mailchimp-key", ("-us",), _L + r"[0-9a-f]{32}-us\d{1,2}(?![0-9])"),
    ("shopify-token", ("shpat_", "shpca_", "shppa_", "shpss_"),
     r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    ("digitalocean-token", ("_v1_",), r"do[opr]_v1_[a-f0-9]{64}"),
    ("telegram-bot-token", (":aa",), _L + r"\d{8,10}:AA[A-Za-z0-9_-]{33}"),
    ("square-token", ("sq0atp-", "sq0csp-", "eaaa"),
     r"(?:sq0atp-|sq0csp-|EAAA)[A-Za-z0-9_-]{22,60}"),
    ("vault-token", ("hvs.", "hvb.", "hvr."), r"hv[sbr]\.[A-Za-z0-9_-]{24,}"),
    ("terraform-token", (".atlasv1.",), r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}"),
    ("databricks-token", ("dapi",), _L + r"dapi[a-f0-9]{32}(?:-\d)?"),
    ("huggingface-token", ("hf_",), _L + r"hf_[A-Za-z]{34}(?![A-Za-z])"),
    ("linear-key", ("lin_api_",), r"lin_api_[A-Za-z0-9]{40}"),
    ("postman-key", ("pmak-",), r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    ("pulumi-token", ("pul-",), _L + r"pul-[a-f0-9]{40}"),
    ("grafana-token", ("glc_", "glsa_"),
     r"gl(?:c_[A-Za-z0-9+/]{32,400}={0,2}|sa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})"),
    ("newrelic-key", ("nrak-",), r"NRAK-[A-Z0-9]{27}"),
    ("sentry-token", ("sntrys_", "sntryu_"),
     r"sntry(?:s_eyJ[A-Za-z0-9+/=_-]{50,}|u_[a-f0-9]{64})"),
    ("age-secret-key", ("age-secret-key-1",),
     r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    ("doppler-token", ("dp.",), r"dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9_-]{40,}"),
    ("dropbox-token", ("sl.",), _L + r"sl\.[A-Za-z0-9_-]{130,}"),
    ("atlassian-token", ("atatt3",), r"ATATT3[A-Za-z0-9_=-]{180,}"),
    ("alibaba-key", ("ltai",), _L + r"LTAI[A-Za-z0-9]{20}(?![A-Za-z0-9])"),
    ("heroku-key", ("hrku-",), r"HRKU-[A-Za-z0-9_-]{60}"),
    ("discord-webhook", ("/api/webhooks/",),
     r"discord(?:app)?\.com/api/webhooks/\d+/(?P<value>[A-Za-z0-9_-]{60,})"),
    ("private-key", ("ls0tls1crudjti",), r"LS0tLS1CRUdJTi[A-Za-z0-9+/=]{20,}"),
    ("access-token", ("x-access-token:",), r"x-access-token:(?P<value>[^@\s]+)"),
    ("url-password", ("://",),
     r"(?i:[a-z][a-z0-9+.-]{1,20})://[^\s/:@'\"<>]{0,100}:(?P<value>[^\s@/'\"<>]{1,200})@"),
    # A password in a JDBC/ODBC URL's parameters, or Oracle's ``user/password@host``.
    ("url-password", ("password=", "pwd=", "passwd="),
     r"[?&;](?i:password|passwd|pwd)=(?P<value>[^\s&;'\"<>]{3,200})"),
    ("url-password", ("jdbc:oracle",),
     r"jdbc:oracle:(?:thin|oci):[^\s/:@'\"]+/(?P<value>[^\s@'\"]{3,200})@"),
    # Passwords on a shell command line: ``curl -u user:pass``, ``docker login -p``,
    # ``sshpass -p``, ``mysql -pPASS`` / ``--password=`` (a literal, not ``$VAR``).
    ("command-password", ("curl",),
     _L + r"curl\b[^\n|;&]*?[ \t](?:-u|--user)(?:[ \t]+|=)?[\"']?[^\s:'\"]+:"
     r"(?P<value>[^\s'\"]{3,200})"),
    ("command-password", ("docker", "podman", "helm", "nerdctl"),
     _L + r"(?:docker|podman|nerdctl|helm(?:[ \t]+registry)?)[ \t]+login\b[^\n|;&]*?[ \t]"
     r"(?:-p|--password)(?:[ \t]+|=)[\"']?(?P<value>[^\s'\"-][^\s'\"]{2,200})"),
    ("command-password", ("sshpass",),
     _L + r"sshpass[ \t]+-p[ \t]*[\"']?(?P<value>[^\s'\"-][^\s'\"]{2,200})"),
    ("command-password", ("mysql", "mariadb"),
     _L + r"(?:mysql|mariadb)(?:dump|admin|import|sh|-dump|-admin)?\b[^\n|;&]*?[ \t]"
     r"(?:-p|--password=)[\"']?(?P<value>[^\s'\"-][^\s'\"]{2,200})"),
)

def _literal(value: str) -> bool:
    """A value written out, not a shell or template reference (``$PASS``, ``<pw>``)."""
    return not value.startswith(("$", "<", "%", "{", "`", "*")) and "${" not in value


_CHECKS: dict[str, Callable[[str], bool]] = {
    "private-key": _decodes_to_private_key,
    "command-password": _literal,
}


@cache
def token_rules() -> tuple[TokenRule, ...]:
    """The compiled table (first call only)."""
    return tuple(TokenRule(kind, keywords, re.compile(source), _CHECKS.get(kind))
                 for kind, keywords, source in _TABLE)


def table_keywords() -> list[str]:
    """Every token rule's keywords (lower case), longest first."""
    return sorted({word for _, keywords, _ in _TABLE for word in keywords}, key=len,
                  reverse=True)


@cache
def _keyword_index() -> tuple[BytesAhoCorasick, list[tuple[int, ...]]]:
    """An automaton over every rule keyword, and each keyword's rules (by table index)."""
    words = table_keywords()
    return (BytesAhoCorasick([word.encode() for word in words]),
            [tuple(i for i, (_, keywords, _) in enumerate(_TABLE) if word in keywords)
             for word in words])


def rules_for(lower: str) -> list[TokenRule]:
    """The token rules one of whose keywords occurs in ``lower``, in table order."""
    finder, rules_of = _keyword_index()
    # Overlapping matches: every keyword wherever it occurs, one inside another included.
    found = finder.find_matches_as_indexes(lower.encode("utf-8", "surrogatepass"),
                                           overlapping=True)
    indexes = {i for word, _, _ in found for i in rules_of[word]}
    table = token_rules()
    return [table[i] for i in sorted(indexes)]
