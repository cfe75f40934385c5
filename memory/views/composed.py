"""What a turn's prompt received, section by section, read back from its saved composition snapshot.

The chat panel shows this, never a recomputation: lines the composer dropped for budget, a retracted bridge clause,
context rows cut under a memory were not in the prompt and are not shown. The snapshot's prompt is the composer's
own text (``Composition.prompt_text``, personal data masked); its data message is split at the section headers
the composer wrote (``memory.prompts.HEADERS``). User text inside it is fenced (``fence_line``/``fence_block``), so
no line of data can pass for a header.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memory.prompts import DATA_CLOSE, DATA_OPEN, HEADERS

#: the prompt's messages as ``Composition.prompt_text`` joins them: "[type] content", a blank line between
_MESSAGE = re.compile(r"(?:^|\n\n)\[(system|human|ai)\] ", re.MULTILINE)
TITLES = {"profile": "Profile", "bridge": "Last session", "summary": "Conversation so far", "memories": "Memories"}


@dataclass
class Composed:
    """The prompt a turn received: each data section's lines, the conversation carried verbatim, the input."""

    sections: list[tuple[str, list[str]]] = field(default_factory=list)  # (section name, its lines) in prompt order
    history: list[tuple[str, str]] = field(default_factory=list)  # (human | ai, text)
    input: str = ""

    def lines(self, name: str) -> list[str]:
        return next((lines for n, lines in self.sections if n == name), [])


def _messages(prompt: str) -> list[tuple[str, str]]:
    marks = list(_MESSAGE.finditer(prompt))
    return [
        (m.group(1), prompt[m.end() : marks[n + 1].start() if n + 1 < len(marks) else len(prompt)])
        for n, m in enumerate(marks)
    ]


def _sections(data: str) -> list[tuple[str, list[str]]]:
    by_header = {header: name for name, header in HEADERS.items()}
    out: list[tuple[str, list[str]]] = []
    for line in data.split("\n"):
        if line in by_header:
            out.append((by_header[line], []))
        elif out and line.strip():
            out[-1][1].append(line)
    return out


def composed(prompt: str) -> Composed:
    """Split a snapshot's prompt text into what each section carried (an empty ``Composed`` for no prompt)."""
    result = Composed()
    messages = _messages(prompt or "")
    for n, (kind, text) in enumerate(messages):
        if kind == "system" and text.startswith(DATA_OPEN):
            result.sections = _sections(text[len(DATA_OPEN) :].rsplit(DATA_CLOSE, 1)[0])
        elif kind in ("human", "ai"):
            if n == len(messages) - 1:
                result.input = text
            else:
                result.history.append((kind, text))
    return result
