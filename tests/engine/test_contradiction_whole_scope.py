"""A scope that covers everything remembered ("across the account", "across our whole
org") narrows nothing, so it neither hides a clash nor makes a subject of its own. Pure,
no database. Sentences written for these tests, not taken from the labelled sets."""

from tests.helpers import queued


def test_a_setting_across_the_account_clashes_with_another_value():
    assert queued("We keep S3 access logs for 30 days.",
                  "S3 access log retention is set to one year across the account.")


def test_the_same_setting_across_the_account_does_not():
    assert not queued("We keep S3 access logs for 30 days.",
                      "S3 access log retention is set to a month across the whole org.")


def test_a_scope_of_one_place_still_narrows():
    assert not queued("We keep S3 access logs for 30 days.",
                      "S3 access log retention is set to one year in the audit account.")
