from datetime import UTC, datetime, timedelta
from uuid import UUID

import pytest

from memories.engine.ranking import (
    Candidate,
    Weights,
    convex_relevance,
    min_max,
    rank,
    recency,
    rrf,
    rrf_relevance,
)

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def cand(id, *, hours_ago=0.0, importance=5.0, **kwargs):
    return Candidate(id=id, importance=importance,
                     last_accessed_at=NOW - timedelta(hours=hours_ago), **kwargs)


def test_rrf_sums_one_over_k_plus_rank_and_skips_lists_without_the_item():
    assert rrf([1, 2], k=60) == pytest.approx(1 / 61 + 1 / 62)
    assert rrf([None, 3, None]) == pytest.approx(1 / 63)
    assert rrf([None, None]) == 0.0
    with pytest.raises(ValueError, match="Ranks start at 1"):
        rrf([0])


def test_rrf_fusion_ranks_three_candidates_by_hand():
    # Recency and importance are all equal, so each normalises to 0.5 and only
    # relevance separates them: final = (0.5 + 0.5 + rel) / 3.
    # a: 1/61 + 1/62 = 0.032522   (dense 1, keyword 2)
    # c: 1/63 + 1/61 = 0.032266   (dense 3, keyword 1)
    # b: 1/62        = 0.016129   (dense 2, no keyword hit)
    # min-max: a = 1, b = 0, c = (0.032266 - 0.016129) / (0.032522 - 0.016129) = 0.98438
    candidates = [cand("a", dense_rank=1, keyword_rank=2), cand("b", dense_rank=2),
                  cand("c", dense_rank=3, keyword_rank=1)]
    ranked = rank(candidates, now=NOW, fusion="rrf")
    assert [r.id for r in ranked] == ["a", "c", "b"]
    c_rel = (1 / 63 + 1 / 61 - 1 / 62) / (1 / 61 + 1 / 62 - 1 / 62)
    assert [r.breakdown.relevance for r in ranked] == pytest.approx([1.0, c_rel, 0.0])
    assert c_rel == pytest.approx(0.98438, abs=1e-5)
    assert ranked[1].breakdown.final == pytest.approx((0.5 + 0.5 + c_rel) / 3)
    assert ranked[0].breakdown.recency == 0.5 and ranked[0].breakdown.importance == 0.5


def test_convex_fusion_ranks_three_candidates_by_hand():
    # alpha = 0.7, keyword scores divided by the best keyword score (4.0):
    # a: 0.7 * 0.8 + 0.3 * 2/4 = 0.56 + 0.15 = 0.71
    # b: 0.7 * 0.9 + 0.3 * 0   = 0.63
    # c: 0.7 * 0   + 0.3 * 4/4 = 0.30
    # min-max: a = 1, b = (0.63 - 0.30) / (0.71 - 0.30) = 0.80488, c = 0
    candidates = [cand("a", similarity=0.8, keyword_score=2.0),
                  cand("b", similarity=0.9), cand("c", keyword_score=4.0)]
    assert convex_relevance(candidates) == pytest.approx([0.71, 0.63, 0.30])
    ranked = rank(candidates, now=NOW)
    assert [r.id for r in ranked] == ["a", "b", "c"]
    assert [r.breakdown.relevance for r in ranked] == pytest.approx([1.0, 0.33 / 0.41, 0.0])
    assert ranked[1].breakdown.similarity == 0.9 and ranked[1].breakdown.keyword_score is None


def test_convex_is_the_default_and_keeps_score_gaps_that_rrf_loses():
    # Dense ranks 1 and 2 look alike to RRF; their cosines 0.9 and 0.2 do not.
    candidates = [cand("a", similarity=0.9, dense_rank=1),
                  cand("b", similarity=0.2, dense_rank=2),
                  cand("c", similarity=0.19, dense_rank=3)]
    convex = {r.id: r.breakdown.relevance for r in rank(candidates, now=NOW)}
    fused = {r.id: r.breakdown.relevance for r in rank(candidates, now=NOW, fusion="rrf")}
    assert convex["b"] == pytest.approx((0.7 * 0.2 - 0.7 * 0.19) / (0.7 * 0.9 - 0.7 * 0.19))
    assert convex["b"] < 0.02
    assert fused["b"] > 0.4


