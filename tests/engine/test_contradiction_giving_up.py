"""Giving up after a while is a timeout ("requests give up after 20 seconds"); giving up
after a number of tries stays a count of attempts. "chars" are characters. Pure, no
database. Sentences written for these tests, not taken from the labelled sets."""

from memories.engine.short_forms import spell_out
from tests.helpers import queued


def test_giving_up_after_a_while_is_a_timeout():
    assert spell_out("Uploads give up after ten seconds") == "Uploads timeout after ten seconds"
    assert queued("Geocoder HTTP requests give up after twenty seconds.",
                  "Geocoder HTTP request timeout: 45s")


def test_the_same_wait_said_both_ways_does_not_contradict():
    assert not queued("Geocoder HTTP requests give up after forty-five seconds.",
                      "Geocoder HTTP request timeout: 45s")


def test_giving_up_after_tries_stays_a_count_of_attempts():
    assert spell_out("the sender gives up after 4 attempts") == (
        "the sender gives up after 4 attempts")


def test_chars_are_characters():
    assert queued("Usernames must be at least 4 characters long.",
                  "Min username length = 6 chars.")
    assert not queued("Usernames must be at least 6 characters long.",
                      "Min username length = 6 chars.")
