import math
import re
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from memories.engine.consolidation import (
    ConsolidationState,
    adjust_ranking,
    candidates,
    cluster,
    compress,
    compression_due,
    consolidated_importance,
    extractive_summary,
    near_duplicate_groups,
    related_pairs,
)
from memories.engine.context import count_tokens

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def at(*degrees):
    """Unit vectors in the plane; cos 0.85 is 31.8 degrees apart."""
    return np.array([[math.cos(math.radians(d)), math.sin(math.radians(d))] for d in degrees])


# --- Clustering ------------------------------------------------------------------------

def test_vectors_within_the_threshold_cluster_and_loners_are_left_out():
    vectors = at(0, 10, 20, 90, 100, 200)
    assert cluster(vectors, list("abcdef")) == [["a", "b", "c"], ["d", "e"]]


def test_a_cluster_does_not_chain_beyond_its_leaders_neighbours():
    # Each step is 25 degrees (cos 0.906); single linkage would join all four.
    # b leads (two neighbours, first of the ties), d is left alone.
    assert cluster(at(0, 25, 50, 75), list("abcd")) == [["a", "b", "c"]]


def test_the_leader_is_the_memory_with_the_most_neighbours():
    # Taking the first as leader, as seed 002 does, would give {a, b} and leave c out;
    # b is within 25 degrees of both.
    assert cluster(at(0, 25, 50), list("abc")) == [["a", "b", "c"]]


def test_the_threshold_is_inclusive_and_scale_does_not_matter():
    angle = math.degrees(math.acos(0.85))
    vectors = at(0, angle) * np.array([[3.0], [0.5]])
    assert cluster(vectors, ["a", "b"]) == [["a", "b"]]
    assert cluster(at(0, angle + 0.01), ["a", "b"]) == []


def test_a_memory_without_an_embedding_clusters_with_nothing():
    vectors = np.array([[1.0, 0.0], [0.0, 0.0], [1.0, 0.0]])
    assert cluster(vectors, [1, 2, 3]) == [[1, 3]]
    assert cluster(np.zeros((2, 2)), [1, 2], threshold=0.0) == []


def test_clustering_needs_one_vector_per_id():
    assert cluster(np.zeros((0, 2)), []) == []
    with pytest.raises(ValueError, match="one per id"):
        cluster(at(0, 10), ["a"])


# --- Duplicates ------------------------------------------------------------------------

def test_exact_duplicates_merge_whatever_their_vectors():
    contents = ["Use tabs", "use  TABS", "Lunch is at noon"]
    assert near_duplicate_groups(at(0, 90, 180), [1, 2, 3], contents) == [[1, 2]]


def test_near_duplicates_merge_into_the_earliest_when_they_say_the_same_details():
    contents = ["Lunch is at noon", "Run migrations before deploying",
                "Run the migration before deploying!", "The password rotates every 30 days",
                "run migrations before deploying."]
    vectors = at(90, 0, 10, 200, 5)  # cos(10 degrees) = 0.985
    assert near_duplicate_groups(vectors, list("abcde"), contents) == [["b", "c", "e"]]


def test_a_changed_detail_is_not_merged_as_a_duplicate():
    contents = ["The Redis cluster is in us-east-2 with 5 replicas",
                "The Redis cluster is in eu-west-1 with 3 replicas"]
    assert near_duplicate_groups(at(0, 5), [1, 2], contents) == []
    assert near_duplicate_groups(at(0, 5), [1, 2], contents, strict=False) == [[1, 2]]


def test_below_the_duplicate_threshold_nothing_merges():
    contents = ["Run migrations before deploying", "run migrations before deploying!"]
    assert near_duplicate_groups(at(0, 30), [1, 2], contents) == []  # cos 0.866 < 0.92


# --- Links -----------------------------------------------------------------------------

def test_related_pairs_link_memories_close_in_meaning_or_sharing_an_entity():
    vectors = at(0, 20, 90, 180)  # cos(20 degrees) = 0.94
    entities = [{"redis"}, set(), {"redis", "billing"}, {"kafka"}]
    pairs = related_pairs(vectors, list("abcd"), entities=entities)
    assert [(a, b) for a, b, _ in pairs] == [("a", "b"), ("a", "c")]
    assert pairs[0][2] == pytest.approx(math.cos(math.radians(20)))
    assert pairs[1][2] == pytest.approx(0.5)  # {redis} of {redis, billing}


