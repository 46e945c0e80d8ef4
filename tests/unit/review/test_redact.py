"""Key-name redaction: the classifier, the command-string detector, structured views.

Ported from MMR 4.0.1's tests/core/redact.test.ts and tests/commands/config-channels*.test.ts,
plus vectors for the load-time header warning and the structured views.
"""

from __future__ import annotations

import copy

import pytest

from mmr.secrets.redact import (
    REDACTED,
    contains_inline_secret,
    is_command_secret_key,
    is_secret_key,
    redact_channel,
    redact_channel_show,
    redact_inherited_value,
    redact_list,
    redact_mapping,
    redact_text,
)

SECRET_KEYS = [
    "token", "TOKEN", "API_KEY", "OPENAI_API_KEY", "secret", "PASSWORD", "auth", "Authorization",
    "X-API-Key", "credential", "passphrase", "cookie", "signature", "session", "apiKey",
    '"API_KEY"', "authToken", '"session_id"', "clientSecret", "privateKey", "sessionId",
    "DB_PASS", "MYSQL_PASSWD", "AWS_CREDENTIALS", "creds", "apikey", "api_key", "key",
    "accessKey", "access_key_id", "AWS_SECRET_ACCESS_KEY", "SID", "set-cookie", "OAUTH_TOKEN",
]
NOT_SECRET_KEYS = [
    "model", "endpoint", "NO_BROWSER", "TIMEOUT", "flag", "tokenizer", "author", "monkey",
    "publicKey", "primaryKey", "cacheKey", "api_key_env", "oauth", "bearer", "jwt", "pwd",
    "passport", "bypass", "api",
]


class TestSecretKeyClassifier:
    @pytest.mark.parametrize("name", SECRET_KEYS)
    def test_secret_names(self, name: str) -> None:
        assert is_secret_key(name)

    @pytest.mark.parametrize("name", NOT_SECRET_KEYS)
    def test_harmless_names(self, name: str) -> None:
        assert not is_secret_key(name)

    def test_api_key_env_is_exempt_only_while_the_exemption_is_on(self) -> None:
        assert not is_secret_key("api_key_env")
        assert not is_secret_key("API_KEY_ENV")
        assert is_secret_key("api_key_env", exempt_env_name=False)
        assert is_secret_key("api_key")

    @pytest.mark.parametrize("header", ["Authorization", "X-API-Key", "Cookie"])
    def test_header_names_that_warn_at_load(self, header: str) -> None:
        # The loader checks header names without the exemption.
        assert is_secret_key(header, exempt_env_name=False)

    @pytest.mark.parametrize("header", ["X-Trace", "X-Org"])
    def test_header_names_that_do_not_warn(self, header: str) -> None:
        assert not is_secret_key(header, exempt_env_name=False)

    def test_only_one_pair_of_quotes_is_stripped(self) -> None:
        assert is_secret_key("'token'")
        assert not is_secret_key('"model"')


class TestCommandSecretKey:
    @pytest.mark.parametrize("name", ["--api-key", "-token", "--github-token", "--db-pass",
                                      "--session-id", "--sid", "--signature", "--openai-key",
                                      "--private-key", "--key", "OPENAI_API_KEY"])
    def test_secret_flags(self, name: str) -> None:
        assert is_command_secret_key(name)

    @pytest.mark.parametrize("name", ["--api-key-env", "--auth-token-env", "OPENAI_API_KEY_ENV",
                                      "--auth-type", "--max-tokens", "--session-dir",
                                      "--token-limit", "--token-usage", "--public-key",
                                      "--monkey", "--keyboard-layout", "--model"])
    def test_safe_flags(self, name: str) -> None:
        assert not is_command_secret_key(name)

    def test_api_key_env_exemption_is_lifted_except_for_the_env_suffix_rule(self) -> None:
        assert not is_command_secret_key("api_key_env")  # the -env/_env suffix rule
        assert is_command_secret_key("api_key")


REDACTED_COMMANDS = [
    "curl -H 'Authorization: Bearer sk-secret-123'",
    "review --api-key sk-live",
    "review --api-key=sk-live",
    "review --api-key=sk-live --model qwen",
    "review -api-key sk-live",
    "review --token abc --model q",
    "review -token secret",
    "review --github-token ghp_x",
    "review --slack-token xoxb",
    "review --openai-key sk",
    "review --db-pass hunter2",
    "review --session-id abc",
    "review --sid abc",
    "review --signature abc",
    "OPENAI_API_KEY=sk-live review",
    "export TOKEN=abc",
    "https://x/?token=abc",
    "docker run --env OPENAI_API_KEY=sk img",
    "docker run --env=OPENAI_API_KEY=sk-live image",
    "curl --header=Authorization:Bearer-x",
    "curl --header Authorization:Bearer-live",
    "curl -H Authorization:Bearer-x",
    '{"apiKey": "x"}',
    "review --key abc",
    "review --private-key x",
]
KEPT_COMMANDS = [
    "claude login", "codex login", "gh auth login", "agy -p 'hello'", "ollama serve",
    "review --api-key-env OPENAI_API_KEY --auth-token-env AUTH_TOKEN",
    "review --session-dir=/x --token-limit=4096 --auth-type=none --max-tokens 5",
    "review --session-dir=.mmr-sessions --token-limit=4096 --auth-type=none",
    "review --monkey abc", "review --public-key x", "review --password",
    "sk-abcdef0123456789", "Bearer abc", "mmr config disable grok",
    "review --keyboard-layout qwerty", "review --monkey-mode false",
    # Built-in auth checks and recoveries.
    "codex login status", 'claude -p "respond with ok"', "grok models", "grok login",
    'agy -p "respond with ok"', 'agy -p "hello"', "ollama list",
]


