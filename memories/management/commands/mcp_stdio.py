import os

import anyio
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from memories.api.authentication import refusal, usable_key
from memories.mcp import stdio
from memories.mcp.server import build_server


class Command(BaseCommand):
    help = ("Serve Engram's MCP tools over stdin/stdout for one owner, for agents that start "
            "a command: the owner of --key (or ENGRAM_API_KEY), or the user named by --user.")

    def add_arguments(self, parser):
        parser.add_argument("--user", help="act as this user (the machine's own account)")
        parser.add_argument("--key", default=os.environ.get("ENGRAM_API_KEY", ""),
                            help="act as this API key's owner (default: $ENGRAM_API_KEY)")

    def handle(self, *args, user, key, **options):
        # stdout carries the protocol only: Django logs to stderr, and the SDK points fd 1
        # at stderr while it serves, so stray prints and child processes miss the wire.
        found = None
        if user:
            owner = get_user_model().objects.filter(username=user, is_active=True).first()
            if owner is None:
                raise CommandError(f"No active user {user!r}.")
        elif key:
            found = usable_key(key)
            if found is None:
                raise CommandError(refusal(key))
            owner = found.owner
        else:
            raise CommandError("Say whose memories to serve: --user USERNAME, or --key KEY "
                               "(or set ENGRAM_API_KEY).")
        anyio.run(stdio.serve, build_server(owner=owner, key=found))
