"""The contradiction reader: the local model that reads two statements together, and the
rules judge that consults it."""

import json

import numpy as np
import pytest

from memories.engine.contradiction import CONFIDENT, READ_QUEUED
from memories.providers import contradiction_reader
from memories.providers.llm import RulesProvider
from memories.providers.minilm_onnx import _bert_graph, packaged_model_dir, save_checked

RETENTION = ("We keep 30 days of application logs.", "Log retention is two weeks.")
PARAPHRASE = ("Payments are retried three times.", "A failed payment gets three more attempts.")


@pytest.fixture(scope="module")
def reader(tmp_path_factory):
    return contradiction_reader.load(tmp_path_factory.getbasetemp() / "models")


def _references():
    with np.load(contradiction_reader.WEIGHTS) as shipped:
        pairs = list(zip(shipped["reference.a"].tolist(), shipped["reference.b"].tolist()))
        return pairs, shipped["reference.chance"]


def test_the_graph_built_from_the_model_package_and_the_changes_reads_as_fitted(tmp_path):
    """The fitting script records what the PyTorch model said of a few pairs beside its
    changes; the same graph in fp32, built from the installed package's weights and those
    changes, must say the same."""
    pairs, fitted = _references()
    folder = packaged_model_dir()
    cfg = json.loads((folder / "config.json").read_text())
    path = save_checked(_bert_graph(contradiction_reader.merged_weights(
        folder, contradiction_reader._changes()), cfg), tmp_path / "fp32.onnx")
    with np.load(contradiction_reader.WEIGHTS) as shipped:
        fp32 = contradiction_reader.ContradictionReader(
            path, folder / "tokenizer.json", shipped["head.weight"], float(shipped["head.bias"]))
    assert np.allclose(fp32.probabilities(pairs), fitted, atol=1e-4)
    assert fitted.max() - fitted.min() > 0.3  # the references tell pairs apart


def test_the_int8_graph_the_judge_runs_reads_close_to_the_fitted_model(reader):
    pairs, fitted = _references()
    assert np.allclose(reader.probabilities(pairs), fitted, atol=0.1)


def test_a_pair_reads_alike_in_either_order_alone_or_in_a_batch(reader):
    pairs = [RETENTION, PARAPHRASE, ("The nightly build takes forty minutes.",
                                     "Dana owns the billing service.")]
    batch = reader.probabilities(pairs)
    alone = np.array([reader.probabilities([pair])[0] for pair in pairs])
    swapped = reader.probabilities([(b, a) for a, b in pairs])
    assert np.allclose(batch, alone, atol=1e-5) and np.allclose(batch, swapped, atol=1e-5)
    assert reader.probabilities([]).shape == (0,)


def test_the_graph_is_built_once_under_a_name_that_carries_the_changes_it_holds(tmp_path):
    contradiction_reader.load(tmp_path)
    built = list(tmp_path.glob("contradiction-reader-*.onnx"))
    assert [p.name for p in built] == [p.name for p in built if contradiction_reader.fingerprint()
                                       in p.name] and len(built) == 1
    stamp = built[0].stat().st_mtime_ns
    contradiction_reader.load.cache_clear()
    contradiction_reader.load(tmp_path)
    assert built[0].stat().st_mtime_ns == stamp


def test_the_rules_judge_queues_a_contradiction_said_in_other_words_with_the_reader(settings):
    verdict = RulesProvider().judge(*RETENTION).value
    assert verdict.contradicts and verdict.confidence >= CONFIDENT
    assert "read together" in verdict.reason

    settings.ENGRAM_CONTRADICTION_READER = False
    alone = RulesProvider().judge(*RETENTION).value
    assert not alone.contradicts or alone.confidence < CONFIDENT


def test_the_reader_reads_the_same_fact_said_twice_under_the_queue_mark(reader):
    assert reader.probabilities([PARAPHRASE])[0] < READ_QUEUED
    verdict = RulesProvider().judge(*PARAPHRASE).value
    assert not verdict.contradicts or verdict.confidence < CONFIDENT


def test_a_lone_surrogate_is_read_as_a_replacement_character(reader):
    odd = ("We keep 30 days of application logs \ud800.", "Log retention is two weeks.")
    clean = ("We keep 30 days of application logs \ufffd.", "Log retention is two weeks.")
    assert reader.probabilities([odd])[0] == pytest.approx(reader.probabilities([clean])[0])


def test_a_reader_that_cannot_be_built_leaves_the_rules_to_judge(settings, tmp_path):
    """A model cache it cannot write (here a file where the folder should be): the rules
    alone judge, as they did before the reader, and nothing raises."""
    blocked = tmp_path / "blocked"
    blocked.write_text("not a folder")
    settings.ENGRAM_MODEL_CACHE = blocked / "models"
    verdict = RulesProvider().judge(*RETENTION).value
    assert not verdict.contradicts or verdict.confidence < CONFIDENT
    settings.ENGRAM_MODEL_CACHE = tmp_path / "models"
    assert RulesProvider().judge(*RETENTION).value.confidence >= CONFIDENT


def test_episodes_are_judged_without_loading_the_reader(settings, tmp_path):
    blocked = tmp_path / "blocked"
    blocked.write_text("not a folder")
    settings.ENGRAM_MODEL_CACHE = blocked / "models"
    verdict = RulesProvider().judge(*RETENTION, episodes=True).value
    assert not verdict.contradicts and not (blocked / "models").exists()
