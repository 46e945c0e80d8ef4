"""Issue 14: vendor formats, value-precise redaction, key blocks, split values, refusal."""

from __future__ import annotations

import sysconfig
from collections import Counter
from pathlib import Path

import pytest

from mmr.models import ChannelResult, Finding
from mmr.secrets.credentials import (
    has_refusable_credentials,
    redact_diff,
    scan_diff,
)
from mmr.secrets.findings import secret_findings
from mmr.secrets.reply_redaction import redact_channel_result, redact_finding, redact_findings
from tests.secrets_corpus import FAMILIES, build_corpus, corpus_diff
from tests.unit.review.test_credentials import one_file_diff

STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
OPENAI = "sk-proj-" + "Q2x5b3VkQmFzZTY0U3RyaW5nRm9yVGVzdHNPbmx5"


class TestTheHidingCasesFromTheIssue:
    def test_a_bare_authorization_label_hides_none_of_the_code_after_it(self) -> None:
        line = 'H = "Authorization:"; os.system(os.environ["QUERY_STRING"])'
        text, hits = redact_diff(one_file_diff(line))
        assert f"+{line}\n" in text  # was: H = "Authorization:<redacted:authorization>
        assert hits == []

    def test_an_authorization_value_is_redacted_up_to_its_quote_only(self) -> None:
        line = 'h = {"Authorization": "Bearer eyJhbGciOi.x9Zq2LmV8"}; run(h)'
        text, _ = redact_diff(one_file_diff(line))
        assert '+h = {"Authorization": "<redacted:authorization>"}; run(h)\n' in text

    def test_a_begin_line_in_a_comment_does_not_blank_the_rest_of_the_file(self) -> None:
        diff = one_file_diff("# keys look like -----BEGIN PRIVATE KEY-----",
                             "def handler(request):", "    os.system(request.args['cmd'])",
                             "    return 'ok'")
        text, hits = redact_diff(diff)
        assert "+def handler(request):\n+    os.system(request.args['cmd'])\n" in text
        assert "+    return 'ok'\n" in text
        assert "+# keys look like <redacted:private-key>\n" in text
        [finding] = secret_findings(hits)
        assert "without an END line" in finding.description

    def test_key_lines_before_code_are_redacted_and_the_code_is_not(self) -> None:
        body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
        text, _ = redact_diff(one_file_diff("-----BEGIN PRIVATE KEY-----", body,
                                            "run_payload()"))
        assert body not in text
        assert "+<redacted>\n+run_payload()\n" in text

    def test_a_key_whose_begin_line_is_outside_the_hunk_loses_its_body(self) -> None:
        bodies = ["MIIEowIBAAKCAQEA7bq98ZhfrvYcQ2l7s0ZkG3rVQ1DpZ8a0fL2mC9nV3xYtHqWe",
                  "Rb5kP1sXo4uJm8TgZ6cVdN0yA7hLwQ3eK9fS2jB5nD8vC1xU4tG7iY0oP6aR3lMe",
                  "Zm9vYmFy"]
        diff = ("--- a/k.pem\n+++ b/k.pem\n@@ -20,4 +20,4 @@\n"
                + "".join(f" {b}\n" for b in bodies) + "------END RSA PRIVATE KEY-----\n"
                + "+\n")
        text, hits = redact_diff(diff)
        assert not any(b in text for b in bodies)
        assert ("private-key", 20) in [(h.kind, h.line) for h in hits]

    def test_full_width_base64_lines_without_begin_or_end_are_redacted(self) -> None:
        lines = ["QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2",
                 "d3h5ejAxMjM0NTY3ODkrL0FCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFlaYWJjZGVm"]
        text, hits = redact_diff(one_file_diff(*lines))
        assert not any(line in text for line in lines)
        assert [h.kind for h in hits] == ["key-body"]


