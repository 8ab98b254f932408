"""What the sync and async clients share: where to connect, with which key, and how an answer decodes."""

from __future__ import annotations

import os
from typing import Any, TypeVar, cast

import httpx

from loci_client._calls import Call
from loci_client.errors import LociError, from_response

T = TypeVar("T")

DEFAULT_URL = "http://127.0.0.1:8002"
DEFAULT_TIMEOUT = 30.0
VERSION = "0.1.0"
MESSAGE_NO_KEY = "No API key: pass api_key= or set LOCI_API_KEY."


def api_root(base_url: str | None) -> str:
    """The site's root (LOCI_URL, as `make run` prints it) → its /api/v1/ prefix; a URL that already
    ends in /api/v1 is taken as is."""
    url = (base_url or os.environ.get("LOCI_URL") or DEFAULT_URL).rstrip("/")
    return url + "/" if url.endswith("/api/v1") else url + "/api/v1/"


def headers(api_key: str | None) -> dict[str, str]:
    key = api_key or os.environ.get("LOCI_API_KEY")
    if not key:
        raise LociError(None, MESSAGE_NO_KEY)
    return {"Authorization": f"Bearer {key}", "Accept": "application/json", "User-Agent": f"loci-client/{VERSION}"}


def request_args(call: Call[Any]) -> dict[str, Any]:
    args: dict[str, Any] = {"params": call.params or None}
    if call.json is not None:
        args["json"] = call.json
    return args


def decode(call: Call[T], response: httpx.Response) -> T:
    if response.status_code >= 400:
        raise from_response(response)
    try:
        body = response.json()
    except ValueError as exc:
        raise LociError(response.status_code, "The answer was not JSON.", {"body": response.text[:200]}) from exc
    if call.unwrap is not None:
        body = body[call.unwrap]
    return cast(T, body)


def wait_timed_out(job_id: str, timeout: float, status: str) -> LociError:
    return LociError(None, f"Job {job_id} did not finish within {timeout:g} s.", {"job_id": job_id, "status": status})
