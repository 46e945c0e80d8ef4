"""The offline token estimate, shard cuts and generated-file detection (issue 30)."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from mmr.diff.generated import generated_files, is_generated
from mmr.diff.shards import estimate_tokens, shard_diff
from mmr.unidiff.sections import split_sections

#: Real diffs of another project (not among those the weights were fitted on) and their
#: token counts by a real tokenizer (cl100k_base), made by benchmarks/fit_token_estimate.py's
#: tokenizer; mmr itself never loads one.
COUNTS = Path(__file__).parents[2] / "data" / "token_counts.json"


def file_diff(path: str, hunks: int = 1, lines: int = 10) -> str:
    out = [f"diff --git a/{path} b/{path}\n", "index 1111111..2222222 100644\n",
           f"--- a/{path}\n", f"+++ b/{path}\n"]
    for h in range(hunks):
        start = 1 + h * 100
        out.append(f"@@ -{start},{lines} +{start},{lines} @@ def f{h}():\n")
        out += [f"-    value = compute_{h}_{n}(alpha, beta)\n" for n in range(lines // 2)]
        out += [f"+    value = compute_{h}_{n}(alpha, gamma)\n" for n in range(lines // 2)]
        out += [f"     keep_{h}_{n}()\n" for n in range(lines - lines // 2)]
    return "".join(out)


def test_the_estimate_is_calibrated_on_real_diffs() -> None:
    samples = json.loads(COUNTS.read_text())["samples"]
    ours = sorted(abs(estimate_tokens(s["diff"]) - s["cl100k_tokens"]) / s["cl100k_tokens"]
                  for s in samples)
    quarter = sorted(abs(len(s["diff"].encode()) / 4 - s["cl100k_tokens"]) / s["cl100k_tokens"]
                     for s in samples)
    assert statistics.median(ours) < 0.08
    assert ours[int(0.95 * (len(ours) - 1))] < 0.2
    assert statistics.median(ours) < statistics.median(quarter) / 2


def test_the_estimate_counts_characters_by_class() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("x" * 400) < estimate_tokens("7" * 400)  # digits split more
    assert estimate_tokens("é" * 100) > estimate_tokens("e" * 100)


def test_shards_cut_at_file_boundaries_within_the_budget() -> None:
    diff = "".join(file_diff(f"src/m{i:02d}.py") for i in range(12))
    size = estimate_tokens(file_diff("src/m00.py"))
    shards = shard_diff(diff, 3 * size + 5)
    assert len(shards) == 4
    assert "".join(s.diff for s in shards) == diff
    for shard in shards:
        assert shard.tokens <= 3 * size + 5
        assert abs(shard.tokens - estimate_tokens(shard.diff)) <= len(shard.files)  # rounding
        assert [s.display_path for s in split_sections(shard.diff)[1]] == list(shard.files)
    assert [f for s in shards for f in s.files] == [f"src/m{i:02d}.py" for i in range(12)]


def test_a_large_file_is_cut_at_hunk_boundaries_under_its_header() -> None:
    big = file_diff("src/big.py", hunks=6)
    one_hunk = estimate_tokens(file_diff("src/big.py"))
    shards = shard_diff(file_diff("src/a.py") + big, 2 * one_hunk)
    assert len(shards) > 2
    pieces = [s for s in shards if "src/big.py" in s.files]
    assert len(pieces) >= 3
    for shard in pieces:
        assert shard.diff.count("diff --git a/src/big.py b/src/big.py\n") == 1
        assert shard.tokens <= 2 * one_hunk
    hunks = [line for s in pieces for line in s.diff.splitlines() if line.startswith("@@")]
    assert hunks == [line for line in big.splitlines() if line.startswith("@@")]


def test_a_diff_that_fits_is_one_shard() -> None:
    diff = file_diff("a.py") + file_diff("b.py")
    assert [(s.diff, s.files) for s in shard_diff(diff, 10_000)] == [(diff, ("a.py", "b.py"))]


def test_well_known_generated_vendored_and_lock_files() -> None:
    for path in ("package-lock.json", "web/yarn.lock", "Cargo.lock", "static/app.min.js",
                 "vendor/lib/x.go", "api/v1/svc.pb.go", "go.sum"):
        assert is_generated(path, []), path
    for path in ("src/app.py", "lock.py", "docs/vendor.md", "package.json"):
        assert not is_generated(path, []), path


def test_gitattributes_marks_and_unmarks_and_the_last_rule_wins() -> None:
    diff = (file_diff("gen/api.py") + file_diff("package-lock.json") + file_diff("src/a.py")
            + file_diff("third/x.c"))
    attributes = ("# generated code\n\ngen/** linguist-generated\n"
                  "package-lock.json -linguist-generated\n"
                  "third/* linguist-vendored=true\nthird/x.c linguist-vendored=false\n")
    found = generated_files(diff, attributes)
    assert [(g.path, g.added, g.removed) for g in found] == [("gen/api.py", 5, 5)]
    assert found[0].line() == '"gen/api.py" (+5 -5 lines)'
    assert [g.path for g in generated_files(diff, None)] == ["package-lock.json"]


def test_a_generated_files_counts_read_removed_dash_lines_as_lines() -> None:
    """A removed SQL comment (``-- old``) reads ``--- old`` in the diff: a line, not a header."""
    diff = ("diff --git a/db/schema.sql b/db/schema.sql\n--- a/db/schema.sql\n"
            "+++ b/db/schema.sql\n@@ -1,2 +1,1 @@\n--- old comment\n-DROP TABLE t;\n"
            "+-- new comment\n")
    [found] = generated_files(diff, "db/schema.sql linguist-generated\n")
    assert (found.path, found.added, found.removed) == ("db/schema.sql", 1, 2)
