"""`work_eval prediction`: recorded sessions replayed against predictive context; the
share of what a later step needed that was prefetched, per split."""
import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from work import evaluation

SHIPPED = "tests/fixtures/prediction_sessions.jsonl"


def _session(id, split, needed_files):
    root = "/home/dev/src/shop/"
    return json.dumps({
        "id": id, "split": split, "project": "github.com/acme/shop",
        "memories": [{"content": "Refunds are stored in cents; never floats."}],
        "tasks": [{"prompt": "refunds", "days_ago": 2, "events": [
            ["edit", root + "app/refunds.py"], ["edit", root + "app/serializers.py"]]}],
        "probe": {"file_opened": root + "app/refunds.py"},
        "needed": {"memories": ["stored in cents"], "files": needed_files}})


def test_each_split_counts_what_was_prefetched_of_what_was_needed(tmp_path, db):
    path = tmp_path / "sessions.jsonl"
    path.write_text(_session("a", "dev", ["app/serializers.py"]) + "\n"
                    + _session("b", "heldout", ["app/never_touched.py"]) + "\n")
    report = evaluation.evaluate(path)
    assert report["splits"]["dev"]["share_prefetched"] == 1.0
    assert report["splits"]["heldout"]["needed"] == 2
    assert report["splits"]["heldout"]["prefetched"] == 1
    assert report["misses"] == [{"id": "b", "split": "heldout", "memories": [],
                                 "files": ["app/never_touched.py"]}]


def test_the_replay_leaves_nothing_behind(tmp_path, db, django_user_model):
    path = tmp_path / "sessions.jsonl"
    path.write_text(_session("a", "dev", []) + "\n")
    evaluation.evaluate(path)
    assert not django_user_model.objects.filter(username__startswith="prediction-eval").exists()


def test_a_bad_line_is_named_by_its_number(tmp_path, db):
    path = tmp_path / "sessions.jsonl"
    path.write_text(_session("a", "dev", []) + "\n" + '{"id": "b", "split": "test"}\n')
    with pytest.raises(CommandError, match="sessions.jsonl:2"):
        call_command("work_eval", "prediction", str(path))


def test_the_shipped_set_holds_seed_001s_target_on_both_splits(db):
    """Measured 75.0 % (dev, tuned on) and 82.6 % (held-out) when first run; seed 001's
    target is more than 70 %."""
    out = io.StringIO()
    call_command("work_eval", "prediction", SHIPPED, "--json", stdout=out)
    splits = json.loads(out.getvalue())["splits"]
    assert splits["dev"]["share_prefetched"] > 0.7
    assert splits["heldout"]["share_prefetched"] > 0.7
    assert splits["heldout"]["mean_tokens"] <= 1500
