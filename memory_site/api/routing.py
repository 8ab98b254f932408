"""One URL, several operations: `by_method(get=ListApi, post=CreateApi)` sends each HTTP method to
its own API class (STYLE habit 2) while the URL stays RESTful and the schema sees one view."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from rest_framework.views import APIView


def _delegate(operation: type[APIView], method: str) -> Callable[..., Any]:
    target = getattr(operation, method)

    # functools.wraps also carries drf-spectacular's @extend_schema annotations over.
    @functools.wraps(target)
    def handler(self: APIView, request: Any, *args: Any, **kwargs: Any) -> Any:
        instance = operation()
        instance.request, instance.args, instance.kwargs = request, args, kwargs
        instance.format_kwarg = self.format_kwarg
        instance.headers = self.headers
        return target(instance, request, *args, **kwargs)

    return handler


def by_method(**operations: type[APIView]) -> Callable[..., Any]:
    def get_permissions(self: APIView) -> Sequence[Any]:
        operation = operations.get((self.request.method or "").lower())
        classes = operation.permission_classes if operation is not None else self.permission_classes
        return [permission() for permission in classes]

    attrs: dict[str, Any] = {method: _delegate(operation, method) for method, operation in operations.items()}
    attrs["get_permissions"] = get_permissions
    attrs["__doc__"] = " / ".join(f"{m.upper()}: {op.__name__}" for m, op in operations.items())
    # The composite inherits what its operations share (error mapping, helpers): their closest common base.
    views = list(operations.values())
    base = next(cls for cls in views[0].__mro__ if all(issubclass(view, cls) for view in views))
    composite: type[APIView] = type("".join(op.__name__ for op in views), (base,), attrs)
    return composite.as_view()
