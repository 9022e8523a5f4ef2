"""A name is no form of a word it starts with, and a compound that puts a word of its own
before a shared one names another thing (issue 12, 2026-11-28, night): "quarryd" (a
daemon) is not "quarry", "homebrew-quarry" (a tap) is not "quarry", "legacy-billing" is
not "billing". A setting's snake_case name says its words ("refresh_token" is refresh
tokens)."""

from tests.helpers import queued


def test_a_name_is_no_form_of_the_word_it_starts_with():
    assert not queued("quarryd listens on port 7878.", "quarry's docs server runs on port 8000.")


def test_a_compound_with_a_word_of_its_own_first_is_another_thing():
    assert not queued("quarry's default branch is main.", "The homebrew-quarry tap repository "
                      "still uses master as its default branch.")
    assert not queued("The billing service times out after 30 seconds.",
                      "The legacy-billing service times out after 10 seconds.")
    # the thing itself, however written, is one
    assert queued("quarry's default branch is main.",
                  "The quarry repository still uses master as its default branch.")
    assert queued("The billing service times out after 30 seconds.",
                  "billing-service times out after 10 seconds.")


def test_a_snake_case_setting_says_its_words():
    assert queued("Refresh tokens are valid for 30 days.", "refresh_token TTL: 604800 s")
    assert not queued("Refresh tokens are valid for 7 days.", "refresh_token TTL: 604800 s")
