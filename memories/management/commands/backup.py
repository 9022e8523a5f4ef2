from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connections

from engram_site.db import backup


def human_size(size: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024


class Command(BaseCommand):
    help = ("Back up the whole database (the embedded server, or DATABASE_URL's) to one "
            "file in pg_dump's custom format; `manage.py restore` puts it back.")

    def add_arguments(self, parser):
        parser.add_argument("path", nargs="?",
                            help="where to write (default: ENGRAM_HOME/backups/"
                                 "engram-<date>-<time>.dump)")
        parser.add_argument("--database", default="default")

    def handle(self, *args, path, database, **options):
        if path is None:
            stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
            path = Path(settings.ENGRAM_HOME) / "backups" / f"engram-{stamp}.dump"
        path = Path(path).expanduser().resolve()
        if path.is_dir():
            raise CommandError(f"{path} is a folder: name the backup file to write.")
        connection = connections[database]
        connection.ensure_connection()  # starts the embedded server, says why it can't
        try:
            backup.dump(connection.get_connection_params(), path)
        except backup.BackupError as exc:
            raise CommandError(f"Engram {exc}.") from None
        self.stdout.write(f"Backed up to {path} ({human_size(path.stat().st_size)}).")
