"""A thing denied "at all" or "of any kind" is denied in every case: a statement that
it is there, on a subject the two share, clashes with it however else each is worded
(issue 12, 2026-11-28, night)."""

from tests.helpers import queued


def test_a_tool_not_used_at_all_clashes_with_any_use_of_it():
    assert queued("The mobile app does not use Firebase at all.",
                  "Push notifications go out through Firebase.")


def test_an_action_denied_of_any_kind_clashes_with_one_kind_of_it():
    assert queued("importer jobs do not retry on HTTP errors of any kind.",
                  "importer jobs retry on transient HTTP errors.")


def test_two_things_named_apart_stay_apart():
    assert not queued("The Go service does not use Redis at all.",
                      "The Python worker caches results in Redis.")
    assert not queued("Originally the importer had no retries at all.",
                      "The importer retries failed files 3 times.")
