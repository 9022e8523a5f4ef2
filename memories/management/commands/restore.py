import sys
from pathlib import Path

from django.apps import apps
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, connections

from engram_site.db import backup

# Rows that `migrate` alone creates: a database holding only these is empty.
SCAFFOLDING = {"contenttypes.contenttype", "auth.permission"}


def holds_data(connection) -> bool:
    tables = set(connection.introspection.table_names())
    for model in apps.get_models():
        if model._meta.label_lower in SCAFFOLDING or model._meta.db_table not in tables:
            continue
        try:
            if model._default_manager.using(connection.alias).exists():
                return True
        except DatabaseError:
            return True  # unreadable is not provably empty
    return False


class Command(BaseCommand):
    help = ("Replace the database's contents with a backup made by `manage.py backup`. "
            "Stop Engram first; on a database holding data it asks, or needs --yes.")

    def add_arguments(self, parser):
        parser.add_argument("path", help="the backup file")
        parser.add_argument("--yes", action="store_true",
                            help="replace a database that holds data without asking")
        parser.add_argument("--database", default="default")

    def handle(self, *args, path, yes, database, **options):
        path = Path(path).expanduser().resolve()
        if not path.is_file():
            raise CommandError(f"There is no backup at {path}.")
        connection = connections[database]
        connection.ensure_connection()  # starts the embedded server, says why it can't
        params = connection.get_connection_params()
        where = f"{params.get('dbname')} on {params.get('host') or 'localhost'}"
        if not yes and holds_data(connection):
            if not sys.stdin.isatty():
                raise CommandError(
                    f"The database {where} holds data, and restoring replaces all of "
                    "it: run again with --yes to go ahead.")
            answer = input(f"The database {where} holds data; replace all of it with "
                           f"{path.name}? Type 'yes' to go ahead: ")
            if answer.strip().lower() != "yes":
                raise CommandError("Nothing restored.")
        connection.close()  # ours must not hold a lock the restore waits for
        try:
            backup.restore(params, path)
        except backup.BackupError as exc:
            raise CommandError(f"Engram {exc}; the database is as it was.") from None
        self.stdout.write(f"Restored {where} from {path}.")
