from memories.models import JobKind

from ._maintenance import MaintenanceCommand


class Command(MaintenanceCommand):
    help = ("Remove for good the memories forgotten more than ENGRAM_PURGE_AFTER_DAYS ago; "
            "each one is logged and listed in the job.")
    kind = JobKind.PURGE
