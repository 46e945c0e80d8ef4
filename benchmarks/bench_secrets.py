"""Credential detection side by side: mmr, detect-secrets 1.5.0, gitleaks' default rules.

    pip install -e '.[bench]'          # detect-secrets, benchmark only
    python benchmarks/bench_secrets.py [--gitleaks PATH] [--fp-lines N]

1. Coverage on tests/secrets_corpus.py (fake values generated to each vendor's format, in
   every rendering): per family, the cases each tool catches. mmr counts a case only when
   none of its secret text survives redaction; the scanners count it when they flag any of
   its lines.
2. False positives on real third-party code (rich, httpx, pydantic, click from this venv's
   site-packages, read at run time, never committed): every mmr redaction is listed with
   the reason it is there; the scanners' hit counts are printed beside it.
3. Time to redact a diff of 10,000 added lines of that code (median of 7 runs).

gitleaks' rules are read from its TOML (run as data, never copied): regexes translated
from Go syntax where needed (rules that still do not compile are counted and skipped),
keywords, entropy thresholds, ``secretGroup`` and rule and global allowlists.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import math
import os
import re
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.secrets_corpus import (  # noqa: E402
    build_corpus,
    corpus_diff,
    corpus_files,
    file_text,
)

from mmr.secrets.credentials import redact_diff  # noqa: E402

DEFAULT_GITLEAKS = ROOT.parent / "shared" / "data" / "gitleaks" / "gitleaks.toml"
#: The previous tree's sources (read-only): its rules run beside the current ones
#: (``MMR_BENCH_PREVIOUS_SRC`` names another).
PREVIOUS_SRC = Path(os.environ.get("MMR_BENCH_PREVIOUS_SRC", "/work/baseline/src"))
_PREVIOUS_SCRIPT = (
    "import json, sys\n"
    "from mmr.secrets.credentials import redact_diff\n"
    "text, hits = redact_diff(sys.stdin.read())\n"
    "print(json.dumps({'text': text, 'hits': [[h.file, h.line, h.kind] for h in hits]}))\n")


def previous_redact(diff: str, src: Path = PREVIOUS_SRC) -> tuple[str, list[list[Any]]] | None:
    """The previous rules' redacted diff and hits (file, line, kind), run in a child
    process on the previous tree's sources; None when that tree is absent."""
    if not (src / "mmr").is_dir():
        return None
    done = subprocess.run([sys.executable, "-c", _PREVIOUS_SCRIPT], input=diff, text=True,
                          capture_output=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(src)})
    data = json.loads(done.stdout)
    return data["text"], data["hits"]
FP_PACKAGES = ("rich", "httpx", "pydantic", "click")

#: Why each known mmr hit on third-party code is there: (file suffix, kind) -> reason.
FP_REASONS: dict[tuple[str, str], str] = {
    ("httpx/_urls.py", "url-password"): "docstring/example URL with a literal password "
    "(`user:a%20secret@host`): credential-shaped by design; only the password is hidden",
    ("httpx/_urls.py", "password"): "example `password=\"a secret\"` keyword argument in a "
    "docstring: a hard-coded password literal in form; the code around it stays",
}


# --------------------------------------------------------------------------- gitleaks

@dataclass
class GitleaksRule:
    id: str
    pattern: re.Pattern[str]
    keywords: tuple[str, ...]
    entropy: float | None
    group: int | None
    allow: list[dict[str, Any]]


def _go_to_python(source: str) -> tuple[str, int]:
    flags = 0
    if "(?i)" in source[1:]:
        source = source[:4] + source[4:].replace("(?i)", "") if source.startswith("(?i)") \
            else source.replace("(?i)", "")
        flags = re.IGNORECASE
    for posix, py in (("[:alnum:]", "A-Za-z0-9"), ("[:alpha:]", "A-Za-z"),
                      ("[:digit:]", "0-9"), ("[:space:]", r"\s"), ("[:upper:]", "A-Z"),
                      ("[:lower:]", "a-z"), ("[:xdigit:]", "0-9A-Fa-f"), ("[:word:]", r"\w")):
        source = source.replace(posix, py)
    return source.replace(r"\z", r"\Z"), flags