class TestValuePrecision:
    @pytest.mark.parametrize(("line", "expected"), [
        (f'client = Stripe(api_key="{STRIPE}", timeout=5); charge(client)',
         'client = Stripe(api_key="<redacted:stripe-key>", timeout=5); charge(client)'),
        (f"OPENAI_API_KEY={OPENAI} ./run.sh --serve",
         "OPENAI_API_KEY=<redacted:openai-key> ./run.sh --serve"),
        ('db = connect("postgres://app:Zq8!rT2xLp@db:5432/app"); db.drop_all()',
         'db = connect("postgres://app:<redacted:url-password>@db:5432/app"); db.drop_all()'),
        ('password = "Xk29!pLq7w"  # noqa: S105 then eval(input())',
         'password = "<redacted:password>"  # noqa: S105 then eval(input())'),
    ])
    def test_only_the_value_is_replaced(self, line: str, expected: str) -> None:
        text, _ = redact_diff(one_file_diff(line))
        assert f"+{expected}\n" in text

    def test_a_json_escaped_key_keeps_the_json_around_it(self) -> None:
        line = ('  "private_key": "-----BEGIN RSA PRIVATE KEY-----\\nMIIBOgIBAAJBAKj34\\n'
                '-----END RSA PRIVATE KEY-----\\n", "client_email": "svc@x.iam"')
        text, _ = redact_diff(one_file_diff(line))
        assert ('+  "private_key": "<redacted:private-key>\\n", "client_email": "svc@x.iam"\n'
                in text)

    def test_a_base64_wrapped_key_is_a_key_and_a_certificate_is_not(self) -> None:
        import base64
        key = base64.b64encode(b"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n").decode()
        cert = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+g\n").decode()
        text, hits = redact_diff(one_file_diff(f"client-key-data: {key}",
                                               f"certificate-authority-data: {cert}"))
        assert key not in text and cert in text
        assert [h.kind for h in hits] == ["private-key"]


class TestSplitValues:
    def test_a_token_split_across_literals_is_judged_joined(self) -> None:
        line = f'key = "{STRIPE[:12]}" + "{STRIPE[12:]}"'
        text, hits = redact_diff(one_file_diff(line))
        assert STRIPE[:12] not in text and STRIPE[12:] not in text
        assert '+key = "<redacted:stripe-key>" + "<redacted:stripe-key>"\n' in text
        assert has_refusable_credentials(one_file_diff(line))
        assert {h.kind for h in hits} == {"stripe-key"}

    def test_a_secret_name_given_implicitly_joined_literals(self) -> None:
        text, hits = redact_diff(one_file_diff('DB_PASSWORD = ("Xk29!p" "Lq7wZ3")'))
        assert "Xk29!p" not in text and "Lq7wZ3" not in text
        assert {h.kind for h in hits} == {"password"}

    def test_ordinary_concatenations_stay(self) -> None:
        diff = one_file_diff('msg = "hello " + "world"', 'path = "a/" + "b.txt"')
        assert redact_diff(diff) == (diff, [])


class TestFindingsAndRefusal:
    def test_every_high_confidence_family_refuses_and_is_a_finding(self) -> None:
        for family in ("stripe", "openai", "anthropic", "npm", "pypi", "jwt", "twilio",
                       "sendgrid", "database-url", "slack", "azure", "other-vendors"):
            cases = [c for c in build_corpus() if c.family == family and c.rendering == "python"]
            diff = corpus_diff(cases)
            assert has_refusable_credentials(diff), family
            findings = secret_findings(scan_diff(diff))
            assert len(findings) == len(cases), family
            assert all(f.severity == "P1" for f in findings)
            assert not any(s in f.description for c in cases for s in c.secrets
                           for f in findings)

    def test_keyword_and_entropy_hits_redact_and_report_but_do_not_refuse(self) -> None:
        cases = [c for c in build_corpus()
                 if c.family in ("password", "secret", "api-key", "token", "high-entropy")
                 and c.rendering == "python"]
        diff = corpus_diff(cases)
        text, hits = redact_diff(diff)
        assert not any(s in text for c in cases for s in c.secrets)
        assert not has_refusable_credentials(diff)
        assert len(secret_findings(hits)) == len(cases)


