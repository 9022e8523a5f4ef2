"""Roles as teams abbreviate them ("TL", "EM", "DRI", "FE", "BE") are read as the words
they stand for, only when written in capitals; "folks" of a field are its team. Pure, no
database. Sentences written for these tests, not taken from the labelled sets."""

from memories.engine.short_forms import spell_out
from tests.helpers import queued


def test_a_role_abbreviation_in_capitals_is_written_out():
    assert spell_out("The TL signs off on releases") == "The tech lead signs off on releases"
    assert spell_out("FE and BE") == "frontend and backend"


def test_the_same_letters_in_lower_case_are_words_of_their_own():
    assert spell_out("it will be done") == "it will be done"
    assert spell_out("an em dash") == "an em dash"


def test_a_dri_is_the_one_owner_so_another_owner_contradicts():
    assert queued("Tomasz is DRI for the search-svc.",
                  "Elena is the sole owner of the search service.")


def test_a_dri_of_one_thing_says_nothing_of_another():
    assert not queued("Tomasz is DRI for the search-svc.",
                      "Elena maintains the search dashboards.")


def test_the_abbreviated_team_reversing_a_preference_contradicts():
    assert queued("The backend team prefers gRPC over REST.",
                  "BE folks would much rather use REST than gRPC.")


def test_the_abbreviated_team_stating_the_same_preference_does_not():
    assert not queued("The backend team prefers gRPC over REST.",
                      "BE folks would much rather use gRPC than REST.")


def test_another_team_reversing_the_preference_is_another_subject():
    assert not queued("The backend team prefers gRPC over REST.",
                      "Mobile folks would rather use REST than gRPC.")