def load_gitleaks(path: Path) -> tuple[list[GitleaksRule], dict[str, Any], int]:
    data = tomllib.loads(path.read_text())
    rules, skipped = [], 0
    for rule in data["rules"]:
        if "regex" not in rule:
            skipped += 1
            continue
        source, flags = _go_to_python(rule["regex"])
        try:
            pattern = re.compile(source, flags)
        except re.error:
            skipped += 1
            continue
        allow = []
        for entry in rule.get("allowlists", []):
            compiled = []
            for regex in entry.get("regexes", []):
                with contextlib.suppress(re.error):
                    compiled.append(re.compile(*_go_to_python(regex)))
            allow.append({**entry, "compiled": compiled})
        rules.append(GitleaksRule(rule["id"], pattern,
                                  tuple(k.lower() for k in rule.get("keywords", ())),
                                  rule.get("entropy"), rule.get("secretGroup"), allow))
    glob = data.get("allowlist", {})
    glob_regexes = []
    for regex in glob.get("regexes", []):
        with contextlib.suppress(re.error):
            glob_regexes.append(re.compile(*_go_to_python(regex)))
    return rules, {"regexes": glob_regexes, "stopwords": glob.get("stopwords", [])}, skipped


def _entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _allowed(rule: GitleaksRule, secret: str, match: str, line: str) -> bool:
    for entry in rule.allow:
        if entry.get("paths"):
            continue  # path allowlists: the corpus paths are not vendored code
        target = {"match": match, "line": line}.get(entry.get("regexTarget", ""), secret)
        hits = [any(r.search(target) for r in entry["compiled"])] if entry["compiled"] else []
        if entry.get("stopwords"):
            hits.append(any(w in secret.lower() for w in entry["stopwords"]))
        if hits and (all(hits) if entry.get("condition") == "AND" else any(hits)):
            return True
    return False


def gitleaks_lines(text: str, rules: list[GitleaksRule], glob: dict[str, Any]) -> set[int]:
    """1-based line numbers where a gitleaks rule reports a finding."""
    lower = text.lower()
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    found: set[int] = set()
    for rule in rules:
        if rule.keywords and not any(k in lower for k in rule.keywords):
            continue
        for m in rule.pattern.finditer(text):
            groups = [g for g in m.groups() if g]
            secret = m.group(rule.group) if rule.group else (groups[0] if groups else m.group())
            if secret is None or (rule.entropy and _entropy(secret) < rule.entropy):
                continue
            line_start = text.rfind("\n", 0, m.start()) + 1
            line_end = text.find("\n", m.end())
            line = text[line_start:line_end if line_end >= 0 else len(text)]
            if _allowed(rule, secret, m.group(), line):
                continue
            if any(r.search(secret) for r in glob["regexes"]) or any(
                    w in secret.lower() for w in glob["stopwords"]):
                continue
            first = _line_of(starts, m.start())
            found.update(range(first, _line_of(starts, max(m.start(), m.end() - 1)) + 1))
    return found


def _line_of(starts: list[int], offset: int) -> int:
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo + 1


# ---------------------------------------------------------------------- detect-secrets

def detect_secrets_lines(files: dict[str, str]) -> dict[str, set[int]] | None:
    """Per file, the lines detect-secrets (all default plugins and filters) flags."""
    if importlib.util.find_spec("detect_secrets") is None:
        return None
    from detect_secrets.core.scan import scan_file
    from detect_secrets.settings import default_settings

    out: dict[str, set[int]] = {}
    with tempfile.TemporaryDirectory() as tmp, default_settings():
        for path, text in files.items():
            target = Path(tmp) / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
            out[path] = {secret.line_number for secret in scan_file(str(target))}
    return out


