"""Credentials in the diff: detection, redaction markers, refusal, findings."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mmr.secrets.credential_patterns import KIND_LABELS, credential_spans
from mmr.secrets.credentials import (
    REFUSAL_MESSAGE,
    CredentialHit,
    has_refusable_credentials,
    redact_diff,
    redaction_warning,
    scan_diff,
)
from mmr.secrets.findings import secret_findings

GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
GHO = "gho_" + "a" * 36
GITHUB_PAT = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnop"
GLPAT = "glpat-" + "xYz_12-abcdEFGHijkl"
AKIA = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
SLACK = "xoxb-123456789012-abcdefghijkl"
GOOGLE = "AIza" + "SyA-1234567890abcdefghijklmnopqrstu"


def one_file_diff(*added: str, path: str = "app/settings.py") -> str:
    body = "".join(f"+{line}\n" for line in added)
    return (f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n"
            f"--- a/{path}\n+++ b/{path}\n@@ -1,2 +1,{2 + len(added)} @@\n"
            f" import os\n{body} x = 1\n")


# (added line, kind, the secret that must disappear, text that must stay)
CASES = [
    (f'TOKEN = "{GHP}"', "github-token", GHP, 'TOKEN = "'),
    (f"token = '{GHO}'", "github-token", GHO, "token = '"),
    (f"PAT = {GITHUB_PAT}", "github-token", GITHUB_PAT, "PAT = "),
    (f'GITLAB = "{GLPAT}"', "gitlab-token", GLPAT, 'GITLAB = "'),
    ("url = 'https://x-access-token:s3cr3tvalue@github.com/o/r.git'", "access-token",
     "s3cr3tvalue", "url = 'https://x-access-token:"),
    ('h = "Authorization: Bearer abc.def.ghi"', "authorization", "Bearer abc.def.ghi",
     'h = "Authorization: '),
    (f'KEY_ID = "{AKIA}"', "aws-access-key", AKIA, 'KEY_ID = "'),
    (f'aws_secret_access_key = "{AWS_SECRET}"', "aws-secret-key", AWS_SECRET,
     "aws_secret_access_key = "),
    (f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}", "aws-secret-key", AWS_SECRET,
     "AWS_SECRET_ACCESS_KEY="),
    (f'SLACK = "{SLACK}"', "slack-token", SLACK, 'SLACK = "'),
    (f'MAPS_KEY = "{GOOGLE}"', "google-api-key", GOOGLE, 'MAPS_KEY = "'),
    ('DB_PASSWORD = "hunter2hunter2"', "password", "hunter2hunter2", 'DB_PASSWORD = "'),
    ("client_secret: 'abcdefgh1234'", "password", "abcdefgh1234", "client_secret: '"),
    ('{"passwd": "correct horse battery"}', "password", "correct horse battery",
     '{"passwd": "'),
]


class TestEachPattern:
    @pytest.mark.parametrize(("line", "kind", "secret", "kept"), CASES)
    def test_detected_and_replaced_with_its_kind(
            self, line: str, kind: str, secret: str, kept: str) -> None:
        text, hits = redact_diff(one_file_diff(line))
        assert [h.kind for h in hits] == [kind]
        assert secret not in text
        assert f"<redacted:{kind}>" in text
        assert f"+{kept}" in text

    def test_akia_span_is_exactly_twenty_characters(self) -> None:
        text, _ = redact_diff(one_file_diff(f"k = {AKIA}TAIL"))
        assert "+k = <redacted:aws-access-key>TAIL\n" in text

    def test_ghp_takes_the_whole_token(self) -> None:
        text, _ = redact_diff(one_file_diff("t = ghp_abc123-rest"))
        assert "+t = <redacted:github-token>-rest\n" in text

    def test_access_token_stops_at_the_at_sign(self) -> None:
        text, _ = redact_diff(one_file_diff("git clone https://x-access-token:abc@host/r"))
        assert "x-access-token:<redacted:access-token>@host/r" in text

    def test_authorization_keeps_the_header_name_and_spacing(self) -> None:
        text, _ = redact_diff(one_file_diff("Authorization:   Basic dXNlcjpwYXNz"))
        assert "+Authorization:   <redacted:authorization>\n" in text

    def test_token_inside_an_access_token_url_is_one_hit(self) -> None:
        line = f"https://x-access-token:{GHO}@github.com/o/r"
        text, hits = redact_diff(one_file_diff(line))
        assert len(hits) == 1
        assert GHO not in text

    def test_two_credentials_on_one_line(self) -> None:
        text, hits = redact_diff(one_file_diff(f"a = '{AKIA}'; b = '{SLACK}'"))
        assert [h.kind for h in hits] == ["aws-access-key", "slack-token"]
        assert "+a = '<redacted:aws-access-key>'; b = '<redacted:slack-token>'\n" in text


class TestPrivateKeyBlocks:
    KEY = ("-----BEGIN RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEA7", "Zm9vYmFy",
           "-----END RSA PRIVATE KEY-----")

    def test_block_lines_keep_their_prefix_and_lose_their_content(self) -> None:
        text, hits = redact_diff(one_file_diff(*self.KEY, "after = 1"))
        assert "+<redacted:private-key>\n+<redacted>\n+<redacted>\n+<redacted>\n" in text
        assert "+after = 1\n" in text
        assert "MIIEow" not in text
        assert [(h.kind, h.line) for h in hits] == [("private-key", 2)]

    def test_missing_end_redacts_the_key_lines_only_and_says_so(self) -> None:
        # Was: everything to the end of the file section, the context line included.
        first = one_file_diff("-----BEGIN OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXk")
        second = one_file_diff("visible = True", path="b.py")
        text, hits = redact_diff(first + second)
        assert "b3BlbnNzaC1rZXk" not in text
        assert "+<redacted:private-key>\n+<redacted>\n x = 1\n" in text
        assert "+visible = True\n" in text
        assert [h.kind for h in hits] == ["unterminated-private-key"]
        [finding] = secret_findings(hits)
        assert "without an END line" in finding.description

    def test_block_across_removed_and_context_lines(self) -> None:
        diff = ("--- a/k.pem\n+++ b/k.pem\n@@ -1,3 +1,3 @@\n-----BEGIN PRIVATE KEY-----\n"
                " c2VjcmV0\n------END PRIVATE KEY-----\n+replaced\n")
        text, hits = redact_diff(diff)
        # a removed line whose content starts with "----" is content, not a header
        assert text == ("--- a/k.pem\n+++ b/k.pem\n@@ -1,3 +1,3 @@\n-<redacted:private-key>\n"
                        " <redacted>\n-<redacted>\n+replaced\n")
        assert [(h.kind, h.added, h.line) for h in hits] == [("private-key", False, 1)]

    def test_single_line_key_does_not_open_a_block(self) -> None:
        line = '"-----BEGIN EC PRIVATE KEY-----\\nMHc\\n-----END EC PRIVATE KEY-----"'
        text, _ = redact_diff(one_file_diff(line, "next = 2"))
        assert '+"<redacted:private-key>"\n+next = 2\n' in text


NORMAL_CODE = [
    "def authenticate(user, password):",
    "    if password == stored_password:",
    '    if password == "hunter2hunter2" or secret != "abcdefghijk":',
    '    password = input("Enter password: ")',
    '    token = request.headers.get("Authorization")',
    "    headers['Authorization'] = f'Bearer {token}'",
    "    secret = os.environ['APP_SECRET']",
    '    secret_name = "projects/demo/secrets/db-password"',
    '    PASSWORD_PROMPT = "Please type your password"',
    '    secretary = "Jane Q. Public"',
    '    password_hash = "$2b$12$abcdefghijklmnopqrstuv"',
    '    db_password = "${DB_PASSWORD}"',
    '    api_key = settings.API_KEY',
    "    aws_secret_access_key = os.environ.get('AWS_SECRET_ACCESS_KEY')",
    '    GITHUB_TOKEN_PREFIX = "ghp_"',
    "    for key in sorted(keys):",
    "    return {'approved': True, 'findings': []}",
    "// AKIA is the prefix of an AWS key id",
    "const akia = 'AKIAshort';",
    "SELECT password_hash FROM users WHERE id = ?;",
    '  "scripts": {"test": "pytest -q"},',
    "x-access-token is documented in the GitHub docs",
    "    password: str = Field(min_length=8)",
]


class TestNoFalsePositives:
    @pytest.mark.parametrize("line", NORMAL_CODE)
    def test_ordinary_code_is_left_alone(self, line: str) -> None:
        diff = one_file_diff(line)
        text, hits = redact_diff(diff)
        assert hits == []
        assert text == diff

    def test_a_clean_diff_comes_back_byte_for_byte(self) -> None:
        diff = one_file_diff(*NORMAL_CODE).replace("\n", "\r\n")
        assert redact_diff(diff) == (diff, [])


MULTI_FILE = """\
diff --git a/src/a.py b/src/a.py
index 1111111..2222222 100644
--- a/src/a.py
+++ b/src/a.py
@@ -10,4 +10,5 @@ class Client:
     def __init__(self):
