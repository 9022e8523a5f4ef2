from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from memories.services.api_keys import create_api_key


class Command(BaseCommand):
    help = ("Create an API key for USERNAME (creating the user if missing) and print only "
            "the key, once: `export ENGRAM_API_KEY=$(manage.py create_api_key alice)`.")

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--name", default="cli")
        parser.add_argument("--expires-in-days", type=int, default=None,
                            help="refuse the key after this many days (default: never)")
        parser.add_argument("--project", default="",
                            help="restrict the key to this project's memories (default: all)")

    def handle(self, *args, username, name, expires_in_days=None, project="", **options):
        User = get_user_model()
        try:
            User.username_validator(username)
        except ValidationError as exc:
            raise CommandError(f"{username!r} is not a valid user name: {exc.messages[0]}")
        try:
            # Checked before the user is made: a bad option must not leave a new user behind.
            with transaction.atomic():
                owner, _ = User.objects.get_or_create(username=username)
                _, raw_key = create_api_key(owner=owner, name=name, project=project,
                                            expires_in_days=expires_in_days)
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        self.stdout.write(raw_key)
