import shutil
import tempfile
import time
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from codegraph import engine, services


class Command(BaseCommand):
    help = ("Time the code graph on a copy of PATH: a full build, a re-run with nothing "
            "changed, and a re-index after one file is touched. The benchmark's project "
            "is removed afterwards.")

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path)
        parser.add_argument("--touch", help="the file to change, relative to PATH "
                                            "(default: the largest source file)")
        parser.add_argument("--owner", default="codegraph-bench")

    def handle(self, *args, path: Path, touch: str | None, owner: str, **options):
        if not path.is_dir():
            raise CommandError(f"{path} is not a directory.")
        user, _ = get_user_model().objects.get_or_create(username=owner)
        project = f"bench-{time.time_ns()}"
        with tempfile.TemporaryDirectory() as scratch:
            root = Path(scratch) / "tree"
            shutil.copytree(path, root, symlinks=True,
                            ignore=shutil.ignore_patterns(*engine.SKIPPED_DIRS))
            found = list(engine.walk(root))
            if not found:
                raise CommandError(f"{path} holds no source file of a supported language.")
            touch = touch or max(found, key=lambda f: f[1].stat().st_size)[0]
            # Only a source of the copy: `root / touch` with an absolute path, or one
            # climbing out with "..", appended the benchmark's function to the real file.
            if touch not in {relative for relative, _ in found}:
                raise CommandError(f"--touch {touch!r} is not a source file of {path} "
                                   "(give its path relative to it).")
            try:
                full = self._timed(user, project, root)
                unchanged = self._timed(user, project, root)
                with (root / touch).open("a") as edited:
                    edited.write("\n\ndef benchmark_added():\n    return 1\n"
                                 if touch.endswith(".py") else "\n// touched\n")
                incremental = self._timed(user, project, root)
                report = full[1]
                symbols = report.functions + report.classes + report.imports
                self.stdout.write(
                    f"{report.files} files, {symbols} nodes ({report.functions} functions, "
                    f"{report.classes} classes, {report.imports} imports), {report.edges} edges "
                    f"({report.resolved_edges} resolved)\n"
                    f"full build {full[0]:.1f} s; nothing changed {unchanged[0]:.1f} s "
                    f"({unchanged[1].parsed} parsed); one file touched ({touch}) "
                    f"{incremental[0]:.1f} s ({incremental[1].parsed} parsed)")
            finally:
                services.index_sources(user, project, [], complete=True)

    def _timed(self, user, project, root):
        started = time.perf_counter()
        report = services.index_sources(
            user, project, (services.SourceFile(relative, absolute.read_bytes())
                            for relative, absolute in engine.walk(root)), complete=True)
        return time.perf_counter() - started, report
