"""A schedule said as a cron expression, or with a verb that only says an event happens
("planning happens ...", "we hold planning ..."), compares with one said in words; a
clause after "until then" is about the past. Pure, no database; sentences written for
these tests, not taken from the labelled sets."""

from memories.engine.schedules import cron_in_words
from tests.helpers import queued


def test_a_cron_expression_is_said_in_words_and_one_it_cannot_say_simply_stays():
    assert cron_in_words("cron: 30 2 * * *") == "cron: daily at 02:30"
    assert cron_in_words("*/10 * * * *") == "every 10 minutes"
    assert cron_in_words("0 9 * * 5") == "every friday at 09:00"
    assert cron_in_words("0 */4 * * *") == "every 4 hours"
    assert cron_in_words("0 0 * 6 *") == "0 0 * 6 *"
    assert cron_in_words("scores 1 2 3 4 5") == "scores 1 2 3 4 5"


def test_a_cron_schedule_clashes_with_another_said_in_words():
    assert queued("The cleanup job's cron is 0 3 * * *.",
                  "The cleanup job is scheduled to run every 6 hours.")
    assert not queued("The cleanup job's cron is 0 3 * * *.",
                      "The cleanup job is scheduled to run daily at 03:00.")
    assert not queued("The cleanup job's cron is 0 3 * * *.",
                      "The invoice job is scheduled to run every 6 hours.")


def test_a_verb_that_only_says_an_event_happens_leaves_its_subject_alone():
    assert queued("Retrospectives happen every other Friday.",
                  "We hold retrospectives weekly on Wednesdays.")
    assert not queued("Retrospectives happen every other Friday.",
                      "We hold demos weekly on Wednesdays.")


def test_what_held_until_then_is_the_past():
    assert not queued("The sync was moved to an hourly schedule; until then it ran every night.",
                      "The sync runs hourly.")