def test_each_memory_keeps_only_its_strongest_links():
    pairs = related_pairs(at(0, 1, 10, 12), list("abcd"), max_links=1)
    assert {(a, b) for a, b, _ in pairs} == {("a", "b"), ("c", "d")}


# --- Candidates ------------------------------------------------------------------------

def memory(id, days_old, importance=5.0, tokens=10, pinned=False):
    return ConsolidationState(id, NOW - timedelta(days=days_old), importance, tokens, pinned)


def ids(states):
    return [s.id for s in states]


def test_age_based_takes_memories_older_than_the_cutoff_oldest_first():
    states = [memory("new", 10), memory("old", 40), memory("older", 90),
              memory("pinned", 100, pinned=True), memory("edge", 30)]
    assert ids(candidates(states, "age_based", NOW, age_days=30)) == ["older", "old"]


def test_importance_based_takes_the_least_important_first():
    states = [memory("a", 1, 3.0), memory("b", 5, 2.0), memory("c", 2, 5.0),
              memory("d", 9, 3.0)]
    assert ids(candidates(states, "importance_based", NOW, min_importance=4)) == ["b", "d", "a"]


def test_token_budget_takes_what_passes_the_budget_going_down_by_importance():
    states = [memory("i9", 1, 9, 60), memory("i3", 1, 3, 10), memory("i7", 1, 7, 30),
              memory("i5", 1, 5, 20)]
    # running totals 60, 90, 110, 120 against 100
    assert ids(candidates(states, "token_budget", NOW, token_budget=100)) == ["i5", "i3"]
    assert candidates(states, "token_budget", NOW, token_budget=120) == []


def test_pinned_tokens_count_first_against_the_budget():
    states = [memory("pin", 1, 1, 50, pinned=True), memory("i9", 1, 9, 40),
              memory("i7", 1, 7, 20)]
    assert ids(candidates(states, "token_budget", NOW, token_budget=100)) == ["i7"]


def test_on_equal_importance_the_newest_stays_within_the_budget():
    states = [memory("old", 50, 5, 10), memory("new", 1, 5, 10)]
    assert ids(candidates(states, "token_budget", NOW, token_budget=10)) == ["old"]


def test_an_unknown_strategy_is_refused():
    with pytest.raises(ValueError, match="age_based, importance_based, token_budget"):
        candidates([], "random", NOW)


# --- Summaries -------------------------------------------------------------------------

CLUSTER = [
    "Deploys to production go through the staging cluster first. Ask Priya before Friday.",
    "The staging cluster runs Postgres 16 on db-3; deploys wait for its checks.",
    "Production deploys go through staging. The coffee machine is broken.",
]


def test_the_summary_picks_the_sentence_the_cluster_agrees_on():
    assert extractive_summary(CLUSTER, max_tokens=15) == (
        "Deploys to production go through the staging cluster first.")


def test_the_summary_fills_its_budget_without_repeating_itself():
    summary = extractive_summary(CLUSTER, max_tokens=60)
    assert count_tokens(summary) <= 60
    assert "Production deploys go through staging." not in summary  # said already


def test_the_summary_keeps_numbers_and_names_verbatim():
    summary = extractive_summary(CLUSTER, max_tokens=60)
    assert "Postgres 16 on db-3" in summary
    assert "Priya" in summary


def test_the_summary_keeps_the_original_order_and_skips_repeats():
    texts = ["Tabs for Go files.", "Use pytest for tests. Tabs for Go files."]
    assert extractive_summary(texts, max_tokens=50) == "Tabs for Go files. Use pytest for tests."


def test_the_summary_is_made_of_the_originals_sentences():
    for budget in (10, 25, 40, 60, 200):
        summary = extractive_summary(CLUSTER, max_tokens=budget)
        for sentence in re.split(r"(?<=[.!?]) ", summary):
            assert any(sentence in text for text in CLUSTER), sentence


def test_a_sentence_longer_than_the_budget_is_cut_at_a_word_and_marked():
    long = "Rotate the signing keys for the payments service every 90 days " * 3
    summary = extractive_summary([long], max_tokens=8)
    assert summary.endswith("…") and count_tokens(summary) <= 8
    assert long.startswith(summary[:-1])
    assert extractive_summary([long], max_tokens=0) == ""
    assert extractive_summary([], max_tokens=50) == ""


