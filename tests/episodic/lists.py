"""The one list shape (memory_site/api/lists.py) as an empty list answers it."""

from typing import Any

EMPTY_LIST: dict[str, Any] = {"count": 0, "next": None, "previous": None, "results": []}
