import os
import time
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from codegraph import engine, services


class Command(BaseCommand):
    help = ("Build or update the code graph of PATH for one owner and project: only files "
            "whose content changed are parsed, files no longer there are removed.")

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="the project's root directory")
        parser.add_argument("--project", required=True)
        parser.add_argument("--owner", required=True, help="the owner's username")

    def handle(self, *args, path: Path, project: str, owner: str, **options):
        if not path.is_dir():
            raise CommandError(f"{path} is not a directory.")
        project = project.strip()
        if not project or len(project) > 200:
            raise CommandError("--project must be 1 to 200 characters.")
        user = get_user_model().objects.filter(username=owner).first()
        if user is None:
            raise CommandError(f"No user {owner!r}.")
        found = list(engine.walk(path.resolve()))
        started = time.perf_counter()
        with tqdm(total=len(found), unit="file", disable=not found,
                  file=self.stderr._out) as bar:
            report = services.index_sources(
                user, project, (services.SourceFile(relative, _read(absolute))
                                for relative, absolute in found),
                complete=True, progress=lambda _: bar.update())
        elapsed = time.perf_counter() - started
        for skipped, why in sorted(report.skipped.items()):
            self.stderr.write(f"skipped {_shown(skipped)}: {why}")
        self.stdout.write(
            f"{report.parsed} parsed, {report.unchanged} unchanged, {report.deleted} removed "
            f"in {elapsed:.1f} s; {report.resolved_edges} of the edges resolved")
        self.stdout.write(self.style.SUCCESS(report.counts()))


def _shown(path: str) -> str:
    """A path as printable text: a name that is not UTF-8 shows its bytes (caf\\xe9.py)."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _read(path: Path) -> bytes | None:
    try:
        with path.open("rb") as source:
            # One byte past the limit is enough to skip it as too large: read whole, a
            # generated module of gigabytes was held in memory to be skipped.
            return source.read(engine.MAX_FILE_BYTES + 1)
    except OSError:  # gone or unreadable since the walk: treated as deleted
        return None
