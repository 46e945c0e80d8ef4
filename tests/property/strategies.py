"""Hostile inputs shared by the properties: text, JSON-ish replies, parser specs, names.

Text here is deliberately worse than anything a decoder hands mmr: it includes lone
surrogates (``characters(exclude_categories=())``), NUL and every control character,
and text made from random bytes decoded both with ``errors="replace"`` and with
``errors="surrogateescape"`` (how mmr reads diffs, CLI output and stored files).
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from mmr.parsers.registry import registered_names

#: Any code point, surrogates and controls included.
ANY_CHAR = st.characters(exclude_categories=())
ANY_TEXT = st.text(ANY_CHAR, max_size=80)


def _decoded(errors: str) -> st.SearchStrategy[str]:
    return st.binary(max_size=120).map(lambda data: data.decode("utf-8", errors=errors))


#: Text as decoders produce it from arbitrary bytes.
DECODED_TEXT = st.one_of(_decoded("replace"), _decoded("surrogateescape"))

# Pieces of replies: JSON punctuation, the keys parsers look for, fences, markdown blocks.
_REPLY_TOKENS = [
    "{", "}", "[", "]", '"', "\\", ",", ":", " ", "\n", "\r\n", "\t", "\x00", "```json\n",
    "```", '"approved"', '"findings"', '"summary"', '"severity"', '"location"',
    '"description"', '"suggestion"', '"result"', '"text"', '"is_error"', '"stopReason"',
    "true", "false", "null", "NaN", "Infinity", "-0", "1e999999", "9" * 400, "9" * 5000,
    '"P0"', '"P1"', '"P9"', '"\\ud800"', '"\\u0000"', "\udcff", "\ud83d", "### [BLOCKER] ",
    "### [NIT] ", "### [SHOULD-FIX] ", "a.py:3", "../../etc/passwd:1", "src/x.ts:1-9",
    "NO FINDINGS", "Category: security", "Confidence: suspected", "Suggestion: ", '"Cancelled"',
    "P1|a:1|x", "\u2028", "\ufeff",
]
REPLYISH = st.lists(
    st.sampled_from(_REPLY_TOKENS) | st.text(ANY_CHAR, max_size=4), max_size=60
).map("".join)

_KEYS = [
    "approved", "findings", "summary", "severity", "location", "description", "suggestion",
    "id", "category", "result", "text", "is_error", "stopReason", "choices", "message",
    "content", "__proto__", "constructor", "",
]
JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=10**300, max_value=10**320),
    st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(["P0", "P1", "P3", "p1"]),
    st.text(ANY_CHAR, max_size=20),
)
JSON_VALUES: st.SearchStrategy[Any] = st.recursive(
    JSON_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(_KEYS) | st.text(ANY_CHAR, max_size=6), inner,
                        max_size=5),
    ),
    max_leaves=25,
)
#: A value a wrong-typed field could hold: anything JSON, biased towards containers.
WRONG_TYPED = JSON_VALUES


@st.composite
def finding_like(draw: st.DrawFn) -> Any:
    """A finding whose every field may hold any JSON type (or be missing)."""
    if draw(st.integers(0, 9)) == 0:
        return draw(JSON_VALUES)  # not even an object
    finding: dict[str, Any] = {}
    for key, good in (
        ("severity", st.sampled_from(["P0", "P1", "P2", "P3"])),
        ("location", st.text(ANY_CHAR, min_size=1, max_size=30)),
        ("description", st.text(ANY_CHAR, min_size=1, max_size=60)),
        ("suggestion", st.text(ANY_CHAR, max_size=30)),
        ("id", st.text(ANY_CHAR, max_size=8)),
        ("category", st.text(ANY_CHAR, max_size=10)),
    ):
        choice = draw(st.integers(0, 5))
        if choice == 0:
            continue
        finding[key] = draw(WRONG_TYPED) if choice == 1 else draw(good)
    return finding


@st.composite
def reply_like(draw: st.DrawFn) -> Any:
    """A reply object (or array, or envelope) built from ``finding_like`` findings."""
    findings = draw(st.lists(finding_like(), max_size=5))
    shape = draw(st.integers(0, 4))
    if shape == 0:
        return findings
    reply: dict[str, Any] = {"findings": findings if draw(st.booleans()) else draw(WRONG_TYPED)}
    if draw(st.booleans()):
        reply["approved"] = draw(st.booleans() | WRONG_TYPED)
    if draw(st.booleans()):
        reply["summary"] = draw(st.text(ANY_CHAR, max_size=20) | WRONG_TYPED)
    if shape == 1:
        return {"result": json.dumps(reply), "is_error": draw(st.booleans() | WRONG_TYPED)}
    if shape == 2:
        return {"text": json.dumps(reply), "stopReason": draw(st.sampled_from(["EndTurn",
                                                                              "Cancelled"]))}
    return reply


@st.composite
def rendered_json(draw: st.DrawFn, values: st.SearchStrategy[Any] | None = None) -> str:
    """A JSON value as text, then maybe fenced, wrapped in prose, truncated or comma'd."""
    value = draw(values if values is not None else st.one_of(reply_like(), JSON_VALUES))
    text = json.dumps(value, ensure_ascii=draw(st.booleans()),
                      indent=draw(st.sampled_from([None, 2])))
    if draw(st.booleans()):
        text = text.replace("]", ",]").replace("}", ",}")
    if draw(st.integers(0, 3)) == 0 and text:
        text = text[: draw(st.integers(0, len(text)))]
    if draw(st.booleans()):
        text = f"```json\n{text}\n```"
    before = draw(st.sampled_from(["", "Here is my review:\n", "{", "[", "prose } ] "]))
    after = draw(st.sampled_from(["", "\nDone.", " {", "}", " {\"a\": 1}"]))
    return before + text + after