def test_a_single_weak_keyword_hit_is_not_blown_up_and_cos_floor_rescales_cosine():
    # Dividing by the best keyword score keeps a lone hit at 1 * 0.3, not above dense hits.
    candidates = [cand("a", similarity=0.9), cand("b", keyword_score=0.01)]
    assert convex_relevance(candidates) == pytest.approx([0.63, 0.3])
    # cos_floor 0.5 maps 0.75 to (0.75 - 0.5) / 0.5 = 0.5 and anything below 0.5 to 0.
    floored = convex_relevance([cand("a", similarity=0.75), cand("b", similarity=0.2)],
                               cos_floor=0.5, alpha=1.0)
    assert floored == pytest.approx([0.5, 0.0])


def test_recency_decays_per_hour_and_treats_the_future_as_now():
    assert recency(NOW, NOW) == 1.0
    assert recency(NOW - timedelta(hours=1), NOW) == pytest.approx(0.995)
    assert recency(NOW - timedelta(hours=24), NOW) == pytest.approx(0.995**24)
    assert 0.995**24 == pytest.approx(0.88665, abs=1e-5)
    assert recency(NOW - timedelta(minutes=30), NOW) == pytest.approx(0.995**0.5)
    assert recency(NOW + timedelta(hours=5), NOW) == 1.0


def test_min_max_scales_to_unit_range_and_gives_half_when_all_are_equal():
    assert min_max([2.0, 4.0, 3.0]) == [0.0, 1.0, 0.5]
    assert min_max([7.0, 7.0, 7.0]) == [0.5, 0.5, 0.5]
    assert min_max([3.0]) == [0.5]
    assert min_max([]) == []


def test_feedback_moves_importance_and_clamps_it_before_normalising():
    # a: 9 + (4 - 0) * 0.5 = 11 -> clamped to 10; b: 10; c: 2 + (0 - 10) * 0.5 = -3 -> 0.
    # Unclamped, a (11) would outrank b (10/11 normalised); clamped they tie at 1.
    candidates = [cand("a", importance=9, helpful=4), cand("b", importance=10),
                  cand("c", importance=2, harmful=10)]
    by_id = {r.id: r.breakdown.importance for r in rank(candidates, now=NOW)}
    assert by_id == {"a": 1.0, "b": 1.0, "c": 0.0}


def test_weights_change_the_order():
    fresh_but_minor = cand("fresh", hours_ago=0, importance=2, similarity=0.5)
    old_but_major = cand("major", hours_ago=200, importance=9, similarity=0.5)
    candidates = [fresh_but_minor, old_but_major]
    by_recency = rank(candidates, now=NOW, weights=Weights(recency=1, importance=0,
                                                           relevance=0))
    by_importance = rank(candidates, now=NOW, weights=Weights(recency=0, importance=1,
                                                              relevance=0))
    assert [r.id for r in by_recency] == ["fresh", "major"]
    assert [r.id for r in by_importance] == ["major", "fresh"]
    # Equal weights: recency 1 vs 0 and importance 0 vs 1 cancel, relevance is 0.5 each,
    # so both score (1 + 0 + 0.5) / 3 = 0.5 and the id decides.
    equal = rank(candidates, now=NOW)
    assert [r.breakdown.final for r in equal] == [0.5, 0.5]
    assert [r.id for r in equal] == ["fresh", "major"]


