import logging
import os
import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from dashboard.passwords import require_new_password

logger = logging.getLogger(__name__)

PASSWORD_FILE = "admin-password.txt"


class Command(BaseCommand):
    help = ("Create a first admin user if there is none. Its generated password is shown "
            "on an interactive terminal, else written to ENGRAM_HOME/admin-password.txt "
            "(0600), never to a log; its first sign-in asks for a new one.")

    def add_arguments(self, parser):
        parser.add_argument("--username", default="admin")

    def handle(self, *args, username, **options):
        User = get_user_model()
        if User.objects.filter(is_superuser=True).exists():
            return
        password = secrets.token_urlsafe(12)
        admin = User.objects.create_superuser(username=username, email="", password=password)
        require_new_password(admin)
        if self.stdout.isatty():
            self.stdout.write(self.style.SUCCESS(
                f"Created the first admin. Sign in as {username!r} with password {password!r} "
                "(shown only this once; the first sign-in asks for a new one)."
            ))
            return
        # Not a terminal (a service, a container, a pipe): output ends up in logs.
        path = write_password_file(username, password)
        logger.warning("Created the first admin %r; its password is in %s (readable by this "
                       "user only; the first sign-in asks for a new one, then delete the "
                       "file).", username, path)


def write_password_file(username: str, password: str):
    path = settings.ENGRAM_HOME / PASSWORD_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    # Created 0600 from the start (never world-readable for a moment), replacing any old one.
    path.unlink(missing_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(f"username: {username}\npassword: {password}\n")
    os.chmod(path, 0o600)  # whatever the umask
    return path
