"""Grouping real reviews: precision and recall of each rule on pairs, and reconcile time.

The data is the shared sample of a public code-review benchmark (``review-dedup``, MIT:
30 pull requests, each reviewed by twelve AI review tools, every comment judged against
the pull request's real defects; see its README). A **pair** is two comments by different
tools on one pull request that both matched a real defect: the same defect (they share a
matched defect) is a pair that must merge, different defects one that must not. Comments
that matched nothing stay in each run as the noise real reviews carry, but form no pair.

Pull requests are split by a hash of their address, per repository: two thirds calibrate
the rule, one third is held out and only measured. Every comment of a pull request is
one finding of one run (channel = tool) in one file:

- **text-only**: every finding at the same line, so the wording alone decides;
- **jitter ±J**: each finding's line moved by a random -J..+J lines (seeded, several seeds
  summed), as reviewers place one defect at the call, the condition or the assignment.

The comments carry no file, line or suggestion (the benchmark's extraction): suggestions
are empty, which lets the reference's rule fuzzy-merge across lines as it does when two
findings' suggestions agree.

    python benchmarks/bench_dedup_real.py [--data PATH] [--study] [--no-timing]
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import random
import re
from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from bench_reconcile import _issue, _measure, _report
from rapidfuzz import fuzz

from mmr.models import Finding
from mmr.reconcile import calibrated
from mmr.reconcile.attributed import Attributed, attribute
from mmr.reconcile.calibrated import THRESHOLD, WINDOW, group_calibrated, similarity
from mmr.reconcile.grouping import Group, Grouper
from mmr.reconcile.normalize import normalize_description
from mmr.reconcile.reconciler import reconcile
from mmr.reconcile.stable_id import description_shingle
from mmr.reconcile.wording import content_words

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "review-dedup" / "reviews.json"
FILE = "src/change.py"
BASE_LINE = 100
SEEDS = range(1, 6)


@dataclass(frozen=True)
class Comment:
    tool: str
    text: str
    defects: frozenset[str]


@dataclass(frozen=True)
class PullRequest:
    url: str
    repository: str
    comments: tuple[Comment, ...]

    def pairs(self) -> list[tuple[int, int, bool]]:
        """Labelled pairs: (comment, comment, same defect) for different tools, both matched."""
        return [
            (i, j, bool(a.defects & b.defects))
            for (i, a), (j, b) in itertools.combinations(enumerate(self.comments), 2)
            if a.tool != b.tool and a.defects and b.defects
        ]


def load(path: Path) -> list[PullRequest]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [
        PullRequest(
            url=pr["pr_url"],
            repository=pr["source_file"],
            comments=tuple(
                Comment(tool, c["text"], frozenset(c["matched_golden_ids"]))
                for tool, comments in pr["tools"].items()
                for c in comments
            ),
        )
        for pr in data["prs"]
    ]


def split(prs: Sequence[PullRequest]) -> tuple[list[PullRequest], list[PullRequest]]:
    """(calibration, held out): per repository in hash order, every third is held out."""
    calibration: list[PullRequest] = []
    held_out: list[PullRequest] = []
    by_repository: dict[str, list[PullRequest]] = defaultdict(list)
    for pr in prs:
        by_repository[pr.repository].append(pr)
    for repository in sorted(by_repository):
        ordered = sorted(by_repository[repository],
                         key=lambda pr: hashlib.sha256(pr.url.encode()).hexdigest())
        for position, pr in enumerate(ordered):
            (held_out if position % 3 == 2 else calibration).append(pr)
    return calibration, held_out


def findings(pr: PullRequest, jitter: int, seed: int) -> tuple[dict[str, list[Finding]],
                                                                 dict[int, int]]:
    """The pull request as one run: findings by tool, and each finding's comment index."""
    rng = random.Random(f"{seed}:{pr.url}")
    channels: dict[str, list[Finding]] = {}
    comment_of: dict[int, int] = {}
    for index, comment in enumerate(pr.comments):
        line = BASE_LINE + (rng.randint(-jitter, jitter) if jitter else 0)
        finding = Finding(severity="P2", location=f"{FILE}:{line}", description=comment.text)
        channels.setdefault(comment.tool, []).append(finding)
        comment_of[id(finding)] = index
    return channels, comment_of


Rule = Callable[[list[Attributed]], list[Group]]


def _reference_rule(attributed: list[Attributed]) -> list[Group]:
    grouper = Grouper(attributed)
    for f in attributed:
        grouper.place(f)
    return grouper.groups