def test_a_graph_only_candidate_inherits_decayed_relevance_from_where_it_was_reached():
    # a: 0.7 * 0.8 = 0.56; one hop from a: 0.5 * 0.56 = 0.28; two hops: 0.25 * 0.56 = 0.14;
    # chained one hop from the one-hop memory: 0.5 * 0.28 = 0.14; a missing parent gives 0.
    candidates = [cand("a", similarity=0.8), cand("z", similarity=0.1),
                  cand("g1", graph_hop=1, graph_from="a"),
                  cand("g2", graph_hop=2, graph_from="a"),
                  cand("chain", graph_hop=1, graph_from="g1"),
                  cand("orphan", graph_hop=1, graph_from="gone")]
    assert convex_relevance(candidates) == pytest.approx([0.56, 0.07, 0.28, 0.14, 0.14, 0.0])
    assert convex_relevance(candidates, graph_decay=0.25)[2] == pytest.approx(0.14)
    ranked = [r.id for r in rank(candidates, now=NOW)]
    assert ranked == ["a", "g1", "chain", "g2", "z", "orphan"]


def test_a_link_cycle_does_not_recurse_forever():
    candidates = [cand("a", graph_hop=1, graph_from="b"),
                  cand("b", graph_hop=1, graph_from="a")]
    assert convex_relevance(candidates) == [0.0, 0.0]


def test_rrf_gives_graph_candidates_a_rank_by_hop_with_ties_shared():
    # Graph list: x and y at hop 1 share rank 1, w at hop 2 has rank 3.
    candidates = [cand("x", graph_hop=1, graph_from="a"), cand("y", graph_hop=1,
                                                               graph_from="a"),
                  cand("w", graph_hop=2, graph_from="a"), cand("a", dense_rank=1)]
    assert rrf_relevance(candidates) == pytest.approx([1 / 61, 1 / 61, 1 / 63, 1 / 61])


def test_ties_break_by_relevance_then_by_id_whatever_the_input_order():
    # a: recency 1, relevance 0; b: recency 0, relevance 1; importance 0.5 each:
    # both (1 + 0.5 + 0) / 3 = 0.5, and b wins on relevance.
    a = cand("a", hours_ago=0, similarity=0.1)
    b = cand("b", hours_ago=10, similarity=0.9)
    assert [r.id for r in rank([a, b], now=NOW)] == ["b", "a"]
    assert [r.id for r in rank([b, a], now=NOW)] == ["b", "a"]
    twins = [cand(i, similarity=0.5) for i in ("m", 10, "B", "a")]
    assert [r.id for r in rank(twins, now=NOW)] == [10, "B", "a", "m"]
    assert [r.id for r in rank(twins[::-1], now=NOW)] == [10, "B", "a", "m"]


def test_tied_uuids_break_in_the_order_of_their_text():
    ids = [UUID(f"{digit * 8}-0000-7000-8000-{tail}") for digit, tail in
           (("a", "000000000001"), ("9", "ffffffffffff"), ("a", "000000000000"),
            ("0", "00000000000f"), ("f", "000000000000"))]
    ranked = rank([cand(pk, similarity=0.5) for pk in ids], now=NOW)
    assert [r.id for r in ranked] == sorted(ids, key=str)
    assert [str(r.id)[0] for r in ranked] == ["0", "9", "a", "a", "f"]


