"""`engram_eval usage`: the tracker's agreement with hand-labelled turns, per split."""
import io
import json

import pytest
from django.core.management import call_command

from memories.evaluation import usage


def _turn(id, split, memory, reply, label):
    return json.dumps({"id": id, "split": split, "prompt": "", "memory": memory,
                       "reply": reply, "tools": [], "label": label, "why": ""})


def test_agreement_counts_each_split_on_its_own(tmp_path):
    path = tmp_path / "turns.jsonl"
    path.write_text("\n".join([
        _turn("a", "dev", "The staging port is 5433.", "Used port 5433.", "cited"),
        _turn("b", "dev", "Dana reviews migrations.", "Renamed a CSS class.", "ignored"),
        _turn("c", "heldout", "The staging port is 5433.", "Renamed a CSS class.", "cited"),
        _turn("d", "heldout", "Dana reviews migrations.", "Used port 5433.", "ignored"),
    ]) + "\n")
    report = usage.evaluate(path)
    assert report["splits"]["dev"] == {"turns": 2, "agreement": 1.0, "precision": 1.0,
                                       "recall": 1.0}
    assert report["splits"]["heldout"]["agreement"] == 0.5
    assert report["disagreements"] == [{"id": "c", "split": "heldout", "label": "cited"}]


def test_a_bad_line_is_named_by_its_number(tmp_path):
    path = tmp_path / "turns.jsonl"
    path.write_text(_turn("a", "dev", "m", "r", "cited") + "\n" +
                    _turn("b", "dev", "m", "r", "maybe") + "\n")
    with pytest.raises(ValueError, match=r"turns.jsonl:2"):
        usage.load(path)


def test_the_shipped_set_holds_its_held_out_agreement():
    """Thresholds were set on dev; held-out measured 0.867 when first run. A change to the
    tracker that drops it below 0.8 is a regression on turns it was never tuned on."""
    out = io.StringIO()
    call_command("engram_eval", "usage", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["splits"]["dev"]["turns"] == report["splits"]["heldout"]["turns"] == 60
    assert report["splits"]["heldout"]["agreement"] >= 0.8