# ---------------------------------------------------------------------------- coverage

def coverage(gitleaks: Path) -> None:
    cases = build_corpus()
    files = corpus_files(cases)
    texts = {path: file_text(entries) for path, entries in files.items()}
    redacted, _ = redact_diff(corpus_diff(cases))
    previous = previous_redact(corpus_diff(cases))
    rules, glob, skipped = load_gitleaks(gitleaks)
    leaks = {path: gitleaks_lines(text, rules, glob) for path, text in texts.items()}
    started = time.perf_counter()
    detect = detect_secrets_lines(texts)
    detect_time = time.perf_counter() - started
    rows: dict[str, Counter[str]] = {}
    renderings: dict[str, Counter[str]] = {}
    for path, entries in files.items():
        for case, start in entries:
            span = set(range(start, start + len(case.lines)))
            caught = {
                "mmr": not any(secret in redacted for secret in case.secrets),
                "previous": previous is not None and not any(
                    secret in previous[0] for secret in case.secrets),
                "detect-secrets": detect is not None and bool(detect[path] & span),
                "gitleaks": bool(leaks[path] & span),
            }
            for table, key in ((rows, case.family), (renderings, case.rendering)):
                counter = table.setdefault(key, Counter())
                counter["cases"] += 1
                counter.update(tool for tool, hit in caught.items() if hit)
    print(f"## Coverage: {len(cases)} cases, {len(rows)} families "
          f"(gitleaks: {len(rules)} rules run, {skipped} skipped as not compiling)\n")
    _table("family", rows)
    print()
    _table("rendering", renderings)
    print(f"\ndetect-secrets scan time over the corpus: {detect_time:.2f} s")


def _table(title: str, rows: dict[str, Counter[str]]) -> None:
    tools = ("mmr", "previous", "detect-secrets", "gitleaks")
    print(f"| {title} | cases | " + " | ".join(tools) + " |")
    print("|---|---:|" + "---:|" * len(tools))
    total: Counter[str] = Counter()
    for key, counter in rows.items():
        total.update(counter)
        print(f"| {key} | {counter['cases']} | "
              + " | ".join(str(counter[t]) for t in tools) + " |")
    print(f"| **all** | {total['cases']} | " + " | ".join(
        f"{total[t]} ({100 * total[t] / total['cases']:.0f} %)" for t in tools) + " |")


# -------------------------------------------------------------------- false positives

def stdlib_files() -> dict[str, str]:
    """Every ``.py`` file of the Python standard library (tests included), by path."""
    root = Path(sysconfig.get_paths()["stdlib"])
    return {f"stdlib/{path.relative_to(root)}": path.read_text(errors="replace")
            for path in sorted(root.rglob("*.py")) if "site-packages" not in path.parts}


def third_party_files(limit_lines: int) -> dict[str, str]:
    """``package/relative/path.py`` -> text, up to ``limit_lines`` lines per package."""
    out: dict[str, str] = {}
    for package in FP_PACKAGES:
        spec = importlib.util.find_spec(package)
        if spec is None or spec.origin is None:
            continue
        root = Path(spec.origin).parent
        budget = limit_lines
        for path in sorted(root.rglob("*.py")):
            text = path.read_text(errors="replace")
            out[f"{package}/{path.relative_to(root)}"] = text
            budget -= text.count("\n")
            if budget <= 0:
                break
    return out


def added_diff(files: dict[str, str]) -> str:
    out = []
    for path, text in files.items():
        lines = text.splitlines()
        if lines:
            out.append(f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n"
                       f"+++ b/{path}\n@@ -0,0 +1,{len(lines)} @@\n"
                       + "".join(f"+{line}\n" for line in lines))
    return "".join(out)