#: Everything a channel could print.
RAW_REPLIES = st.one_of(ANY_TEXT, DECODED_TEXT, REPLYISH, rendered_json())

# ---------------------------------------------------------------- parser specs

_PATH_SEGMENTS = [
    ".result", ".text", ".a", ".is_error", ".stopReason", "[0]", "[01]", ".[0]", "[-1]",
    "[abc]", "[ 1 ]", '["a"]', ".", "..", ".__proto__", ".constructor", ".é", ".a-b", ".0",
    "[", "]", " ", ".*", "[99999999999999999999]",
]
JSONPATHS = st.one_of(
    st.lists(st.sampled_from(_PATH_SEGMENTS), max_size=5).map(lambda parts: "$" + "".join(parts)),
    st.text(ANY_CHAR, max_size=12),
)

# Regex pieces. Quantifiers apply to single atoms only, so a random pattern cannot nest
# quantifiers into exponential backtracking; raw random text covers syntax errors.
_ATOMS = ["a", "P", "\\d", "\\w", "\\s", ".", "[^|\\n]", "[a-z]", "\\|", ":", "é", "\\n",
          "$", "^", "\\b", "\\k<x>", "(?=a)", "(?<!b)"]
_QUANTIFIERS = ["", "", "*", "+", "?", "{2}", "{1,3}", "*?", "{4294967296}"]


@st.composite
def _regex_piece(draw: st.DrawFn) -> str:
    atom = draw(st.sampled_from(_ATOMS))
    if draw(st.integers(0, 3)) == 0:
        opener = draw(st.sampled_from(["(", "(?<x>", "(?:", "(?<sev>", "(?P<y>"]))
        return opener + atom + draw(st.sampled_from(_QUANTIFIERS)) + ")"
    return atom + draw(st.sampled_from(_QUANTIFIERS))


