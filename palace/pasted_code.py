"""Code pasted into a conversation. Its capitalised words are class names and library calls
("StudentGradeCalculator", "Scanner", "LinkedList"), not people, places or brands: the extractor reads a
turn without its code lines, and a name made only of the code's identifiers is no wing even where the
prose around the code repeats it."""

from __future__ import annotations

import re

FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
# A line of code in any common language: ends in a statement or block mark, opens with a declaration or a
# keyword, or calls something and ends there. Prose rarely ends a line in ";", "{" or "}".
CODE_LINE = re.compile(
    r"^\s*(?:"
    r".*[;{}]\s*$"
    r"|(?:import|from\s+[\w.]+\s+import|package|#include|using|public|private|protected|static|final|"
    r"def|class|interface|enum|struct|return|const|let|var|function|fn|func|elif|else:|try:|except\b|"
    r"catch|throw|raise|yield|async|await)\b.*"
    r"|@\w+.*"
    r"|(?://|/\*|\*/).*"
    r"|[\w.\[\]]+\s*(?:=|\+=|-=|==|=>|->)\s*\S.*"
    r"|[\w.]+\(.*\)\s*:?\s*"
    r")$"
)
IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def split_code(text: str) -> tuple[str, set[str]]:
    """The text with its code blanked out (fenced blocks, and runs of code lines), and the identifiers the
    code used. A single line is code only beside another code line: a sentence ending in a brace is rare,
    two in a row are code."""
    identifiers: set[str] = set()

    def blank(match: re.Match[str]) -> str:
        identifiers.update(IDENTIFIER.findall(match.group(0)))
        return "\n" * match.group(0).count("\n")

    text = FENCE.sub(blank, text)
    lines = text.split("\n")
    code = [bool(line.strip()) and CODE_LINE.match(line) is not None for line in lines]
    for index, line in enumerate(lines):
        neighbours = (index > 0 and code[index - 1]) or (index + 1 < len(code) and code[index + 1])
        if code[index] and neighbours:
            identifiers.update(IDENTIFIER.findall(line))
            lines[index] = ""
    return "\n".join(lines), identifiers


def is_identifier(name: str, identifiers: set[str]) -> bool:
    """Every word of the name is an identifier of the conversation's code ("Scanner", "StudentGradeCalculator")."""
    words = IDENTIFIER.findall(name)
    return bool(words) and all(word in identifiers for word in words)
