from memories.models import JobKind

from ._maintenance import MaintenanceCommand


class Command(MaintenanceCommand):
    help = "Judge every active memory against its nearest neighbours and record contradictions."
    kind = JobKind.CONTRADICTIONS
