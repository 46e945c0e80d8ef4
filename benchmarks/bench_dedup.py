"""Precision and recall of merging two findings at one line (issue 13 item 6).

Scores the reference's rule (description shingle Jaccard >= 0.7) and the calibrated
rule's measure (that, or content-word Jaccard >= its threshold) on the labelled pairs in
``data/dedup_pairs.py``. Both findings of a pair share location, category and suggestion,
so only the wording decides.

    python benchmarks/bench_dedup.py [--show-misses]
"""

from __future__ import annotations

import argparse

from data.dedup_pairs import labelled_pairs

from mmr.models import Finding
from mmr.reconcile.calibrated import THRESHOLD, similarity
from mmr.reconcile.grouping import FUZZY_THRESHOLD
from mmr.reconcile.stable_id import identify, jaccard
from mmr.reconcile.wording import content_words


def _ident(text: str):  # type: ignore[no-untyped-def]
    return identify(Finding(severity="P1", location="a.py:1", description=text, suggestion="x"))


def reference_rule(a: str, b: str) -> bool:
    ia, ib = _ident(a), _ident(b)
    if ia.finding_key == ib.finding_key:
        return True
    a, b = frozenset(ia.description_shingle), frozenset(ib.description_shingle)
    return bool(a and b and jaccard(a, b) >= FUZZY_THRESHOLD)


def mmr_rule(a: str, b: str) -> bool:
    ia, ib = _ident(a), _ident(b)
    return reference_rule(a, b) or similarity(content_words(ia.normalized_description),
                                              content_words(ib.normalized_description)) >= THRESHOLD


def score(rule, pairs):  # type: ignore[no-untyped-def]
    tp = sum(1 for a, b, same in pairs if same and rule(a, b))
    fp = sum(1 for a, b, same in pairs if not same and rule(a, b))
    fn = sum(1 for a, b, same in pairs if same and not rule(a, b))
    precision = tp / (tp + fp) if tp + fp else 1.0
    return precision, tp / (tp + fn), tp, fp, fn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args()
    pairs = labelled_pairs()
    positives = sum(same for *_, same in pairs)
    negatives = len(pairs) - positives
    print(f"{len(pairs)} labelled pairs: {positives} same issue, {negatives} different")
    for name, rule in (("reference: shingle Jaccard >= 0.7", reference_rule),
                       (f"mmr: reference or content words >= {THRESHOLD}", mmr_rule)):
        precision, recall, tp, fp, fn = score(rule, pairs)
        print(f"{name:<42} precision {precision:.3f}  recall {recall:.3f}  "
              f"(TP {tp}, FP {fp}, FN {fn})")
        if args.show_misses:
            for a, b, same in pairs:
                if rule(a, b) != same:
                    print(f"    {'FN' if same else 'FP'}: {a!r} / {b!r}")


if __name__ == "__main__":
    main()