-        self.key = "AKIAAAAAAAAAAAAAAAAA"
+        self.key = "AKIABBBBBBBBBBBBBBBB"
+        self.tok = "ghp_newtoken1"
         self.x = 1
         self.y = 2
@@ -40,3 +41,3 @@ def f():
     a = 1
-    b = 2
+    b = "xoxp-1234567890-abc"
     c = 3
diff --git a/new.cfg b/new.cfg
new file mode 100644
--- /dev/null
+++ b/new.cfg
@@ -0,0 +1,2 @@
+name = demo
+aws_key = AKIACCCCCCCCCCCCCCCC
diff --git a/old.cfg b/old.cfg
deleted file mode 100644
--- a/old.cfg
+++ /dev/null
@@ -1,1 +0,0 @@
-aws_key = AKIADDDDDDDDDDDDDDDD
"""


class TestLocations:
    def test_hits_carry_file_and_line(self) -> None:
        hits = scan_diff(MULTI_FILE)
        assert hits == [
            CredentialHit("aws-access-key", "src/a.py", 11, False),
            CredentialHit("aws-access-key", "src/a.py", 11, True),
            CredentialHit("github-token", "src/a.py", 12, True),
            CredentialHit("slack-token", "src/a.py", 42, True),
            CredentialHit("aws-access-key", "new.cfg", 2, True),
            CredentialHit("aws-access-key", "old.cfg", 1, False),
        ]

    def test_only_added_lines_become_findings(self) -> None:
        findings = secret_findings(scan_diff(MULTI_FILE))
        assert [f.location for f in findings] == [
            "src/a.py:11", "src/a.py:12", "src/a.py:42", "new.cfg:2"]
        first = findings[0]
        assert (first.severity, first.category) == ("P1", "security")
        assert "AWS access key ID" in first.description
        assert "AKIA" not in first.description
        assert "rotate" in first.suggestion

    def test_authorization_redacts_but_is_not_a_finding(self) -> None:
        hits = scan_diff(one_file_diff("Authorization: Bearer abc"))
        assert [h.kind for h in hits] == ["authorization"]
        assert secret_findings(hits) == []

    def test_one_finding_per_line_naming_every_kind(self) -> None:
        hits = scan_diff(one_file_diff(f"a = '{AKIA}'; b = '{SLACK}'; c = '{AKIA}'"))
        findings = secret_findings(hits)
        assert len(findings) == 1
        assert findings[0].location == "app/settings.py:2"
        assert findings[0].description.count("AWS access key ID") == 1
        assert KIND_LABELS["slack-token"] in findings[0].description

    def test_plain_unified_diff_with_timestamps_and_quoted_paths(self) -> None:
        diff = ("--- old/conf.ini\t2024-01-01 00:00:00\n+++ new/conf.ini\t2024-01-02 00:00:00\n"
                "@@ -1 +1 @@\n-a=1\n+key=AKIAEEEEEEEEEEEEEEEE\n"
                'diff --git "a/t\\303\\251st.py" "b/t\\303\\251st.py"\n'
                '--- "a/t\\303\\251st.py"\n+++ "b/t\\303\\251st.py"\n'
                "@@ -5,0 +6,1 @@\n+k = 'AKIAFFFFFFFFFFFFFFFF'\n")
        assert [f.location for f in secret_findings(scan_diff(diff))] == [
            "new/conf.ini:1", "tést.py:6"]

    def test_leading_dot_slash_is_dropped_from_locations(self) -> None:
        diff = "--- ./lib/k.rb\n+++ ./lib/k.rb\n@@ -1,0 +1,1 @@\n+K = 'AKIAGGGGGGGGGGGGGGGG'\n"
        assert [f.location for f in secret_findings(scan_diff(diff))] == ["lib/k.rb:1"]

    def test_text_outside_any_hunk_is_still_redacted(self) -> None:
        diff = f"From: dev\nSubject: add key {AKIA}\n\n" + one_file_diff("ok = 1")
        text, hits = redact_diff(diff)
        assert AKIA not in text
        assert hits == [CredentialHit("aws-access-key", None, None, False)]
        assert secret_findings(hits) == []

    def test_hunk_header_context_is_redacted_ranges_kept(self) -> None:
        diff = (f"--- a/x.py\n+++ b/x.py\n@@ -3,1 +3,1 @@ KEY = '{AKIA}'\n-a\n+b\n")
        text, _ = redact_diff(diff)
        assert "@@ -3,1 +3,1 @@ KEY = '<redacted:aws-access-key>'\n" in text


class TestRefusal:
    @pytest.mark.parametrize("line", [
        "t = ghp_x", "glpat-", "https://x-access-token:abc@h", "Authorization: x",
        "-----BEGIN DSA PRIVATE KEY-----", AKIA])
    def test_the_six_rm3_patterns_refuse(self, line: str) -> None:
        assert has_refusable_credentials(one_file_diff(line))

    @pytest.mark.parametrize("line", [
        GHO, GITHUB_PAT, SLACK, GOOGLE, f"aws_secret_access_key={AWS_SECRET}"])
    def test_every_high_confidence_format_refuses(self, line: str) -> None:
        # Was: only the six RM-3 patterns refused, so these formats were sent (issue 14).
        assert has_refusable_credentials(one_file_diff(line))

    @pytest.mark.parametrize("line", ['password = "hunter2hunter2"',
                                      'api_token = "q8Zr2LmX0pVt7KwY"'])
    def test_name_and_entropy_guesses_redact_but_never_refuse(self, line: str) -> None:
        diff = one_file_diff(line)
        assert not has_refusable_credentials(diff)
        assert scan_diff(diff)

    @pytest.mark.parametrize("line", ["authorization: bearer x", "akiaiosfodnn7example",
                                      "BEGIN rsa private key"])
    def test_patterns_are_case_sensitive(self, line: str) -> None:
        diff = one_file_diff(line)
        assert not has_refusable_credentials(diff)
        assert scan_diff(diff) == []

    def test_messages(self) -> None:
        assert REFUSAL_MESSAGE == "credential-shaped content in diff"
        assert redaction_warning(3) == (
            "[mmr] warning: redacted 3 credential-shaped string(s) from the diff before "
            "sending it (on_credentials: redact)")


class TestIdempotence:
    def test_redacting_twice_changes_nothing_and_finds_nothing(self) -> None:
        once, hits = redact_diff(MULTI_FILE + one_file_diff(*[c[0] for c in CASES]))
        assert len(hits) > 10
        twice, again = redact_diff(once)
        assert (twice, again) == (once, [])

    def test_a_match_exposed_by_a_replacement_is_redacted_too(self) -> None:
        # Found by hypothesis: the key id glued to the name hid the password assignment.
        text, hits = redact_diff(one_file_diff(f'{AKIA}password = "not-so-secret"'))
        assert [h.kind for h in hits] == ["aws-access-key", "password"]
        assert "not-so-secret" not in text

    def test_markers_are_not_credentials(self) -> None:
        assert credential_spans('password = "<redacted:password>"') == []
        assert credential_spans("Authorization: <redacted:authorization>") == []


# --- properties -------------------------------------------------------------------------

SECRETS = st.sampled_from([GHP, GHO, GITHUB_PAT, GLPAT, AKIA, SLACK, GOOGLE]) | st.builds(
    lambda body: "AKIA" + body, st.text("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                                        min_size=16, max_size=16))
CODE_TEXT = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\n"),
                    max_size=40)


@st.composite
def diffs_with_secrets(draw: st.DrawFn) -> tuple[str, list[str]]:
    planted: list[str] = []
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 8))):
        prefix = draw(st.sampled_from(["+", "-", " "]))
        text = draw(CODE_TEXT)
        if draw(st.booleans()):
            secret = draw(SECRETS)
            planted.append(secret)
            text = text[: len(text) // 2] + f" {secret} " + text[len(text) // 2:]
        lines.append(prefix + text)
    old = sum(1 for line in lines if line[0] in "- ")
    new = sum(1 for line in lines if line[0] in "+ ")
    header = f"--- a/f.py\n+++ b/f.py\n@@ -1,{old} +1,{new} @@\n"
    return header + "\n".join(lines) + "\n", planted


#: Fragments that steer random text into the walker's and the detectors' edge cases.
FRAGMENTS = st.sampled_from([
    "\n", "\n+", "\n-", "\n ", "\r\n", "@@ -1,2 +1,3 @@", "@@ -0,0 +1 @@ f", "--- a/x.py",
    "+++ b/x.py", "diff --git a/x b/x", "\\ No newline at end of file", "Authorization:",
    "x-access-token:", "@", "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----",
    'password = "', "secret: '", "'", '"', "aws_secret_access_key=", "<redacted:password>",
    "glpat-", "ghp_", "gho_", "AKIA", "xoxb-", "AIza",
])
NOISY_TEXT = st.lists(st.one_of(FRAGMENTS, SECRETS, st.text(max_size=20)), max_size=40).map(
    "".join)


def test_a_credential_after_an_unterminated_begin_line_is_still_redacted() -> None:
    # Found by the property below: the line was held back as a possible key body, then
    # given back unscanned when no END line came.
    redacted, _ = redact_diff("-----BEGIN RSA PRIVATE KEY-----\nAKIA0000000000000000")
    assert "AKIA0000000000000000" not in redacted
    assert scan_diff(redacted) == []


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(NOISY_TEXT)
@example("-----BEGIN RSA PRIVATE KEY-----\nAKIA0000000000000000")
def test_redact_diff_never_raises_and_leaves_nothing_detectable(text: str) -> None:
    redacted, hits = redact_diff(text)
    assert scan_diff(redacted) == []
    assert (redacted == text) == (hits == [])
    assert redacted.count("\n") == text.count("\n")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(diffs_with_secrets())
def test_planted_secrets_never_survive(case: tuple[str, list[str]]) -> None:
    diff, planted = case
    redacted, hits = redact_diff(diff)
    for secret in planted:
        assert secret not in redacted
    assert len(hits) >= len(set(planted)) and (not planted or hits)
    assert redacted.count("\n") == diff.count("\n")
    assert redacted.splitlines()[:3] == diff.splitlines()[:3]  # headers untouched
    assert scan_diff(redacted) == []


def test_a_credential_after_a_key_blocks_end_marker_is_redacted() -> None:
    """Found by the property test: text after END on the same line was left as it was."""
    token = "ghp_" + "a" * 36
    diff = ("+-----BEGIN RSA PRIVATE KEY-----\n+MIIEpAIBAAKCAQEA\n"
            f"+-----END RSA PRIVATE KEY-----{token}\n")
    redacted, hits = redact_diff(diff)
    assert token not in redacted
    assert [hit.kind for hit in hits] == ["private-key", "github-token"]
