#!/usr/bin/env python
"""Django's command-line utility for Engram."""

import os
import sys


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "engram_site.settings")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    from engram_site.db.base import DatabaseSetupError
    from engram_site.db.embedded import EmbeddedDatabaseError

    try:
        execute_from_command_line(sys.argv)
    except (DatabaseSetupError, EmbeddedDatabaseError, ImproperlyConfigured) as exc:
        # A set-up problem a person can fix: one sentence, not a traceback.
        sys.stderr.write(f"engram: {exc}\n")
        sys.exit(1)


if __name__ == "__main__":
    main()
