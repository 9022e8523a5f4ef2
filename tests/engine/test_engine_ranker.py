"""The learned ranker: its features, its fit and the committed coefficients."""

from datetime import UTC, datetime

import numpy as np
import pytest

from memories.engine import ranker
from memories.engine.ranking import Candidate, Weights, rank

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def test_the_committed_coefficients_name_every_feature_and_load():
    coefficients = ranker.load()
    assert len(coefficients.weights) == len(ranker.FEATURES)
    assert coefficients.to_json() == ranker.Coefficients.from_json(
        coefficients.to_json()).to_json()
    with pytest.raises(ValueError, match="miss"):
        ranker.Coefficients.from_json({"intercept": 0, "weights": {"cosine": 1}})


def test_the_fit_learns_the_feature_that_tells_relevant_from_not():
    rng = np.random.default_rng(7)
    features = rng.random((400, len(ranker.FEATURES)))
    cosine = ranker.FEATURES.index("cosine")
    labels = (features[:, cosine] > 0.7).astype(float)
    fitted = ranker.fit(features, labels)
    others = [abs(w) for i, w in enumerate(fitted.weights) if i != cosine]
    assert fitted.weights[cosine] > 5 * max(others)


def test_how_much_a_memory_says_and_whether_it_asks():
    # "get" and "Jon": words under three letters say little
    assert ranker.substance("Go get 'em, Jon!") == pytest.approx(2 / ranker.SUBSTANCE_WORDS)
    assert ranker.substance("word " * 50) == 1.0
    assert ranker.asks("What breed is Biscuit?") == 1.0
    assert ranker.asks("Did you see it? [shared a photo: a dog]") == 1.0
    assert ranker.asks("She is a beagle.") == 0.0


def _ranked():
    candidates = [Candidate(id=name, similarity=similarity, importance=5.0,
                            last_accessed_at=NOW)
                  for name, similarity in (("a", 0.9), ("b", 0.6), ("c", 0.3))]
    return rank(candidates, now=NOW, weights=Weights(0, 0, 1))


def test_rerank_orders_by_the_model_and_keeps_the_best_limit():
    ranked = _ranked()
    texts = ["ok", "ok", ("A long memory that says a great deal about what was decided "
                          "and why it matters for the release of the billing service")]
    features = ranker.describe(ranked, cos_floor=0.0, keyword_scale=None, texts=texts)
    substance = ranker.FEATURES.index("substance")
    weights = [0.0] * len(ranker.FEATURES)
    weights[substance] = 10.0
    reordered = ranker.rerank(ranked, features, ranker.Coefficients(0.0, tuple(weights)),
                              Weights(0, 0, 1), limit=2)
    assert [r.id for r in reordered] == ["c", "a"]  # then by the hand-set order
    assert reordered[0].breakdown.final == 1.0 and reordered[0].breakdown.relevance == 1.0


def test_recency_and_importance_keep_their_weight_beside_the_learned_relevance():
    candidates = [Candidate(id=name, similarity=0.5, importance=importance,
                            last_accessed_at=NOW)
                  for name, importance in (("plain", 2.0), ("important", 9.0))]
    ranked = rank(candidates, now=NOW)
    features = ranker.describe(ranked, cos_floor=0.0, keyword_scale=None,
                               texts=["same words here", "same words here"])
    zero = ranker.Coefficients(0.0, (0.0,) * len(ranker.FEATURES))
    assert ranker.rerank(ranked, features, zero, Weights(0, 1, 1))[0].id == "important"
