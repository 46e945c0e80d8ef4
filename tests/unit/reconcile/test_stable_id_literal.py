"""The optimised normalisers agree with a literal, unoptimised reading of the
``finding_key`` rules.

``stable_id`` skips regexes that cannot match, uses ``str.split`` where it equals the
JavaScript whitespace rule, and slices grams without encoding. This file restates the
normalisation, the grams and the key step by step, with none of those shortcuts, and
checks both agree on generated text rich in the constructs the rules care about.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from mmr.reconcile.stable_id import (
    description_shingle,
    normalize_description,
    normalize_location,
    normalize_suggestion,
)

WS = "\t\n\x0b\x0c\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008" \
     "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
C = "[" + "".join(f"\\u{ord(c):04x}" for c in WS) + "]"
AI = re.ASCII | re.IGNORECASE


def trim(s: str) -> str:
    return s.strip(WS)


def assemble(text: str, prose: Callable[[str], str]) -> str:
    parts: list[str] = []

    def push(part: str, flag: bool) -> None:
        if part == "":
            return
        if parts and flag:
            parts.append(" ")
        parts.append(part)

    last = 0
    for m in re.finditer(r"`([^`]*)`", text):
        before = text[last:m.start()]
        push(prose(before), before[:1] != "" and before[0] in WS)
        push("`" + m.group(1) + "`", before[-1:] != "" and before[-1] in WS)
        last = m.end()
    tail = text[last:]
    push(prose(tail), tail[:1] != "" and tail[0] in WS)
    return trim("".join(parts))


UNIT = re.compile(C + r"*(?:%|\b(?:seconds?|minutes?|hours?|items?|bytes?|kb|mb|gb|pixels?"
                  r"|elements?|chars?|characters?|ms|s)\b)", AI)
VERB = re.compile(r"\b(?:found|reported|detected|raised|located|declared|defined)" + C + r"+\Z",
                  AI)


def desc_prose(seg: str) -> str:
    s = seg.lower()
    s = re.sub(r"\b(?:at" + C + r"+)?line \d+\b", "", s, flags=AI)
    original = s

    def at(m: re.Match[str]) -> str:
        if UNIT.match(original[m.end():]):
            return m.group(0)
        if VERB.search(original[:m.start()]):
            return ""
        return m.group(0)

    s = re.sub(r"\bat \d+(?!\.\d)(?!\d)\b\.?", at, s, flags=AI)
    s = re.sub(r"\A" + C + r"*(?:p[0-3]|critical|high|medium|low|info)" + C + r"*:" + C + "*",
               "", s, count=1, flags=AI)
    return trim(re.sub(C + "+", " ", s))


def sug_prose(seg: str) -> str:
    def fold(m: re.Match[str]) -> str:
        t = m.group(0)
        mixed = (re.search(r"[a-z][A-Z]", t) or re.search(r"[A-Z][a-z]+[A-Z]", t)
                 or re.search(r"[A-Z]{2,}[a-z]", t)
                 or (re.fullmatch(r"[A-Z0-9_]+", t) and len(t) >= 3))
        return t if mixed else t.lower()

    return trim(re.sub(C + "+", " ", re.sub(r"[A-Za-z][A-Za-z0-9_]*", fold, seg)))


def shingle(description: str) -> list[str]:
    n = assemble(description, desc_prose)
    units = n.encode("utf-16-le", "surrogatepass")
    if len(units) // 2 < 5:
        return []
    text = assemble(n, lambda seg: re.sub(r"\b(?:must|should)\b", "should", seg, flags=re.ASCII))
    units = text.encode("utf-16-le", "surrogatepass")
    grams = [units[i:i + 10] for i in range(0, len(units) - 8, 2)]
    return [g.decode("utf-16-le", "surrogatepass") for g in dict.fromkeys(grams)]


FRAGMENTS = [
    "at line 5", "line 12", "at\u00a0line 3", "found at 42.", "reported  at 7", "at 30 seconds",
    "at 95%", "at 0.5", "at 10 ms", "at 3s", "P1:", "high :", " critical: ", "info:", "`code`",
    "`", "``", "`Mixed Case`", "must", "should", "émust", "éline 5", "x", "Foo", "fooBar",
    "HTTPServer", "MAX_RETRIES", "ID", "NOT", "İ", "Σ", "😀", "\ud83d", " ", "  ", "\t", "\n",
    "\u00a0", "\u2028", "\ufeff", "\x1f", "\x85", ".", ":", "-", "9", "a", "_x", "line", "at",
]
TEXT = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=3), max_size=14).map("".join)


@settings(max_examples=600, deadline=None)
@given(TEXT)
def test_description_and_shingle_match_a_literal_reading(text: str) -> None:
    assert normalize_description(text) == assemble(text, desc_prose)
    assert description_shingle(text) == shingle(text)


@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_suggestion_matches_a_literal_reading(text: str) -> None:
    assert normalize_suggestion(text) == assemble(text, sug_prose)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_location_matches_a_literal_reading(text: str) -> None:
    expected = re.sub(r"(?::\d+(?::\d+)?(?:-\d+)?|" + C + r"*\(line \d+\))\Z", "",
                      trim(text.lower()), count=1, flags=AI)
    assert normalize_location(text) == expected
