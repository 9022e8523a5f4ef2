from memories.models import JobKind

from ._maintenance import MaintenanceCommand


class Command(MaintenanceCommand):
    help = ("Archive superseded memories and forget (soft-delete) those whose decayed "
            "importance fell below ENGRAM_FORGET_THRESHOLD.")
    kind = JobKind.FORGET
