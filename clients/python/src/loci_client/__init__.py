"""Python client for Loci, a memory service for AI agents: `Loci` (sync) and `AsyncLoci` (asyncio), on
httpx. Every failure raises `LociError(status, message, extra)`."""

from loci_client._base import VERSION as __version__
from loci_client.aio import AsyncLoci
from loci_client.client import Loci
from loci_client.errors import LociError

__all__ = ["AsyncLoci", "Loci", "LociError", "__version__"]