RULES: dict[str, Rule] = {
    "reference (MMR 4.0.1)": _reference_rule,
    "calibrated": group_calibrated,
}


@contextmanager
def _calibrated_with(**values: float) -> Iterator[None]:
    """The calibrated rule with some of its constants changed, for the study."""
    if "WINDOW" in values:
        values["_BUCKET"] = values["WINDOW"] + 1
    saved = {name: getattr(calibrated, name) for name in values}
    for name, value in values.items():
        setattr(calibrated, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(calibrated, name, value)


@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    def __str__(self) -> str:
        return (f"P {self.precision:.3f} R {self.recall:.3f} "
                f"({self.tp:>4}/{self.fp:>3}/{self.fn:>4})")


def score(rule: Rule, prs: Sequence[PullRequest], jitter: int = 0) -> Score:
    """Pair outcomes of ``rule`` over ``prs``, summed over the seeds when lines jitter."""
    total = Score()
    for seed in SEEDS if jitter else (0,):
        for pr in prs:
            channels, comment_of = findings(pr, jitter, seed)
            group_of: dict[int, int] = {}
            for number, group in enumerate(rule(attribute(channels))):
                for member in group.members:
                    group_of[comment_of[id(member.finding)]] = number
            for i, j, same in pr.pairs():
                merged = group_of[i] == group_of[j]
                total.tp += same and merged
                total.fp += merged and not same
                total.fn += same and not merged
    return total


def _row(name: str, rule: Rule, calibration: Sequence[PullRequest],
         held_out: Sequence[PullRequest], jitter: int) -> str:
    mode = f"jitter ±{jitter}" if jitter else "text-only"
    return (f"{name:<26} {mode:<10} | {score(rule, calibration, jitter)} | "
            f"{score(rule, held_out, jitter)}")


def side_by_side(calibration: Sequence[PullRequest], held_out: Sequence[PullRequest],
                 jitters: Sequence[int]) -> None:
    print(f"{'rule':<26} {'mode':<10} | calibration ({len(calibration)} PRs) P R (TP/FP/FN)"
          f"   | held out ({len(held_out)} PRs)")
    for name, rule in RULES.items():
        for jitter in (0, *jitters):
            print(_row(name, rule, calibration, held_out, jitter))


def _shuffled(attributed: list[Attributed], seed: int) -> list[Group]:
    order = list(attributed)
    random.Random(seed).shuffle(order)
    return group_calibrated(order)


_LINE_MENTION = re.compile(r"\blines? ((?:\d+(?:\s*[-–]\s*\d+)?(?:,\s*|\s+and\s+|\s*))+)")
_NUMBER_SPAN = re.compile(r"(\d+)(?:\s*[-–]\s*(\d+))?")


def _mentioned_lines(text: str) -> list[tuple[int, int]]:
    return [(int(m.group(1)), int(m.group(2) or m.group(1)))
            for mention in _LINE_MENTION.finditer(text)
            for m in _NUMBER_SPAN.finditer(mention.group(1))]


def line_evidence(prs: Sequence[PullRequest], raw: dict[str, object]) -> None:
    """What the data says about lines: none carried, a few named in the prose."""
    located = sum(1 for pr in raw["prs"]  # type: ignore[attr-defined]
                  for comments in pr["tools"].values() for c in comments
                  if c["path"] is not None or c["line"] is not None)
    total = sum(len(pr.comments) for pr in prs)
    naming = sum(1 for pr in prs for c in pr.comments if _mentioned_lines(c.text))
    print(f"comments: {total}; with a file or line: {located}; naming a line in the text: "
          f"{naming}")
    gaps: dict[bool, Counter[int]] = {True: Counter(), False: Counter()}
    for pr in prs:
        for i, j, same in pr.pairs():
            a, b = (_mentioned_lines(pr.comments[k].text) for k in (i, j))
            if a and b:
                gap = min(max(0, max(x[0], y[0]) - min(x[1], y[1])) for x in a for y in b)
                gaps[same][gap] += 1
    for same, label in ((True, "same defect"), (False, "different defects")):
        print(f"  pairs of {label} both naming lines: {sum(gaps[same].values())}, "
              f"gap in lines: {dict(sorted(gaps[same].items()))}")


_WORD = re.compile(r"\w+")


def _tfidf(features: list[list[str]]) -> list[dict[str, float]]:
    """Unit TF-IDF vectors (sublinear tf, smoothed idf) over one run's findings."""
    df = Counter(feature for found in features for feature in set(found))
    n = len(features)
    vectors = []
    for found in features:
        weights = {k: (1 + math.log(c)) * (math.log((1 + n) / (1 + df[k])) + 1)
                   for k, c in Counter(found).items()}
        norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
        vectors.append({k: w / norm for k, w in weights.items()})
    return vectors


def _cosine(a: dict[str, float], b: dict[str, float]) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(w * b.get(k, 0.0) for k, w in a.items())


def _char_grams(text: str) -> list[str]:
    joined = " ".join(_WORD.findall(text))
    return [joined[i:i + n] for n in (3, 4, 5) for i in range(len(joined) - n + 1)]


def _measures(pr: PullRequest) -> dict[str, Callable[[int, int], float]]:
    """Each candidate similarity of two comments of ``pr`` (by index)."""
    normalized = [normalize_description(c.text) for c in pr.comments]
    shingles = [frozenset(description_shingle(c.text)) for c in pr.comments]
    words = [content_words(text) for text in normalized]
    cut = [frozenset(w[:6] for w in found) for found in words]
    tfidf_words = _tfidf([_WORD.findall(text.lower()) for text in normalized])
    tfidf_chars = _tfidf([_char_grams(text.lower()) for text in normalized])
    return {
        "shingle Jaccard (5 chars)": lambda i, j: similarity(shingles[i], shingles[j]),
        "content-word Jaccard": lambda i, j: similarity(words[i], words[j]),
        "content words cut to 6": lambda i, j: similarity(cut[i], cut[j]),
        "TF-IDF words, cosine": lambda i, j: _cosine(tfidf_words[i], tfidf_words[j]),
        "TF-IDF char 3-5 grams": lambda i, j: _cosine(tfidf_chars[i], tfidf_chars[j]),
        "token-set ratio": lambda i, j: fuzz.token_set_ratio(normalized[i],
                                                             normalized[j]) / 100,
    }


def _pair_scores(prs: Sequence[PullRequest]) -> dict[str, list[tuple[float, bool]]]:
    scores: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for pr in prs:
        measures = _measures(pr)
        for i, j, same in pr.pairs():
            for name, measure in measures.items():
                scores[name].append((measure(i, j), same))
    return scores


def _at(scored: list[tuple[float, bool]], threshold: float) -> Score:
    result = Score()
    for value, same in scored:
        result.tp += same and value >= threshold
        result.fp += value >= threshold and not same
        result.fn += same and value < threshold
    return result


def _auc(scored: list[tuple[float, bool]]) -> float:
    negatives = sorted(value for value, same in scored if not same)
    positives = [value for value, same in scored if same]
    wins = sum(bisect_left(negatives, v) + (bisect_right(negatives, v)
                                            - bisect_left(negatives, v)) / 2
               for v in positives)
    return wins / (len(positives) * len(negatives))


def representations(calibration: Sequence[PullRequest],
                    held_out: Sequence[PullRequest]) -> None:
    """Each similarity on its own, pair by pair (no grouping): its threshold is the one
    of best F1 on the calibration split, then measured on the held-out one."""
    print("\nrepresentation, pair by pair (threshold of best F1 on calibration):")
    print(f"  {'measure':<26} AUC    threshold  calibration{'':<24}| held out")
    calibrating, holding = _pair_scores(calibration), _pair_scores(held_out)
    for name, scored in calibrating.items():
        def f1(threshold: float, scored: list[tuple[float, bool]] = scored) -> float:
            found = _at(scored, threshold)
            return 2 * found.tp / (2 * found.tp + found.fp + found.fn)
        threshold = max(sorted({round(v, 3) for v, _ in scored}), key=f1)
        print(f"  {name:<26} {_auc(scored):.3f}  {threshold:<9}  {_at(scored, threshold)} | "
              f"{_at(holding[name], threshold)}")


def study(calibration: Sequence[PullRequest], held_out: Sequence[PullRequest]) -> None:
    """The choices behind the rule: representation, threshold, agglomeration, window."""
    representations(calibration, held_out)
    print("\nthreshold (average linkage, text-only):        calibration | held out")
    for threshold in (0.08, 0.10, 0.11, 0.12, 0.13, 0.14, 0.16, 0.20):
        with _calibrated_with(THRESHOLD=threshold):
            cells = f"{score(group_calibrated, calibration)} | {score(group_calibrated, held_out)}"
        print(f"  {threshold:<9} {cells}")
    print("\nvisiting order (10 shuffled orders, text-only): range of P and R")
    for greedy in (True, False):
        for name, prs in (("calibration", calibration), ("held out", held_out)):
            with _calibrated_with(CLUSTER_LIMIT=0 if greedy else calibrated.CLUSTER_LIMIT):
                found = [score(partial(_shuffled, seed=seed), prs) for seed in range(10)]
            print(f"  {'greedy' if greedy else 'agglomerative':<14} {name:<12} "
                  f"P {min(s.precision for s in found):.3f}-"
                  f"{max(s.precision for s in found):.3f}  "
                  f"R {min(s.recall for s in found):.3f}-{max(s.recall for s in found):.3f}")
    print("\nwindow (calibration split, recall under jitter):")
    for window in (0, 2, 3, 5, 8, 10):
        with _calibrated_with(WINDOW=window):
            cells = "  ".join(f"±{j}: R {score(group_calibrated, calibration, j).recall:.3f}"
                              for j in (2, 3, 5))
        print(f"  {window:<3} {cells}")


def _spread(total: int, channels: int, files: Sequence[str], seed: int,
            ) -> dict[str, list[Finding]]:
    """``bench_reconcile.make_channels`` over the given files: overlapping reports."""
    rng = random.Random(seed)
    issues = [_issue(rng, list(files)) for _ in range(total // 2)]
    names = [f"channel{i}" for i in range(channels)]
    out: dict[str, list[Finding]] = {name: [] for name in names}
    per_channel = total // channels
    while any(len(found) < per_channel for found in out.values()):
        issue = rng.choice(issues)
        for name in rng.sample(names, rng.randint(1, channels)):
            if len(out[name]) < per_channel:
                out[name].append(_report(rng, issue))
    return out


def _unrelated_on_one_line(total: int, channels: int, seed: int) -> dict[str, list[Finding]]:
    """Adversarial: ``total`` findings of 9 random words each, all at one line."""
    rng = random.Random(seed)
    vocabulary = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=7)) for _ in range(2_000)]
    return {f"channel{c}": [Finding(severity="P2", location="src/a.py:1",
                                    description=" ".join(rng.sample(vocabulary, 9)),
                                    suggestion="") for _ in range(total // channels)]
            for c in range(channels)}


def timing(runs: int, seed: int) -> None:
    cases = (("500 findings x 8 channels, 100 files",
              _spread(4_000, 8, [f"src/pkg{i % 17}/module_{i}.py" for i in range(100)], seed)),
             ("4,000 findings on one file (8 channels)",
              _spread(4_000, 8, ["src/big_module.py"], seed)),
             ("4,000 unrelated findings on one line (adversarial)",
              _unrelated_on_one_line(4_000, 8, seed)))
    print(f"\nreconcile time, median of {runs} runs (reference | calibrated | ratio):")
    for name, data in cases:
        reference = partial(reconcile, data, rule="reference")
        calibrated = partial(reconcile, data, rule="calibrated")
        today = _measure(reference, runs)[0]
        mine = _measure(calibrated, runs)[0]
        groups = (len(reference()), len(calibrated()))
        print(f"  {name:<42} {today:.3f} s | {mine:.3f} s | {mine / today:.2f}x  "
              f"(groups {groups[0]} | {groups[1]})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--jitter", type=int, nargs="*", default=[3, 5, 8])
    parser.add_argument("--study", action="store_true",
                        help="also the threshold, visiting-order and window comparisons")
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    prs = load(args.data)
    calibration, held_out = split(prs)
    print(f"calibrated rule: same file, line ranges within {WINDOW} lines, mean content-word "
          f"Jaccard >= {THRESHOLD} (average linkage, agglomerative)")
    print(f"pairs: calibration {sum(len(pr.pairs()) for pr in calibration)}, held out "
          f"{sum(len(pr.pairs()) for pr in held_out)} (positives "
          f"{sum(s for pr in calibration for *_, s in pr.pairs())} / "
          f"{sum(s for pr in held_out for *_, s in pr.pairs())})\n")
    side_by_side(calibration, held_out, args.jitter)
    if args.study:
        print()
        line_evidence(prs, json.loads(args.data.read_text(encoding="utf-8")))
        study(calibration, held_out)
    if not args.no_timing:
        timing(args.runs, args.seed)


if __name__ == "__main__":
    main()