# --- Compression levels ----------------------------------------------------------------

EPISODE = ("Debugged the auth flow for the billing service. Root cause: the token expiry "
           "check in auth/session.py used the wrong timezone. Fixed by normalizing every "
           "timestamp to UTC. Added a regression test and deployed v2.3.1 on 14 March.")


def test_compress_gives_a_summary_a_line_and_a_key_from_the_contents_words():
    summary, line, key = compress(EPISODE)
    assert count_tokens(summary) <= 60 and summary and summary in EPISODE.replace("  ", " ")
    assert "\n" not in line and count_tokens(line) <= 24 and line.startswith(key + ": ")
    assert key == "debugged_auth_flow"  # no word is used twice: the first three
    words = {w.strip(".,:").casefold() for w in EPISODE.split()}
    assert all(w.casefold() in words for w in line[len(key) + 2:].split())


def test_a_short_memory_is_its_own_summary_and_line():
    assert compress("Use tabs in Go files.") == (
        "Use tabs in Go files.", "Use tabs in Go files.", "use_tabs_go")
    assert compress("   ") == ("", "", "")


def test_an_index_key_is_short_and_made_of_words():
    _, _, key = compress("Kubernetes " * 3 + "autoscaling " * 3 + "misconfiguration " * 3
                         + "42 " * 9 + "is documented.")
    assert key == "kubernetes_autoscaling_misconfiguration"
    assert len(key) <= 50


def test_episodes_get_a_summary_after_7_days_and_a_line_and_key_after_30():
    assert compression_due(NOW - timedelta(days=7), NOW) == set()
    assert compression_due(NOW - timedelta(days=7, seconds=1), NOW) == {"summary"}
    assert compression_due(NOW - timedelta(days=30), NOW) == {"summary"}
    assert compression_due(NOW - timedelta(days=31), NOW) == {"summary", "compressed",
                                                              "index_key"}


# --- Importance ------------------------------------------------------------------------

def test_a_consolidated_memory_has_nine_tenths_of_the_highest_importance():
    assert consolidated_importance([4, 8, 6]) == pytest.approx(7.2)
    assert consolidated_importance([1, 1]) == 1.0  # 0.9 is below the scale
    with pytest.raises(ValueError):
        consolidated_importance([])


def test_citations_promote_and_ignores_demote_in_proportion_to_retrievals():
    assert adjust_ranking(5, retrieved=1, cited=1) == pytest.approx(5 + 1 / 3)
    assert adjust_ranking(5, retrieved=5, ignored=5) == pytest.approx(5 - 5 / 7)
    assert adjust_ranking(5, retrieved=50, cited=1) == pytest.approx(5 + 1 / 52)
    assert adjust_ranking(5, retrieved=4, cited=2, ignored=2) == 5


def test_feedback_counts_and_harm_counts_twice():
    assert adjust_ranking(5, retrieved=1, helpful=1) == pytest.approx(5 + 1 / 3)
    assert adjust_ranking(5, retrieved=1, harmful=1) == pytest.approx(5 - 2 / 4)


def test_without_any_outcome_the_ranking_stays():
    assert adjust_ranking(5, retrieved=30) == 5
    assert adjust_ranking(5) == 5


def test_adjusted_importance_stays_within_one_to_ten():
    assert adjust_ranking(9.9, retrieved=10, cited=10) == 10
    assert adjust_ranking(1.2, retrieved=10, harmful=10) == 1
    with pytest.raises(ValueError, match="cited"):
        adjust_ranking(5, cited=-1)


def test_a_summary_gets_room_for_its_longest_original_or_half_of_all_up_to_a_cap():
    from memories.engine.consolidation import summary_budget

    assert summary_budget([15, 15, 15]) == 22
    assert summary_budget([40, 5]) == 40
    assert summary_budget([300, 300]) == 120


def test_a_summary_of_very_long_memories_reads_only_their_first_sentences():
    from memories.engine import consolidation

    long_memory = " ".join(f"Shard {n} of the ledger lives on host db-{n}." for n in range(2_000))
    summary = consolidation.extractive_summary(
        [long_memory, long_memory.replace("ledger", "archive")], max_tokens=60)
    shards = [int(n) for n in re.findall(r"Shard (\d+)", summary)]
    assert shards and max(shards) < consolidation.SUMMARY_SENTENCES_PER_MEMORY