REGEX_PATTERNS = st.one_of(
    st.lists(_regex_piece(), max_size=6).map("".join),
    st.text(st.sampled_from("()[]{}?*+|\\^$.:<>=!Pk0123456789a-"), max_size=15),
    st.sampled_from(["(", "[", "a{2,1}", "(?<1>x)", "\\", "(?P<a>x)(?P<a>y)",
                     "(" * 3000 + ")" * 3000, r"^(P[0-3])\|([^|\n]+)\|(.*)$",
                     "(?<sev>P\\d) (\\S+:\\d+) (.+)"]),
)
REGEX_FLAGS = st.one_of(
    st.sets(st.sampled_from("dgimsuvy")).map("".join), st.text(ANY_CHAR, max_size=4)
)
_GROUP_NUMBERS = st.integers(min_value=-1, max_value=6)


@st.composite
def regex_spec(draw: st.DrawFn) -> dict[str, Any]:
    fields = {"location": draw(_GROUP_NUMBERS), "description": draw(_GROUP_NUMBERS)}
    for name in ("id", "category", "severity", "suggestion"):
        if draw(st.booleans()):
            fields[name] = draw(_GROUP_NUMBERS)
    spec: dict[str, Any] = {"kind": "regex-findings", "pattern": draw(REGEX_PATTERNS),
                            "fields": fields}
    if draw(st.booleans()):
        spec["flags"] = draw(REGEX_FLAGS)
    if draw(st.booleans()):
        spec["default_severity"] = draw(st.sampled_from(["P0", "P3", "P9", ""]))
    return spec


@st.composite
def markdown_spec(draw: st.DrawFn) -> dict[str, Any]:
    spec: dict[str, Any] = {"kind": "markdown-findings"}
    if draw(st.booleans()):
        spec["severity_map"] = draw(st.dictionaries(
            st.sampled_from(["BLOCKER", "NIT", "SHOULD-FIX", "X", ""]) | ANY_TEXT,
            st.sampled_from(["P0", "P1", "P2", "P3", "P7"]), max_size=3))
    if draw(st.booleans()):
        spec["gate"] = {"require_existing_path": draw(st.booleans())}
    return spec


@st.composite
def answer_spec(draw: st.DrawFn) -> dict[str, Any]:
    return {"kind": "answer", "gate": {"require_citation": draw(st.booleans())}}


def _unwrap_spec(then: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        spec: dict[str, Any] = {"kind": "unwrap-jsonpath", "wrap": draw(JSONPATHS)}
        if draw(st.booleans()):
            spec["then"] = draw(then)
        if draw(st.booleans()):
            spec["error_path"] = draw(JSONPATHS)
        if draw(st.booleans()):
            spec["incomplete"] = {"status_path": draw(JSONPATHS),
                                  "values": draw(st.lists(ANY_TEXT, max_size=2)),
                                  "message": draw(ANY_TEXT)}
        return spec

    return build()


_LEAF_SPECS = st.one_of(
    st.sampled_from(registered_names()), st.text(ANY_CHAR, max_size=10), regex_spec(),
    markdown_spec(), answer_spec(),
    st.dictionaries(st.sampled_from(["kind", "wrap", "then", "pattern"]), JSON_VALUES,
                    max_size=3),
)
#: Any parser spec, well-formed or not, including nested ``then`` chains.
PARSER_SPECS: st.SearchStrategy[Any] = st.recursive(_LEAF_SPECS, _unwrap_spec, max_leaves=4)

# ---------------------------------------------------------------- names

#: Names built to do harm if they ever reached a shell or a path.
HOSTILE_NAMES = [
    "$(touch pwned)", "`id`", ";rm -rf ~", "../..", "../../etc/passwd", "/etc/passwd", "a/b",
    "..", ".", "", " ", "a\x00b", "\x00", "x\ny", "name\r", "-rf", "--help", "a b",
    "${HOME}", "|cat", "&&", "~", "*", "con", "nul", "__proto__", "\u202egnp.exe", "é",
    "\udcff", "a" * 300,
]
HOSTILE_NAME_TEXT = st.one_of(
    st.sampled_from(HOSTILE_NAMES),
    st.text(st.sampled_from("$()`;|&<>*?~/\\.\x00\n '\"-ab"), max_size=12),
    ANY_TEXT,
)
