from datetime import UTC, datetime, timedelta

from memories.engine.cost_control import circuit_reopens_at, retry_delay
from memories.engine.extraction import canonical_entity_name

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
COOLDOWN = timedelta(minutes=5)


def calls(*outcomes, step=timedelta(seconds=10)):
    """(ok, at) newest first, the newest one minute ago."""
    return [(ok, NOW - timedelta(minutes=1) - i * step) for i, ok in enumerate(outcomes)]


def test_the_breaker_opens_when_the_last_calls_all_failed():
    reopens = circuit_reopens_at(calls(False, False, False), failures=3, cooldown=COOLDOWN,
                                 now=NOW)
    assert reopens == NOW - timedelta(minutes=1) + COOLDOWN


def test_one_success_among_the_last_calls_keeps_the_breaker_closed():
    assert circuit_reopens_at(calls(False, True, False), failures=3, cooldown=COOLDOWN,
                              now=NOW) is None


def test_fewer_calls_than_the_threshold_keep_the_breaker_closed():
    assert circuit_reopens_at(calls(False, False), failures=3, cooldown=COOLDOWN,
                              now=NOW) is None


def test_the_breaker_closes_once_the_cooldown_has_passed():
    assert circuit_reopens_at(calls(False, False, False), failures=3,
                              cooldown=timedelta(seconds=30), now=NOW) is None


def test_retries_back_off_exponentially_up_to_an_hour():
    assert [retry_delay(n) for n in (1, 2, 3)] == [timedelta(minutes=1), timedelta(minutes=2),
                                                   timedelta(minutes=4)]
    assert retry_delay(20) == timedelta(hours=1)


def test_entity_names_differing_in_case_spacing_and_edge_punctuation_are_one():
    assert canonical_entity_name("  PostgreSQL ") == canonical_entity_name("postgresql.")
    assert canonical_entity_name("New   York") == "new york"
    assert canonical_entity_name("...") == ""
