"""The text ``mmr config init`` writes to ``.mmr.yaml``.

The key lines and the markers tests look for are fixed (``# fix_threshold:``, one
``#   P0`` … ``#   P3`` line per level, ``# example: <id>`` headers); the comment wording
is ours. Example blocks are commented out so that removing the leading ``# `` of their
lines leaves entries indented two spaces, continuing the ``channels:`` mapping.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mmr.severity import threshold_comment

EXAMPLES_HEADER = "# --- OSS runtime examples (uncomment to enable) ---"

_HEAD = """\
version: 1

defaults:
{threshold_comment}
  fix_threshold: P2
  # min_completed_channels: how many channels must report back. With fewer, the
  #   verdict is needs-user-decision (exit 3). Set 1 to accept single-channel approval.
  min_completed_channels: 2
  timeout: 300

channels:
"""

_EXAMPLES: Mapping[str, str] = {
    "ollama": """\
# example: ollama (local models through the ollama CLI)
#   ollama-base:
#     abstract: true
#     command: ollama run
#     auth:
#       check: "ollama list"
#       timeout: 5
#       failure_exit_codes: [1]
#       recovery: "ollama serve"
#   qwen-local:
#     extends: ollama-base
#     flags: ["qwen2.5-coder:32b", "--format", "json"]
""",
    "lms": """\
# example: lms (LM Studio, HTTP) - requires MMR v3.30+
#   lms-local:
#     kind: http
#     endpoint: http://localhost:1234/v1/chat/completions
#     model: qwen2.5-coder-32b-instruct
#     endpoint_convention: openai-chat
#     auth:
#       recovery: "start the LM Studio server (lms server start)"
""",
    "llama-server": """\
# example: llama-server (llama.cpp HTTP) - requires MMR v3.30+
#   llama-local:
#     kind: http
#     endpoint: http://localhost:8080/v1/chat/completions
#     model: local
#     endpoint_convention: openai-chat
#     auth:
#       recovery: "start llama-server with your model (llama-server -m model.gguf)"
""",
    "local-ai-delegate": """\
# example: local-ai-delegate (local models through the delegate CLI)
#   local-ai-delegate-base:
#     abstract: true
#     command: local-ai-delegate review
#   local-ai-delegate-local:
#     extends: local-ai-delegate-base
#     flags: ["--format", "json"]
""",
}

#: Example ids in the order their blocks appear (the runtime probe order).
EXAMPLE_IDS: tuple[str, ...] = tuple(_EXAMPLES)


def render_init_config(seeds: Sequence[tuple[str, bool]], examples: Sequence[str]) -> str:
    """The file: ``channels.<name>.enabled`` per seed, then the chosen example blocks.

    ``examples`` holds runtime ids; unknown ids are ignored, order follows EXAMPLE_IDS.
    The text ends with exactly one newline.
    """
    parts = [_HEAD.replace("{threshold_comment}", "\n".join(threshold_comment("  ")))]
    for name, enabled in seeds:
        parts.append(f"  {name}:\n    enabled: {'true' if enabled else 'false'}\n")
    blocks = [_EXAMPLES[runtime] for runtime in EXAMPLE_IDS if runtime in examples]
    if blocks:
        parts.append("\n" + EXAMPLES_HEADER + "\n")
        parts.append("\n".join(blocks))
    return "".join(parts)

