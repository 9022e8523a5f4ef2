"""How often the forgetting settings forget a memory that is needed later: a simulated
year of use (the assumptions are in memories.engine.forgetting.simulate_year)."""

import json

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from memories.engine.forgetting import simulate_year


class Command(BaseCommand):
    requires_system_checks = []  # pure computation: no database, no model
    help = ("Replay a synthetic year of use through the forgetting decision and report the "
            "false-forgetting rate (forgotten memories needed afterwards).")

    def add_arguments(self, parser):
        parser.add_argument("--seeds", default="1,2,3",
                            help="random seeds, one simulated year each (default 1,2,3)")
        parser.add_argument("--memories", type=int, default=26_000,
                            help="memories made over the year (default 26,000: 500 a week)")
        parser.add_argument("--half-life", type=float, default=None,
                            help="days (default ENGRAM_FORGET_HALF_LIFE_DAYS)")
        parser.add_argument("--threshold", type=float, default=None,
                            help="decayed importance (default ENGRAM_FORGET_THRESHOLD)")
        parser.add_argument("--json", action="store_true", dest="as_json")

    def handle(self, *args, seeds, memories, half_life, threshold, as_json, **options):
        try:
            chosen = [int(s) for s in seeds.split(",") if s.strip()]
        except ValueError:
            raise CommandError(f"--seeds takes whole numbers separated by commas, not "
                               f"{seeds!r}") from None
        if not chosen or memories < 1:
            raise CommandError("Give at least one seed and a positive --memories.")
        half_life = half_life or settings.ENGRAM_FORGET_HALF_LIFE_DAYS
        threshold = settings.ENGRAM_FORGET_THRESHOLD if threshold is None else threshold
        reports = [simulate_year(seed, n_memories=memories, half_life_days=half_life,
                                 threshold=threshold,
                                 protect_days=settings.ENGRAM_FORGET_PROTECT_DAYS,
                                 grace_days=settings.ENGRAM_PURGE_AFTER_DAYS)
                   for seed in chosen]
        rows = [{"seed": seed, "forgotten": r.forgotten, "wrongly_forgotten": r.wrongly_forgotten,
                 "false_forgetting_rate": round(r.false_forgetting_rate, 4),
                 "needed_loss_rate": round(r.needed_loss_rate, 4),
                 "recoverable": r.recoverable, "active_at_end_of_year": r.active_at_end_of_year}
                for seed, r in zip(chosen, reports, strict=True)]
        mean = sum(r.false_forgetting_rate for r in reports) / len(reports)
        summary = {"half_life_days": half_life, "threshold": threshold, "memories": memories,
                   "mean_false_forgetting_rate": round(mean, 4), "years": rows}
        if as_json:
            self.stdout.write(json.dumps(summary, indent=2))
            return
        self.stdout.write(f"half-life {half_life:g} days, threshold {threshold:g}, "
                          f"{memories:,} memories a year")
        for row in rows:
            self.stdout.write(
                f"  seed {row['seed']}: {row['forgotten']:,} forgotten, "
                f"{row['wrongly_forgotten']:,} of them needed later "
                f"({row['false_forgetting_rate']:.2%}); "
                f"{row['active_at_end_of_year']:,} active at the end of the year")
        self.stdout.write(f"mean false-forgetting rate: {mean:.2%} (seed 001 asks under 1%)")
