"""What the maintenance commands share: --dry-run, --owner, a job record, a progress bar."""

import json

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from memories import jobs


class MaintenanceCommand(BaseCommand):
    kind = ""  # a JobKind

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true",
                            help="report what would change, change nothing")
        parser.add_argument("--owner", metavar="USERNAME",
                            help="only this user's memories (default: everyone's)")

    def job_params(self, options) -> dict:
        """What this kind of job takes besides owner and dry run."""
        return {}

    def handle(self, *args, dry_run=False, owner=None, **options):
        user = None
        if owner:
            user = get_user_model().objects.filter(username=owner).first()
            if user is None:
                raise CommandError(f"No user named {owner!r}.")
        job = jobs.create_job(self.kind, owner=user, dry_run=dry_run,
                                     **self.job_params(options))
        with tqdm(desc=self.kind, unit="memory") as bar:
            def on_progress(n, total):
                bar.total = total
                bar.update(n)

            job = jobs.run_job(job.pk, on_progress=on_progress)
        self.stdout.write(json.dumps({"job": str(job.pk), "dry_run": dry_run, **job.result},
                                     indent=2, default=str))