def test_no_candidates_rank_to_an_empty_list():
    assert rank([], now=NOW) == []


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Weights(recency=-1), "must not be negative"),
        (lambda: Weights(0, 0, 0), "At least one ranking weight"),
        (lambda: rank([], now=NOW, alpha=1.5), "alpha must be between 0 and 1"),
        (lambda: rank([], now=NOW, alpha=-0.1), "alpha must be between 0 and 1"),
        (lambda: rank([], now=NOW, k=0), "k must be at least 1"),
        (lambda: rank([], now=NOW, fusion="max"), "fusion must be one of"),
        (lambda: rank([], now=NOW, graph_decay=2), "graph_decay must be between"),
        (lambda: rank([cand("a"), cand("a")], now=NOW), "Each candidate must appear once"),
        (lambda: convex_relevance([], cos_floor=1.0), "cos_floor must be below 1"),
    ],
)
def test_bad_arguments_are_refused_with_a_clear_sentence(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_a_keyword_scale_keeps_a_weak_shared_word_weak():
    now = datetime(2026, 1, 1, tzinfo=UTC)
    weak = Candidate(id="weak", keyword_score=1.0, importance=5, last_accessed_at=now)
    strong = Candidate(id="strong", keyword_score=4.0, importance=5, last_accessed_at=now)
    # Against the best candidate, the weak hit would count 0.25; against the query's
    # full BM25 mass of 10 it counts 0.1.
    assert convex_relevance([weak, strong], alpha=0.0, keyword_scale=10.0) == [0.1, 0.4]
    assert convex_relevance([weak, strong], alpha=0.0) == [0.25, 1.0]


def test_below_the_keyword_gate_relevance_is_the_cosine_alone():
    now = datetime(2026, 1, 1, tzinfo=UTC)
    paraphrase = Candidate(id="p", similarity=0.6, importance=5, last_accessed_at=now)
    stray_word = Candidate(id="s", similarity=0.4, keyword_score=3.0, importance=5,
                           last_accessed_at=now)
    both = [paraphrase, stray_word]
    # The stray word covers 0.3 of the query's keyword mass of 10: under a gate of 0.4.
    gated = convex_relevance(both, alpha=0.3, keyword_scale=10.0, keyword_gate=0.4)
    assert gated == pytest.approx([0.6, 0.4])
    ungated = convex_relevance(both, alpha=0.3, keyword_scale=10.0)
    assert ungated == pytest.approx([0.18, 0.3 * 0.4 + 0.7 * 0.3])


def test_between_the_gate_and_full_coverage_the_keyword_weight_ramps_up():
    now = datetime(2026, 1, 1, tzinfo=UTC)
    meaning = Candidate(id="m", similarity=0.6, importance=5, last_accessed_at=now)

    def words(coverage):
        return Candidate(id="w", similarity=0.4, keyword_score=10.0 * coverage, importance=5,
                         last_accessed_at=now)

    def fuse(coverage):
        return convex_relevance([meaning, words(coverage)], alpha=0.3, keyword_scale=10.0,
                                keyword_gate=0.2, keyword_gate_full=0.4)

    # Coverage 0.1 is under the gate: cosine alone.
    assert fuse(0.1) == pytest.approx([0.6, 0.4])
    # Coverage 0.3 is halfway up the ramp: the keyword weight is half of 0.7, 0.35.
    assert fuse(0.3) == pytest.approx([0.65 * 0.6, 0.65 * 0.4 + 0.35 * 0.3])
    # From 0.4 on the full weight: 0.3 cosine, 0.7 keywords.
    assert fuse(0.5) == pytest.approx([0.3 * 0.6, 0.3 * 0.4 + 0.7 * 0.5])


def test_relevance_decays_once_per_link_along_a_chain():
    # a: 0.56 (0.7 * 0.8). The walk reports the memory each one was reached from: b one
    # link from a, c one more link from b (hop 2). Per link at decay 0.8: b 0.448, c 0.3584,
    # not 0.8 ** 2 on top of b's decay.
    candidates = [cand("a", similarity=0.8), cand("b", graph_hop=1, graph_from="a"),
                  cand("c", graph_hop=2, graph_from="b")]
    assert convex_relevance(candidates, graph_decay=0.8) == pytest.approx(
        [0.56, 0.448, 0.3584])


def test_a_linked_memory_keeps_its_own_match_when_that_is_stronger():
    candidates = [cand("a", similarity=0.5), cand("b", similarity=0.9, graph_hop=1,
                                                   graph_from="a")]
    # b's own relevance 0.63 beats 0.8 * 0.35 inherited from a.
    assert convex_relevance(candidates, graph_decay=0.8) == pytest.approx([0.35, 0.63])


def test_recency_differences_within_the_tolerance_do_not_count():
    now = datetime(2026, 1, 1, tzinfo=UTC)
    a = Candidate(id="a", similarity=0.5, importance=5, last_accessed_at=now)
    b = Candidate(id="b", similarity=0.5, importance=5,
                  last_accessed_at=now - timedelta(minutes=30))
    ranked = {r.id: r.breakdown.recency for r in rank([a, b], now=now)}
    assert ranked == {"a": 0.5, "b": 0.5}
    spread = {r.id: r.breakdown.recency for r in rank([a, b], now=now, recency_tolerance=0)}
    assert spread == {"a": 1.0, "b": 0.0}