class TestCommandStrings:
    @pytest.mark.parametrize("command", REDACTED_COMMANDS)
    def test_embedded_secret_redacts_the_whole_string(self, command: str) -> None:
        assert contains_inline_secret(command)
        assert redact_text(command) == REDACTED

    @pytest.mark.parametrize("command", KEPT_COMMANDS)
    def test_commands_without_a_secret_are_kept(self, command: str) -> None:
        assert not contains_inline_secret(command)
        assert redact_text(command) == command

    def test_recovery_secret_never_survives(self) -> None:
        # config-test-redaction.test.ts / review-dry-run.test.ts: the value is gone.
        recovery = "curl -H 'Authorization: Bearer sk-secret-123' https://api.example/v1"
        assert "sk-secret-123" not in redact_text(recovery)

    def test_quoted_header_pair_is_tested_recursively(self) -> None:
        assert contains_inline_secret('curl --header "X-Api-Key: abc" https://x')
        assert not contains_inline_secret('curl --header "X-Trace: 1" https://x')


class TestRedactMapping:
    def test_secret_keyed_values_are_replaced(self) -> None:
        data = {"OPENAI_API_KEY": "sk-xxxx", "NO_BROWSER": "true", "PASSWORD": "hunter2"}
        assert redact_mapping(data) == {
            "OPENAI_API_KEY": REDACTED, "NO_BROWSER": "true", "PASSWORD": REDACTED}

    def test_api_key_env_kept_by_default_redacted_in_value_bearing_records(self) -> None:
        assert redact_mapping({"api_key_env": "OPENAI_API_KEY"}) == {
            "api_key_env": "OPENAI_API_KEY"}
        assert redact_mapping({"api_key_env": "sk-actual"}, exempt_env_name=False) == {
            "api_key_env": REDACTED}
        assert redact_mapping({"env": {"api_key_env": "sk-actual"}}) == {
            "env": {"api_key_env": REDACTED}}

    def test_non_secret_values_pass_through(self) -> None:
        data = {"model": "qwen", "endpoint": "http://localhost:11434", "timeout": 30}
        assert redact_mapping(data) == data

    def test_nested_mappings_under_harmless_keys_are_walked(self) -> None:
        data = {"config": {"api_token": "x", "nested": {"clientSecret": "y"}}}
        assert redact_mapping(data) == {
            "config": {"api_token": REDACTED, "nested": {"clientSecret": REDACTED}}}


class TestRedactChannel:
    def test_env_and_headers_redacted_api_key_env_name_kept(self) -> None:
        channel = {
            "command": "curl",
            "api_token": "plain-secret",
            "env": {"OPENAI_API_KEY": "sk-xxx", "NO_BROWSER": "true"},
            "headers": {"Authorization": "Bearer abc", "X-Trace": "true"},
            "api_key_env": "OPENAI_API_KEY",
        }
        redacted = redact_channel(channel)
        assert redacted["api_token"] == REDACTED
        assert redacted["env"] == {"OPENAI_API_KEY": REDACTED, "NO_BROWSER": "true"}
        assert redacted["headers"] == {"Authorization": REDACTED, "X-Trace": "true"}
        assert redacted["api_key_env"] == "OPENAI_API_KEY"

    def test_input_is_not_mutated(self) -> None:
        channel = {"env": {"TOKEN": "x"}, "flags": ["--token", "y"]}
        before = copy.deepcopy(channel)
        redacted = redact_channel(channel)
        assert channel == before
        assert redacted["env"] == {"TOKEN": REDACTED}

    def test_list_shaped_env_and_headers(self) -> None:
        channel = {
            "env": [
                "TOKEN=x", "  authToken = abc", "NO_BROWSER=true",
                {"name": "OPENAI_API_KEY", "value": "sk-xxx"},
            ],
            "headers": [
                "Authorization: Bearer abc", "  X-Trace: true",
                {"key": "Authorization", "value": "Bearer abc"},
                {"key": "X-Trace", "value": "true"},
                ["TOKEN=nested"], ["Authorization: Bearer nested"],
                ["Authorization", "Bearer abc"], ["TOKEN", "x"],
                "X-Trace", "1", "Authorization", "Bearer later",
            ],
        }
        assert redact_channel(channel) == {
            "env": [
                "TOKEN=<redacted>", "  authToken = <redacted>", "NO_BROWSER=true",
                {"name": "OPENAI_API_KEY", "value": REDACTED},
            ],
            "headers": [
                "Authorization: <redacted>", "  X-Trace: true",
                {"key": "Authorization", "value": REDACTED},
                {"key": "X-Trace", "value": "true"},
                ["TOKEN=<redacted>"], ["Authorization: <redacted>"],
                ["Authorization", REDACTED], ["TOKEN", REDACTED],
                "X-Trace", "1", "Authorization", REDACTED,
            ],
        }

    def test_standalone_secret_name_in_a_list(self) -> None:
        assert redact_channel({"env": ["TOKEN"]}) == {"env": [REDACTED]}

    def test_nested_key_value_inside_a_list_string(self) -> None:
        assert redact_channel({"flags": ["--env=OPENAI_API_KEY=sk-live"]}) == {
            "flags": ["--env=<redacted>"]}

    def test_pair_with_secret_head_redacts_rest_too(self) -> None:
        assert redact_list([["TOKEN", "x", "API_KEY", "y"]]) == [
            ["TOKEN", REDACTED, "API_KEY", REDACTED]]


