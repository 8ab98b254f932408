"""Reading one line of an import file: typed accessors that say what is wrong with a field, so a bad
file is refused with the line and the field rather than a database error."""

from __future__ import annotations

from typing import Any, Final

from django.utils.dateparse import parse_datetime

from memory_site.lib.errors import InvalidFieldError

MESSAGE_IMPORT_REFUSED: Final = "The file cannot be imported; nothing was stored."
_MISSING: Final = object()


class ImportLineError(InvalidFieldError):
    """A line of the file that cannot be read or written; the whole import is rolled back."""

    message = MESSAGE_IMPORT_REFUSED

    def __init__(self, line: int, reason: str) -> None:
        super().__init__("file", f"Line {line}: {reason}")
        self.detail = f"{MESSAGE_IMPORT_REFUSED} Line {line}: {reason}"
        self.extra["line"] = line
        self.line = line


class BadRow(Exception):
    """What is wrong with the row; the reader adds the line number."""


class Row:
    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def _get(self, key: str, default: Any) -> Any:
        value = self.data.get(key, _MISSING)
        if value is _MISSING:
            if default is _MISSING:
                raise BadRow(f"{key!r} is missing.")
            return default
        return value

    def text(self, key: str, default: Any = _MISSING, *, null: bool = False, blank: bool = True) -> Any:
        value = self._get(key, default)
        if value is None and null:
            return None
        if not isinstance(value, str) or (not blank and not value):
            raise BadRow(f"{key!r} must be a {'non-empty ' if not blank else ''}string.")
        return value

    def number(self, key: str, default: Any = _MISSING, *, null: bool = False) -> Any:
        value = self._get(key, default)
        if value is None and null:
            return None
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise BadRow(f"{key!r} must be a whole number, 0 or more.")
        return value

    def real(self, key: str, default: Any = _MISSING) -> float:
        value = self._get(key, default)
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise BadRow(f"{key!r} must be a number.")
        return float(value)

    def flag(self, key: str, default: Any = _MISSING) -> bool:
        value = self._get(key, default)
        if not isinstance(value, bool):
            raise BadRow(f"{key!r} must be true or false.")
        return value

    def when(self, key: str, default: Any = _MISSING, *, null: bool = False) -> Any:
        value = self._get(key, default)
        if value is None and null:
            return None
        parsed = parse_datetime(value) if isinstance(value, str) else None
        if parsed is None or parsed.tzinfo is None:
            raise BadRow(f"{key!r} must be an ISO 8601 date-time with a time zone.")
        return parsed

    def mapping(self, key: str, default: Any = _MISSING) -> dict[str, Any]:
        value = self._get(key, default)
        if not isinstance(value, dict):
            raise BadRow(f"{key!r} must be an object.")
        return value

    def items(self, key: str, default: Any = _MISSING) -> list[Any]:
        value = self._get(key, default)
        if not isinstance(value, list):
            raise BadRow(f"{key!r} must be a list.")
        return value

    def names(self, key: str, default: Any = _MISSING) -> list[str]:
        value = self.items(key, default)
        if not all(isinstance(v, str) for v in value):
            raise BadRow(f"{key!r} must be a list of strings.")
        return value

    def choice(self, key: str, choices: list[tuple[str, str]], default: Any = _MISSING) -> str:
        value = self.text(key, default)
        if value not in {c for c, _ in choices}:
            raise BadRow(f"{key!r} must be one of {', '.join(c for c, _ in choices)}.")
        return str(value)

    def any(self, key: str, default: Any = _MISSING) -> Any:
        return self._get(key, default)
