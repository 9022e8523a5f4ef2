"""A rate said with "a" ("1,000 requests a minute") is a rate as "per minute" is, and two
rates within rounding are one (issue 12, 2026-11-28, late)."""

from memories.engine.contradiction import measures
from tests.helpers import queued


def test_a_count_a_unit_of_time_is_a_rate():
    assert measures(["each", "key", "may", "send", "1000", "requests", "a", "minute"]) == {
        "request/hour": 60000.0}
    assert queued("Each API key can make up to 300 requests a minute.",
                  "Each API key may make at most 100 requests per minute.")
    assert not queued("Each API key can make up to 100 requests a minute.",
                      "Each API key may make at most 6000 requests per hour.")


def test_a_rate_rounded_in_another_unit_is_the_same_rate():
    assert not queued("Public API keys are limited to 1000 requests per minute.",
                      "The per-key quota on the public API is about 16.7 requests a second.")
