from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from memories.services.api_keys import create_api_key


class Command(BaseCommand):
    help = ("Create an API key for USERNAME (creating the user if missing) and print only "
            "the key, once: `export ENGRAM_API_KEY=$(manage.py create_api_key alice)`.")

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--name", default="cli")

    def handle(self, *args, username, name, **options):
        User = get_user_model()
        try:
            User.username_validator(username)
        except ValidationError as exc:
            raise CommandError(f"{username!r} is not a valid user name: {exc.messages[0]}")
        owner, _ = User.objects.get_or_create(username=username)
        _, raw_key = create_api_key(owner=owner, name=name)
        self.stdout.write(raw_key)
