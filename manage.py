#!/usr/bin/env python
"""Django's command-line utility, for Loci.

With no DATABASE_URL / REDIS_URL, the embedded servers under the state folder are used: if they are
not running (no `make run` going), they are started for this command and stopped after it.
"""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
    from memory_site.config import ConfigError, load_config

    try:
        config = load_config()
    except ConfigError as exc:
        sys.stderr.write(f"loci: configuration error: {exc}\n")
        sys.exit(2)

    from django.core.management import execute_from_command_line

    from memory_site.embedded import EmbeddedServers

    with EmbeddedServers(config.state_dir, database_url=config.database_url, redis_url=config.redis_url) as servers:
        os.environ.update(servers.environ())
        execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
