"""A word that names a schedule itself ("schedule", "interval", "cadence", "basis") is no
part of what a statement is about, and "a weekly schedule" says how often, as "weekly"
does. Pure, no database. Sentences written for these tests, not taken from the labelled
sets."""

from memories.engine.contradiction import measures
from tests.helpers import queued


def test_a_frequency_before_a_schedule_noun_says_how_often():
    on_a_schedule = measures(["renovate", "runs", "on", "a", "monthly", "schedule"])
    assert on_a_schedule["period"] == measures(["renovate", "runs", "monthly"])["period"]


def test_a_frequency_that_names_a_thing_is_still_no_schedule():
    assert "period" not in measures(["the", "weekly", "report", "is", "long"])


def test_a_schedule_said_as_a_noted_interval_contradicts_another():
    assert queued("The staging database is refreshed on a nightly schedule.",
                  "staging database refresh interval: weekly")


def test_the_same_schedule_said_two_ways_does_not():
    assert not queued("The staging database is refreshed on a weekly basis.",
                      "staging database refresh interval: weekly")


def test_schedules_of_two_things_do_not_contradict():
    assert not queued("The staging database is refreshed on a nightly schedule.",
                      "The search index rebuild cadence is weekly.")


def test_a_range_of_weekdays_names_no_one_day():
    assert "weekday" not in measures(["releases", "go", "out", "monday", "through", "thursday"])
    assert not queued("Releases go out on Wednesdays after the code freeze.",
                      "Releases now go out Monday through Thursday only.")


def test_one_day_against_another_still_clashes():
    assert queued("Releases go out on Wednesdays after the code freeze.",
                  "Releases go out on Fridays.")
