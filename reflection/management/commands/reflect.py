from memories.management.commands._maintenance import MaintenanceCommand
from memories.models import JobKind


class Command(MaintenanceCommand):
    help = ("Reflect on recent memories: ask questions, store the insights that answer them "
            "with citations. With --owner, that user reflects now; without, every user "
            "whose trigger fired (importance, observations or time).")
    kind = JobKind.REFLECT
