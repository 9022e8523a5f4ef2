"""`manage.py bench_context_tokens [PATH]`: how much of a context is memory text.

PATH is a JSONL of {"memory": ...} lines (default: the paraphrase set's notes, written
like the memories agents store). Pure: no database, no embedding model.
"""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from memories.evaluation import context_tokens, paraphrases


class Command(BaseCommand):
    requires_system_checks = []
    help = ("The share of a 500-token context of ten memories that is memory text, its "
            "tokens per memory, and how many memories fit alone in 60 tokens, per format.")

    def add_arguments(self, parser):
        parser.add_argument("path", nargs="?", type=Path, default=paraphrases.DEFAULT_PATH)
        parser.add_argument("--json", action="store_true", dest="as_json")

    def handle(self, *args, path, as_json, **options):
        try:
            pairs, distractors = paraphrases.load(path)
            report = context_tokens.measure([pair.memory for pair in pairs] + distractors)
        except (OSError, ValueError) as exc:
            raise CommandError(f"cannot measure {path}: {exc}") from exc
        report["path"] = str(path)
        if as_json:
            self.stdout.write(json.dumps(report, indent=2))
            return
        self.stdout.write(
            f"{report['notes']} notes from {path}; contexts of {report['group']} at "
            f"{report['budget']} tokens; alone at {report['small_budget']} tokens")
        self.stdout.write("format    memory share (mean / min)  tokens per memory "
                          "(context / text)  fit alone")
        for fmt, row in report["formats"].items():
            self.stdout.write(
                f"{fmt:9} {row['memory_share_mean']:.3f} / {row['memory_share_min']:.3f}"
                f"{'':14}{row['context_tokens_per_memory']:6.1f} / "
                f"{row['text_tokens_per_memory']:4.1f}{'':15}"
                f"{row['fit_alone_in_small_budget']:.3f}")
