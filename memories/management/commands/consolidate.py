from memories.engine.consolidation import STRATEGIES
from memories.models import JobKind

from ._maintenance import MaintenanceCommand


class Command(MaintenanceCommand):
    help = ("Merge duplicates, summarise clusters of similar memories (originals archived, "
            "never deleted), compress old episodes, link neighbours, adjust importance by use.")
    kind = JobKind.CONSOLIDATE

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--strategy", choices=STRATEGIES, default="age_based")

    def job_params(self, options):
        return {"strategy": options["strategy"]}