def false_positives(gitleaks: Path, limit_lines: int) -> None:
    files = third_party_files(limit_lines)
    diff = added_diff(files)
    total = sum(text.count("\n") for text in files.values())
    redacted, hits = redact_diff(diff)
    print(f"\n## False positives: {total} lines of {', '.join(FP_PACKAGES)} "
          f"({len(files)} files)\n")
    print(f"mmr: {len(hits)} redaction(s), {total / max(len(hits), 1):.0f} lines per "
          "redaction" if hits else "mmr: 0 redactions")
    lines = redacted.splitlines()
    by_location = {(h.file, h.line) for h in hits}
    index = 0
    current = None
    for line in lines:
        if line.startswith("+++ b/"):
            current, index = line[6:], 0
        elif line.startswith("+") and current is not None:
            index += 1
            if (current, index) in by_location:
                kinds = [h.kind for h in hits if (h.file, h.line) == (current, index)]
                reason = next((r for (suffix, kind), r in FP_REASONS.items()
                               if current.endswith(suffix) and kind in kinds), "UNEXPLAINED")
                print(f"- {current}:{index} {','.join(kinds)}: `{line[1:].strip()[:90]}`"
                      f" — {reason}")
    previous = previous_redact(diff)
    print(f"\nprevious rules: {'n/a' if previous is None else len(previous[1])} redaction(s)")
    rules, glob, _ = load_gitleaks(gitleaks)
    leak_count = sum(len(gitleaks_lines(text, rules, glob)) for text in files.values())
    detect = detect_secrets_lines(files)
    detect_count = "n/a" if detect is None else str(sum(map(len, detect.values())))
    print(f"\ndetect-secrets: {detect_count} flagged lines; gitleaks rules: {leak_count}")


def stdlib_false_positives() -> None:
    """The whole standard library, current and previous rules: hits per kind, lines a hit."""
    files = stdlib_files()
    diff = added_diff(files)
    total = sum(text.count("\n") for text in files.values())
    _, hits = redact_diff(diff)
    previous = previous_redact(diff)
    print(f"\n## False positives: the standard library, {total} lines ({len(files)} files)\n")
    for name, found in (("mmr", [h.kind for h in hits]),
                        ("previous", None if previous is None else [h[2] for h in previous[1]])):
        if found is None:
            print(f"- {name}: n/a")
            continue
        rate = f"1 per {total // max(len(found), 1)} lines" if found else "none"
        print(f"- {name}: {len(found)} redaction(s), {rate}: {dict(Counter(found))}")


# ------------------------------------------------------------------------------- time

def timing(gitleaks: Path) -> None:
    files = third_party_files(12_000)
    lines = [line for text in files.values() for line in text.splitlines()][:10_000]
    diff = ("diff --git a/x.py b/x.py\n--- /dev/null\n+++ b/x.py\n"
            f"@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{line}\n" for line in lines))
    runs = []
    for _ in range(7):
        start = time.perf_counter()
        redact_diff(diff)
        runs.append(time.perf_counter() - start)
    print(f"\n## Time: redacting {len(lines)} added lines ({len(diff) // 1024} KB): "
          f"median {statistics.median(runs):.3f} s, min {min(runs):.3f} s (target < 0.2 s)")
    text = "\n".join(lines) + "\n"
    started = time.perf_counter()
    detect_secrets_lines({"x.py": text})
    print(f"detect-secrets, same lines (one scan): {time.perf_counter() - started:.3f} s")
    rules, glob, _ = load_gitleaks(gitleaks)
    started = time.perf_counter()
    gitleaks_lines(text, rules, glob)
    print(f"gitleaks rules in Python re, same lines (one scan): "
          f"{time.perf_counter() - started:.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gitleaks", type=Path, default=DEFAULT_GITLEAKS)
    parser.add_argument("--fp-lines", type=int, default=12_000,
                        help="lines of third-party source per package")
    args = parser.parse_args()
    coverage(args.gitleaks)
    false_positives(args.gitleaks, args.fp_lines)
    stdlib_false_positives()
    timing(args.gitleaks)


if __name__ == "__main__":
    main()
