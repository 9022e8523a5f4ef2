"""`engram_bench store --locomo PATH`: LoCoMo's turns in order, then each again with a
suffix, through remember_many; every one is stored or strengthens what is."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from memories.evaluation import locomo
from memories.management.commands.engram_bench import BENCH_USER, locomo_workload
from memories.models import Memory, MemoryVersion

FIXTURE = Path(__file__).parent.parent / "fixtures" / "locomo_tiny.json"


def test_the_workload_is_every_turn_then_every_turn_again():
    turns = [turn.content for c in locomo.load(FIXTURE) for turn in c.turns]
    workload = locomo_workload(FIXTURE)
    assert workload == turns + [f"{text} (again)" for text in turns]


@pytest.mark.django_db
def test_the_bench_remembers_the_whole_workload(tmp_path):
    out = StringIO()
    call_command("engram_bench", "store", "--locomo", str(FIXTURE), "--one-by-one", "0",
                 "--queries", "1", "--batch-size", "4", "--tokens-per-run", "64", "--keep",
                 stdout=out)
    workload = locomo_workload(FIXTURE)
    assert f"{len(workload)} memories, batches of 4" in out.getvalue()
    mine = Memory.objects.filter(owner__username=BENCH_USER)
    assert MemoryVersion.objects.filter(memory__in=mine).count() == len(workload)
    assert set(mine.values_list("content", flat=True)) <= set(workload)


def test_a_path_that_is_no_locomo_file_is_refused(tmp_path):
    (tmp_path / "x.json").write_text("{not json")
    with pytest.raises(CommandError, match="Cannot read LoCoMo"):
        locomo_workload(tmp_path / "x.json")
