"""What counts as a documented ``mmr`` example (tests/docs/doc_examples.py)."""

from __future__ import annotations

from pathlib import Path

from tests.docs.doc_examples import examples, runs_mmr, split_comment

DOC = '''# Page

```sh
# a comment line, not an example
mmr review --base main   # the comment is not part of the command
git diff | mmr review --diff - --sync
pip install . && mmr doctor
_MMR_COMPLETE=source_bash mmr > out.bash
mmr explore --root . \\
    --question "where # is it?"
pre-commit install
```

```console
$ mmr status <job-id>
{"status": "completed"}
```

```yaml
run: mmr review --sync
```

```
mmr doctor [--fix]
```
'''


def test_shell_lines_that_run_mmr_are_examples(tmp_path: Path) -> None:
    page = tmp_path / "docs" / "page.md"
    page.parent.mkdir()
    page.write_text(DOC, encoding="utf-8")
    found = examples([page], root=tmp_path)
    assert [(e.line, e.command, e.comment) for e in found] == [
        (5, "mmr review --base main", "the comment is not part of the command"),
        (6, "git diff | mmr review --diff - --sync", ""),
        (7, "pip install . && mmr doctor", ""),
        (8, "_MMR_COMPLETE=source_bash mmr > out.bash", ""),
        (9, 'mmr explore --root . --question "where # is it?"', ""),
        (15, "mmr status <job-id>", ""),
    ]
    assert found[0].key == "docs/page.md: mmr review --base main"


def test_runs_mmr_and_comments() -> None:
    assert not runs_mmr("echo mmr review")
    assert not runs_mmr("mmrx review")
    assert runs_mmr("cd repo; mmr review")
    assert split_comment("mmr a '#not' b # yes") == ("mmr a '#not' b", "yes")
