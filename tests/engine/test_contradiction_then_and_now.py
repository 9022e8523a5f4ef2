"""A change told over time is no contradiction, and a language named before a noun says
which things a statement is about; pure, no database. Sentences written for these tests,
not taken from the labelled sets."""

from tests.helpers import queued


def test_a_state_in_the_past_tense_does_not_clash_with_one_said_to_hold_now():
    assert not queued("Until last spring the docs were hosted on Netlify.",
                      "Our docs are now hosted on Vercel.")
    assert not queued("Our Django apps targeted Python 3.8.",
                      "Our Django apps currently target Python 3.12.")
    assert not queued("The CLI required Python 3.8.", "The CLI currently requires Python 3.12.")


def test_two_claims_about_the_present_still_clash():
    assert queued("The CLI requires Python 3.8.", "The CLI requires Python 3.12 now.")
    # a participle after "is" is no past tense
    assert queued("Python 3.8 is required by the CLI.", "The CLI now requires Python 3.12.")


def test_a_language_before_a_noun_names_which_things_and_not_a_value():
    assert not queued("The Ruby services are linted with RuboCop.",
                      "Python services are linted with Ruff.")
    # after a verb it is the value of one slot
    assert queued("The worker is written in Python.", "The worker is written in Go.")
