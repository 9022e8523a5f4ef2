import math
import random
from datetime import UTC, datetime, timedelta

import pytest

from memories.engine.forgetting import (
    ARCHIVE,
    FORGET,
    KEEP,
    MemoryState,
    SimMemory,
    decayed_importance,
    decide,
    generate_year,
    purge_due,
    reinforced_importance,
    replay,
    retention,
    simulate_year,
    stability,
)

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
BASE = 30 / math.log(2)  # 43.28 days: the stability whose half-life is 30 days


def days_ago(days):
    return NOW - timedelta(days=days)


def state(**changes):
    fields = {"memory_type": "episodic", "importance": 5.0, "access_count": 0,
              "created_at": days_ago(400), "last_accessed_at": days_ago(0)}
    return MemoryState(**{**fields, **changes})


# --- Stability, retention, decay -------------------------------------------------------

def test_an_unused_episode_has_the_half_life_as_its_stability():
    assert stability(state(), half_life_days=30) == pytest.approx(43.2809, abs=1e-4)


def test_one_access_adds_a_third_of_a_log_to_stability():
    # 1 + 0.3 ln 2 times 30 / ln 2 is 30 / ln 2 + 9
    assert stability(state(access_count=1), half_life_days=30) == pytest.approx(BASE + 9)


def test_type_and_pinning_multiply_stability():
    # (30 / ln 2 + 0.3 * 30 * log2(4)) * 1.5 (semantic) * 2 (pinned)
    pinned_fact = state(memory_type="semantic", access_count=3, pinned=True)
    assert stability(pinned_fact, half_life_days=30) == pytest.approx((BASE + 18) * 3)
    assert stability(state(memory_type="procedural"), half_life_days=30) == pytest.approx(
        BASE * 1.3)


def test_retention_halves_every_half_life_for_an_unused_episode():
    assert retention(state(last_accessed_at=days_ago(0)), NOW) == 1.0
    assert retention(state(last_accessed_at=days_ago(30)), NOW) == pytest.approx(0.5)
    assert retention(state(last_accessed_at=days_ago(60)), NOW) == pytest.approx(0.25)
    assert retention(state(last_accessed_at=days_ago(30)), NOW,
                     half_life_days=60) == pytest.approx(math.sqrt(0.5))


def test_the_seeds_literal_decay_constant_is_a_half_life_of_30_ln_2():
    unused = state(last_accessed_at=days_ago(30))
    assert retention(unused, NOW, half_life_days=30 * math.log(2)) == pytest.approx(
        math.exp(-1))


def test_an_access_in_the_future_counts_as_now():
    assert retention(state(last_accessed_at=NOW + timedelta(days=3)), NOW) == 1.0


def test_importance_decays_with_retention():
    assert decayed_importance(state(importance=8, last_accessed_at=days_ago(30)),
                              NOW) == pytest.approx(4.0)
    assert decayed_importance(state(importance=8, last_accessed_at=days_ago(90)),
                              NOW) == pytest.approx(1.0)


def test_an_access_boosts_importance_by_a_fifth_up_to_ten():
    assert reinforced_importance(5) == pytest.approx(6.0)
    assert reinforced_importance(9) == 10.0


def test_stability_rejects_an_unknown_type_and_a_half_life_of_zero():
    with pytest.raises(ValueError, match="Unknown memory type"):
        stability(state(memory_type="dream"))
    with pytest.raises(ValueError, match="half-life"):
        stability(state(), half_life_days=0)


# --- Decisions -------------------------------------------------------------------------

def test_a_memory_above_the_threshold_is_kept():
    decision = decide(state(importance=4, last_accessed_at=days_ago(89)), NOW)
    assert decision.action == KEEP
    assert decision.decayed_importance == pytest.approx(4 * 0.5 ** (89 / 30))


def test_a_memory_is_forgotten_once_below_the_threshold():
    # importance 4 reaches 0.5 after three half-lives, 90 days
    decision = decide(state(importance=4, last_accessed_at=days_ago(91)), NOW, threshold=0.5)
    assert decision.action == FORGET
    assert "below 0.5" in decision.reason and "91 days unused" in decision.reason


def test_a_pinned_memory_is_never_forgotten():
    old = state(importance=1, pinned=True, last_accessed_at=days_ago(3000))
    assert decide(old, NOW).action == KEEP
    assert decide(old, NOW).reason == "pinned"


def test_a_memory_cited_or_helpful_in_the_last_30_days_is_not_forgotten():
    faded = {"importance": 1, "last_accessed_at": days_ago(200)}
    assert decide(state(**faded, last_cited_or_helpful_at=days_ago(29)), NOW).action == KEEP
    assert decide(state(**faded, last_cited_or_helpful_at=days_ago(31)), NOW).action == FORGET
    assert decide(state(**faded, last_cited_or_helpful_at=days_ago(31)), NOW,
                  protect_days=60).action == KEEP


