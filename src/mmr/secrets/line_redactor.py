"""Redact a sequence of lines: one-line credentials plus key blocks that span lines.

Shared by the diff and by plain text (critique inputs, model replies, channel logs), both in
:mod:`mmr.secrets.credentials`. Callers hand in each line's content, whether it
may be part of a multi-line block, whether it starts a new file, and its file path; they
get the redacted contents back and, per hit, the index of its line and its kind.
"""

from __future__ import annotations

from typing import NamedTuple

from mmr.secrets.credential_patterns import credential_spans, marker, replace_spans
from mmr.secrets.key_blocks import BLOCK_LINE, BlockState, body_span, is_block_header, loose_body
from mmr.secrets.key_blocks import patterns as key_patterns


class LineHit(NamedTuple):
    at: int
    kind: str


class LineRedactor:
    """Feed lines in order with :meth:`line`; read ``out`` and ``hits`` at the end
    (after :meth:`finish`)."""

    def __init__(self) -> None:
        self.out: list[str] = []
        #: Each line as it came in (a certificate's lines taken for key material go back).
        self._original: list[str] = []
        self.hits: list[LineHit] = []
        self._state = BlockState()
        self._section_start = 0
        self._begin_hit: int | None = None
        self._path: str | None = None

    def line(self, content: str, *, blocks: bool = True, starts_file: bool = False,
             path: str | None = None) -> None:
        if starts_file:
            self._close_section()
            self._section_start = len(self.out)
        index = len(self.out)
        self._original.append(content)
        self._path = path
        if blocks and self._state.opened_at is not None and self._in_block(content):
            return
        if blocks and self._state.public and self._in_public_block(content):
            return
        self.out.append(self._single(content, index, blocks=blocks, path=path))

    @property
    def idle(self) -> bool:
        """Outside any block and run: a line :func:`hot_lines` leaves out changes nothing."""
        return not (self._state.opened_at is not None or self._state.public
                    or self._state.loose_run)

    def skip(self, contents: list[str]) -> None:
        """Lines known to hold nothing, taken as they are (only while :attr:`idle`)."""
        self.out += contents
        self._original += contents

    def finish(self) -> None:
        self._close_section()

    def _in_block(self, content: str) -> bool:
        """Handle one line inside an open block; False when the line ended it unterminated."""
        patterns = key_patterns()
        end = patterns.end.search(content)
        if end is not None:
            # The END marker closes the block; what follows it on the line is ordinary text
            # and may hold a credential of its own.
            index = len(self.out)
            self.out.append(self._credentials(content[:end.start()] + BLOCK_LINE
                                              + content[end.end():], index, self._path))
            self._state.opened_at = None
            self._state.tentative = []
            return True
        span = body_span(content)
        if span is None and (span := body_span(content, lenient=True)) is not None:
            self._state.tentative.append((len(self.out), content))
        if span is not None:
            self.out.append(content[:span[0]] + BLOCK_LINE + content[span[1]:])
            return True
        if is_block_header(content) or not content.strip():
            self.out.append(content)
            return True
        self._unterminated()
        return False

    def _in_public_block(self, content: str) -> bool:
        """A certificate's (or other public block's) body line stays as written; False when
        the line is not one, which ends the block."""
        public = key_patterns().public.search(content)
        if public is not None and public.group("edge") == "END":
            self._state.public = False
            return False
        if (body_span(content, lenient=True) is not None or is_block_header(content)
                or not content.strip()):
            self.out.append(content)
            return True
        self._state.public = False
        return False

    def _single(self, content: str, index: int, *, blocks: bool, path: str | None) -> str:
        patterns = key_patterns()
        begin = (patterns.begin.search(content)
                 if blocks and ("BEGIN" in content or "PuTTY" in content) else None)
        if begin is not None and not (patterns.inline.search(content) and "\\" in content):
            self.hits.append(LineHit(index, "private-key"))
            self._begin_hit = len(self.hits) - 1
            rest = patterns.begin.sub(marker("private-key"), content[begin.end():])
            end = patterns.end.search(rest)
            if end is None:
                self._state.opened_at = index
            else:
                rest = rest[end.end():]
            content = content[:begin.start()] + marker("private-key") + rest
        elif blocks and ("END" in content or "Private-MAC" in content) and (
                patterns.end.search(content) is not None):
            self._backwards_from_end(index)
        elif blocks and "-----" in content and (
                public := patterns.public.search(content)) is not None:
            self._state.public = public.group("edge") == "BEGIN"
            if public.group("edge") == "END":
                self._give_back(index)
            else:
                self._flush_loose()
        elif blocks:
            self._loose(content, index)
        return self._credentials(content, index, path)

    def _credentials(self, content: str, index: int, path: str | None) -> str:
        # Repeat until clean: a replacement can expose a new match (``AKIA…password = "…"``
        # only reads as a password assignment once the key id before it is a marker).
        redacted = content
        spans = credential_spans(redacted, path)
        while spans:
            self.hits += [LineHit(index, span.kind) for span in spans]
            redacted = replace_spans(redacted, spans)
            spans = credential_spans(redacted, path)
        return redacted

    def _unterminated(self) -> None:
        for index, original in self._state.tentative:  # no END came: they were code
            self.out[index] = self._credentials(original, index, self._path)
        self._state.tentative = []
        if self._begin_hit is not None:
            hit = self.hits[self._begin_hit]
            self.hits[self._begin_hit] = LineHit(hit.at, "unterminated-private-key")
        self._state.opened_at = None
        self._begin_hit = None

    def _backwards_from_end(self, end_index: int) -> None:
        """An END line with no BEGIN before it: its body lines are still key material
        (full-width lines already taken as a loose run join the key)."""
        first, changed = None, False
        for index in range(end_index - 1, self._section_start - 1, -1):
            line = self.out[index]
            if line.strip(" \t\"'") == BLOCK_LINE:
                first = index
                continue
            span = body_span(line)
            if span is None:
                break
            self.out[index] = line[:span[0]] + BLOCK_LINE + line[span[1]:]
            first, changed = index, True
        self._flush_loose()
        if first is None:
            return
        absorbed = [h for h in self.hits if h.kind == "key-body" and first <= h.at < end_index]
        if changed or absorbed:
            self.hits = [h for h in self.hits if h not in absorbed]
            self.hits.append(LineHit(first, "private-key"))

    def _give_back(self, end_index: int) -> None:
        """A public END line: the full-width lines just before it were a certificate's, not
        a key's, whether still pending or already taken as a loose run."""
        self._state.loose_run = []
        first = end_index
        for index in range(end_index - 1, self._section_start - 1, -1):
            if body_span(self._original[index], lenient=True) is None:
                break
            first = index
        taken = [h for h in self.hits if first <= h.at < end_index]
        if any(h.kind != "key-body" for h in taken):
            return  # something else was found there: leave it all redacted
        self.hits = [h for h in self.hits if h not in taken]
        self.out[first:end_index] = self._original[first:end_index]

    def _loose(self, content: str, index: int) -> None:
        run = self._state.loose_run
        if loose_body(content) is not None and (not run or run[-1] == index - 1):
            run.append(index)
            return
        self._flush_loose()
        if loose_body(content) is not None:
            self._state.loose_run = [index]

    def _flush_loose(self) -> None:
        run = self._state.loose_run
        if len(run) >= 2:
            for index in run:
                span = body_span(self.out[index])
                if span is not None:
                    line = self.out[index]
                    self.out[index] = line[:span[0]] + BLOCK_LINE + line[span[1]:]
            self.hits.append(LineHit(run[0], "key-body"))
        self._state.loose_run = []

    def _close_section(self) -> None:
        if self._state.opened_at is not None:
            self._unterminated()
        self._flush_loose()