class TestCorpusCoverage:
    def test_at_least_95_percent_of_cases_and_half_the_splits_every_family(self) -> None:
        cases = build_corpus()
        redacted, _ = redact_diff(corpus_diff(cases))
        missed = [c for c in cases if any(s in redacted for s in c.secrets)]
        assert len(missed) <= 0.05 * len(cases), [(c.family, c.rendering) for c in missed]
        splits = [c for c in cases if c.rendering == "split"]
        assert sum(c not in missed for c in splits) >= 0.5 * len(splits)
        caught = Counter(c.family for c in cases if c not in missed)
        assert set(caught) == {*FAMILIES, "private-key", "shell-command", "pgpass"}


class TestUnnamedValues:
    def test_random_values_with_no_telling_name_are_caught(self) -> None:
        """Random base62 has runs of letters: only runs a person would write (with
        vowels, or acronyms) make a value read as words."""
        cases = [c for c in build_corpus() if c.family in ("unnamed-entropy", "encoded-env")]
        redacted, _ = redact_diff(corpus_diff(cases))
        missed = [(c.family, c.rendering) for c in cases if any(s in redacted for s in c.secrets)]
        assert missed == [("unnamed-entropy", "split")] * 2
        joined = 'value = "UWSKkzEx69r5NMTiSALn" + "TbeTXkUREX6Ct3Tca6EO"'
        assert "UWSK" not in redact_diff(one_file_diff(joined))[0]

    def test_under_one_random_value_hit_per_5000_lines_of_third_party_code(self) -> None:
        stdlib = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))
        lines = [line for path in stdlib
                 for line in path.read_text("utf-8", "replace").splitlines()]
        diff = one_file_diff(*lines)
        hits = [h for h in redact_diff(diff)[1] if h.kind == "random-value"]
        assert len(lines) > 100_000 and len(hits) * 5000 < len(lines), hits

    @pytest.mark.parametrize("line", [
        "localhost:5432:mydb:myuser:<password>", "*:5432:*:postgres:password",
        "db:5432:*:app:${PGPASSWORD}", "localhost:5432:*:*:****", "example.com:5432:db:u:xxxx"])
    def test_a_pgpass_line_with_a_placeholder_is_left_alone(self, line: str) -> None:
        diff = one_file_diff(line)
        assert redact_diff(diff) == (diff, [])

    def test_a_pgpass_line_with_a_password_is_redacted(self) -> None:
        text, hits = redact_diff(one_file_diff("db.internal:5432:*:app:Tr0ub4dor&3"))
        assert "Tr0ub4dor&3" not in text and [h.kind for h in hits] == ["password"]


class TestModelReplies:
    def test_a_credential_repeated_in_a_finding_is_redacted_and_the_finding_kept(self) -> None:
        finding = Finding(severity="P0", location="app.py:3",
                          description=f"Hard-coded {STRIPE} in the client.",
                          suggestion=f'Replace "{STRIPE}" with os.environ["STRIPE_KEY"].')
        clean = redact_finding(finding)
        assert STRIPE not in clean.description + clean.suggestion
        assert clean.description == "Hard-coded <redacted:stripe-key> in the client."
        assert (clean.severity, clean.location) == ("P0", "app.py:3")

    def test_channel_entry_error_raw_output_and_findings(self) -> None:
        finding = Finding(severity="P2", location="a.py:1", description=f"see {OPENAI}")
        result = ChannelResult(status="failed", elapsed="1s", findings=[finding],
                               error=f"token {OPENAI} rejected", raw_output=OPENAI,
                               outside_diff_findings=[finding], unanchored_findings=[finding])
        clean = redact_channel_result(result)
        assert OPENAI not in clean.model_dump_json()
        assert OPENAI not in redact_findings([finding])[0].description
        untouched = ChannelResult(status="completed", elapsed="1s", findings=[])
        assert redact_channel_result(untouched) == untouched