def test_a_superseded_memory_is_archived_not_forgotten():
    faded = state(importance=1, last_accessed_at=days_ago(200), superseded=True)
    assert decide(faded, NOW).action == ARCHIVE
    assert decide(state(superseded=True), NOW).action == ARCHIVE


def test_a_pinned_superseded_memory_stays():
    assert decide(state(superseded=True, pinned=True), NOW).action == KEEP


def test_a_deleted_memory_is_purged_after_its_grace_period():
    assert not purge_due(days_ago(29), NOW)
    assert purge_due(days_ago(30), NOW)
    assert not purge_due(days_ago(30), NOW, grace_days=31)


# --- The simulated year ----------------------------------------------------------------

def tiny_year():
    """Five memories made at day 0.5, their fates worked out by hand (half-life 30).

    a: importance 1, never used: 0.5 after 30 days, forgotten the night of day 31
       (30.5 days, retention 0.494); needed at day 40.5, inside its grace: a miss.
    b: importance 1, needed at day 10.5 (importance 1.2, stability 30/ln 2 + 9 = 52.28):
       below 0.5 after 52.28 * ln 2.4 = 45.77 more days, forgotten on day 57, never
       needed again: rightly forgotten.
    c: pinned, importance 1, needed at day 90: kept, served.
    d: a fact of importance 5 needed at day 3, superseded at day 5: archived on day 6.
    e: like a, forgotten on day 31, purged on day 61, needed at day 80: a miss.
    """
    return [
        SimMemory(0, 0.5, "episodic", 1.0, needs=(40.5,), cites=(False,)),
        SimMemory(1, 0.5, "episodic", 1.0, needs=(10.5,), cites=(False,)),
        SimMemory(2, 0.5, "episodic", 1.0, pinned=True, needs=(90.0,), cites=(True,)),
        SimMemory(3, 0.5, "semantic", 5.0, needs=(3.0,), cites=(False,), superseded=5.0),
        SimMemory(4, 0.5, "episodic", 1.0, needs=(80.0,), cites=(False,)),
    ]


def test_the_false_forgetting_rate_counts_memories_needed_after_being_forgotten():
    report = replay(tiny_year(), days=100, follow_up_days=0, threshold=0.5,
                    half_life_days=30)
    assert report.forgotten == 3  # a, b, e
    assert report.archived == 1  # d
    assert report.purged == 3  # a and e on day 61, b on day 87
    assert report.needed == 5
    assert report.wrongly_forgotten_ids == (0, 4)
    assert report.recoverable == 1  # a was still in its grace period
    assert report.missed_needs == 2
    assert report.false_forgetting_rate == pytest.approx(2 / 3)
    assert report.needed_loss_rate == pytest.approx(2 / 5)
    assert report.active_at_end_of_year == 1  # c
    # 5 active for nights 0-4, 4 for 5-29, 2 for 30-55, 1 for 56-99
    assert report.mean_active == pytest.approx((5 * 5 + 4 * 25 + 2 * 26 + 1 * 44) / 100)


def test_a_longer_half_life_saves_the_memory_needed_at_day_40():
    report = replay(tiny_year(), days=100, follow_up_days=0, threshold=0.5,
                    half_life_days=45)
    assert report.wrongly_forgotten_ids == (4,)


def test_checking_only_due_memories_gives_the_same_year_as_checking_all_every_night():
    for seed in (1, 2):
        memories = generate_year(random.Random(seed), n_memories=300, days=120,
                                 follow_up_days=60)
        fast = replay(memories, days=120, follow_up_days=60)
        every_night = replay(memories, days=120, follow_up_days=60, check_every_night=True)
        assert fast == every_night
        assert fast.wrongly_forgotten_ids == every_night.wrongly_forgotten_ids


def test_the_simulation_is_deterministic_for_a_seed():
    first = simulate_year(7, n_memories=200, days=90, follow_up_days=30)
    assert simulate_year(7, n_memories=200, days=90, follow_up_days=30) == first
    assert first.wrongly_forgotten_ids == simulate_year(
        7, n_memories=200, days=90, follow_up_days=30).wrongly_forgotten_ids
    assert simulate_year(8, n_memories=200, days=90, follow_up_days=30) != first


def test_generated_needs_fall_after_creation_and_before_the_horizon():
    memories = generate_year(random.Random(3), n_memories=500, days=100, follow_up_days=50)
    assert [m.id for m in memories] == list(range(500))
    for m in memories:
        assert 0 <= m.created < 100
        assert all(m.created <= t < 150 for t in m.needs)
        assert list(m.needs) == sorted(m.needs) and len(m.cites) == len(m.needs)
        if m.superseded is not None:
            assert all(t < m.superseded for t in m.needs)
    assert any(not m.needs for m in memories) and any(len(m.needs) > 5 for m in memories)
