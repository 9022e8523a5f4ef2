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


def test_the_fit_learns_the_feature_that_tells_a_questions_evidence_from_the_rest():
    rng = np.random.default_rng(7)
    cosine = ranker.FEATURES.index("cosine")
    questions = []
    for _ in range(40):
        features = rng.random((10, len(ranker.FEATURES)))
        questions.append((features, (features[:, cosine] == features[:, cosine].max())
                          .astype(float)))
    fitted = ranker.fit(questions, [1.0] * len(questions))
    others = [abs(w) for i, w in enumerate(fitted.weights) if i != cosine]
    assert fitted.weights[cosine] > 5 * max(others)
    assert fitted.intercept == 0.0  # a softmax over one question's candidates cancels it


def test_a_fit_needs_a_question_with_evidence():
    features = np.zeros((3, len(ranker.FEATURES)))
    with pytest.raises(ValueError, match="No question has a relevant candidate"):
        ranker.fit([(features, np.zeros(3))], [1.0])


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


def test_a_memory_by_the_speaker_the_query_names_is_told_apart():
    asked = {"what", "did", "caroline", "paint"}
    assert ranker.speaks("[8 May 2023] Caroline: I painted a sunrise.", asked) == 1.0
    assert ranker.speaks("Caroline Smith: I painted a sunrise.", {"smith"}) == 1.0
    assert ranker.speaks("[8 May 2023] Melanie: I painted a sunrise.", asked) == 0.0
    # no speaker label: a name in the text is not who speaks
    assert ranker.speaks("Caroline painted a sunrise: orange and red.", asked) == 0.0


def answer(query, text):
    return ranker.answers(ranker.asked_for(query), text)


def test_a_memory_holding_the_time_a_question_asks_for_is_told_apart():
    asked = "When did Caroline go to the support group?"
    assert answer(asked, "[8 May 2023] Caroline: I went to the support group yesterday.") == 1.0
    assert answer(asked, "The migration ran on 3 March 2026.") == 1.0
    # its own date label says when it was said, not when it happened
    assert answer(asked, "[8 May 2023] Caroline: I went to the support group.") == 0.0


def test_a_memory_holding_a_count_or_a_place_answers_how_many_or_where():
    assert answer("How many retries does the client make?", "The client retries 3 times.") == 1.0
    assert answer("How many retries does the client make?", "The client retries.") == 0.0
    assert answer("Where is the staging database?", "Staging runs in Frankfurt.") == 1.0
    assert answer("Which cities has John been to?", "John: I was in Chicago last week!") == 1.0
    assert answer("Where is the staging database?", "Staging runs on a small VM.") == 0.0


def test_a_question_that_asks_for_no_time_count_or_place_gives_every_memory_nothing():
    assert ranker.asked_for("What database do we use for orders?") is None
    assert answer("What database do we use for orders?", "Orders moved to Postgres in 2024.") == 0.0
    ranked = rank([Candidate(id=name, similarity=similarity, importance=5.0,
                             last_accessed_at=NOW)
                   for name, similarity in (("dated", 0.9), ("undated", 0.3))],
                  now=NOW, weights=Weights(0, 0, 1))
    assert [r.id for r in ranked] == ["dated", "undated"]
    texts = ["The release shipped on 4 June 2025.", "The release shipped."]
    features = ranker.describe(ranked, cos_floor=0.0, keyword_scale=None, texts=texts,
                               query="When was the release?")
    assert _column(features, "answer") == [1.0, 0.0]
    features = ranker.describe(ranked, cos_floor=0.0, keyword_scale=None, texts=texts,
                               query="Who shipped the release?")
    assert _column(features, "answer") == [0.0, 0.0]


def _column(features, name):
    return list(features[:, ranker.FEATURES.index(name)])


def test_a_candidate_linked_to_a_strong_match_carries_that_match():
    candidates = [Candidate(id="question", similarity=0.9, importance=5.0, last_accessed_at=NOW),
                  Candidate(id="answer", similarity=0.3, graph_hop=1, graph_from="question",
                            importance=5.0, last_accessed_at=NOW),
                  Candidate(id="alone", similarity=0.5, importance=5.0, last_accessed_at=NOW)]
    ranked = rank(candidates, now=NOW, weights=Weights(0, 0, 1))
    order = [r.id for r in ranked]
    features = ranker.describe(ranked, cos_floor=0.0, keyword_scale=None,
                               texts=["x"] * 3, sessions=["", "", ""])
    neighbour = dict(zip(order, _column(features, "neighbour")))
    relevance = {r.id: r.breakdown.relevance for r in ranked}
    assert neighbour["answer"] == relevance["question"] == 1.0
    assert neighbour["question"] == relevance["answer"]  # links go both ways
    assert neighbour["alone"] == 0.0


def test_a_candidate_carries_the_best_other_match_of_its_session():
    candidates = [Candidate(id=name, similarity=similarity, importance=5.0, last_accessed_at=NOW)
                  for name, similarity in (("best", 0.9), ("same", 0.2), ("other", 0.5),
                                           ("loose", 0.6), ("loose2", 0.7))]
    ranked = rank(candidates, now=NOW, weights=Weights(0, 0, 1))
    sessions = {"best": "s1", "same": "s1", "other": "s2", "loose": "", "loose2": ""}
    features = ranker.describe(ranked, cos_floor=0.0, keyword_scale=None, texts=["x"] * 5,
                               sessions=[sessions[r.id] for r in ranked])
    session = dict(zip([r.id for r in ranked], _column(features, "session")))
    relevance = {r.id: r.breakdown.relevance for r in ranked}
    assert session["same"] == relevance["best"] and session["best"] == relevance["same"]
    assert session["other"] == 0.0  # alone in its session
    assert session["loose"] == session["loose2"] == 0.0  # no session is no conversation


def test_an_intercept_per_group_keeps_a_feature_from_learning_the_groups_base_rates():
    rng = np.random.default_rng(3)
    n = 2000
    group = (np.arange(n) >= n // 2).astype(int)
    features = np.zeros((n, len(ranker.FEATURES)))
    cosine, speaker = ranker.FEATURES.index("cosine"), ranker.FEATURES.index("speaker")
    features[:, cosine] = rng.random(n)
    features[:, speaker] = group  # only the second group has it, like a set with speakers
    # the second group's candidates are relevant far more often, whatever they say
    labels = (rng.random(n) < np.where(group == 1, 0.5, 0.05) * features[:, cosine] * 2
              ).astype(float)
    _, shared = ranker.fit_weights(features, labels)
    _, apart = ranker.fit_weights(features, labels, groups=group)
    assert shared[speaker] > 1.0
    assert abs(apart[speaker]) < 0.2
    assert apart[cosine] > 1.0
