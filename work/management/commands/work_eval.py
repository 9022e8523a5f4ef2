"""`manage.py work_eval prediction PATH [--budget N] [--json]`: replay recorded sessions
against predictive context and report the share of the later-needed context it
prefetched, and the tokens it spent, per split (dev, held-out)."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from work import evaluation, prediction


class Command(BaseCommand):
    help = ("Replay recorded sessions (JSONL, see work/evaluation.py) against "
            "/context/predict: share of the context later needed that was prefetched, and "
            "tokens spent, per split.")

    def add_arguments(self, parser):
        parser.add_argument("benchmark", choices=["prediction"])
        parser.add_argument("path", type=Path)
        parser.add_argument("--budget", type=int, default=prediction.DEFAULT_BUDGET)
        parser.add_argument("--json", action="store_true", dest="as_json")

    def handle(self, *args, benchmark, path, budget, as_json=False, **options):
        if not 50 <= budget <= prediction.MAX_BUDGET:
            raise CommandError(f"--budget must be 50 to {prediction.MAX_BUDGET}.")
        try:
            report = evaluation.evaluate(path, budget=budget)
        except (OSError, ValueError) as exc:
            raise CommandError(f"cannot read {path}: {exc}") from exc
        if as_json:
            self.stdout.write(json.dumps(report, indent=2))
            return
        self.stdout.write(f"{path} at a {budget}-token budget")
        for split, row in report["splits"].items():
            share = "-" if row["share_prefetched"] is None else f"{row['share_prefetched']:.1%}"
            both = "-" if row["share_with_prompt_context"] is None \
                else f"{row['share_with_prompt_context']:.1%}"
            self.stdout.write(
                f"  {split:8} {row['sessions']:3} sessions  prefetched {row['prefetched']}/"
                f"{row['needed']} = {share} in {row['mean_tokens']} tokens ({row['mean_ms']} ms)"
                f"; with the prompt's memories {both} in "
                f"{row['mean_tokens_with_prompt_context']} tokens")
        for miss in report["misses"]:
            self.stdout.write(f"  missed in {miss['id']} ({miss['split']}): "
                              f"{miss['memories'] + miss['files']}")