class TestConfigShowView:
    def test_flags_pairs_and_inline_secrets(self) -> None:
        channel = {"flags": ["--api-key", "sk", "--model", "qwen", "--api-key=sk",
                             "OPENAI_API_KEY=sk", "Authorization: Bearer t", "--verbose"]}
        assert redact_channel_show(channel)["flags"] == [
            "--api-key", REDACTED, "--model", "qwen", REDACTED, REDACTED, REDACTED, "--verbose"]

    def test_env_pointer_flag_value_is_kept(self) -> None:
        flags = ["--api-key-env", "OPENAI_API_KEY"]
        assert redact_channel_show({"flags": flags})["flags"] == flags

    def test_exemption_only_at_channel_top_level(self) -> None:
        shown = redact_channel_show({
            "api_key_env": "OPENAI_API_KEY",
            "headers": {"api_key_env": "sk-1", "X-Trace": "1"},
            "env": {"api_key_env": "sk-2", "TOKEN": "sk-3"},
        })
        assert shown == {
            "api_key_env": "OPENAI_API_KEY",
            "headers": {"api_key_env": REDACTED, "X-Trace": "1"},
            "env": {"api_key_env": REDACTED, "TOKEN": REDACTED},
        }

    def test_api_key_header_and_prefix_are_shown(self) -> None:
        # MMR 4.0.1 redacts these names; mmr shows them (docs/differences.md).
        fields = {"api_key_header": "Authorization", "api_key_prefix": "Bearer "}
        assert redact_channel_show(fields) == fields

    def test_auth_mapping_is_walked_and_commands_checked_whole(self) -> None:
        shown = redact_channel_show({
            "command": "review --token abc",
            "auth": {"check": "codex login status", "timeout": 5,
                     "recovery": "curl -H 'Authorization: Bearer sk-secret-123'",
                     "failure_exit_codes": [1]},
        })
        assert shown == {
            "command": REDACTED,
            "auth": {"check": "codex login status", "timeout": 5, "recovery": REDACTED,
                     "failure_exit_codes": [1]},
        }

    def test_input_is_not_mutated(self) -> None:
        channel = {"env": {"TOKEN": "x"}, "flags": ["--token", "y"]}
        before = copy.deepcopy(channel)
        redact_channel_show(channel)
        assert channel == before


class TestUnsetView:
    def test_secret_leaf_is_hidden(self) -> None:
        assert redact_inherited_value(["channels", "x", "env", "TOKEN"], "abc") == REDACTED

    def test_command_leaf_gets_the_whole_string_rule(self) -> None:
        assert redact_inherited_value(["channels", "x", "command"], "a --token b") == REDACTED
        assert redact_inherited_value(["channels", "x", "command"], "codex exec") == "codex exec"

    def test_auth_mapping_is_walked_not_collapsed(self) -> None:
        value = {"check": "grok models", "recovery": "grok login", "timeout": 5}
        assert redact_inherited_value(["channels", "grok", "auth"], value) == value

    def test_whole_channel_keeps_its_own_api_key_env(self) -> None:
        value = {"api_key_env": "OPENAI_API_KEY", "env": {"OPENAI_API_KEY": "sk"}}
        assert redact_inherited_value(["channels", "http"], value) == {
            "api_key_env": "OPENAI_API_KEY", "env": {"OPENAI_API_KEY": REDACTED}}

    def test_harmless_leaf_is_shown(self) -> None:
        assert redact_inherited_value(["defaults", "timeout"], 300) == 300
