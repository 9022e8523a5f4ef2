import argparse

from django.core.management.base import BaseCommand
from tqdm import tqdm

from memories.providers.embeddings import get_provider
from memories.services import embeddings


class Command(BaseCommand):
    help = ("Move every memory to the active embedding model (ENGRAM_EMBEDDING_PROVIDER), "
            "keeping all memories; recall only compares vectors of one model.")

    def add_arguments(self, parser):
        parser.add_argument("--batch-size", type=_at_least_one, default=256)
        parser.add_argument("--all", action="store_true", dest="every",
                            help="embed every memory anew, also those on the active model "
                                 "(after an upgrade changes what a memory is embedded as)")

    def handle(self, *args, batch_size, every, **options):
        provider = get_provider()
        total = embeddings.count_to_reembed(every=every)
        self.stdout.write(f"{total} memories to embed with {provider.model_id}")
        with tqdm(total=total, unit="memory", disable=not total) as bar:
            done = embeddings.reembed(batch_size=batch_size, every=every,
                                      on_progress=bar.update)
        self.stdout.write(self.style.SUCCESS(f"Re-embedded {done} memories."))


def _at_least_one(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {number}")
    return number
