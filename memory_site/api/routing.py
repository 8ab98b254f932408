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
    views = list(operations.values())
    # The composite inherits what its operations share (authentication, throttles, `not_found_message`
    # for the exception handler): their closest common base.
    base = next(cls for cls in views[0].__mro__ if all(issubclass(view, cls) for view in views))

    class ByMethod(base):  # type: ignore[misc,valid-type]
        __doc__ = " / ".join(f"{m.upper()}: {op.__name__}" for m, op in operations.items())

        def get_permissions(self) -> Sequence[Any]:
            operation = operations.get((self.request.method or "").lower())
            classes = operation.permission_classes if operation is not None else self.permission_classes
            return [permission() for permission in classes]

    for method, operation in operations.items():
        setattr(ByMethod, method, _delegate(operation, method))
    ByMethod.__name__ = ByMethod.__qualname__ = "".join(op.__name__ for op in views)
    return ByMethod.as_view()
