"""What a statement says happened, and where a preference applies, are no values: a
state in the past tense against the present is history, a year says when, and a member
named before "prefers" says of what (issue 12, 2026-11-28, night)."""

from tests.helpers import queued


def test_a_value_said_in_the_past_is_history():
    assert not queued("The worker pool size for exports was 10; we raised it to 25 after "
                      "the backlog incident.", "exports worker pool size: 25")


def test_a_participle_before_its_noun_is_no_past():
    assert queued("Supported platforms: macOS (arm64, amd64) and Linux (amd64, arm64). "
                  "Windows isn't supported.",
                  "devctl supports Windows (amd64) as well as macOS and Linux.")


def test_a_year_says_when_not_which_version():
    assert not queued("Ledgerline moved from MongoDB to Postgres in 2021.",
                      "ledgerline's database: PostgreSQL 14")


def test_a_member_named_before_the_preference_is_its_scope():
    assert not queued("For Python services the team prefers structured logs.",
                      "For Java services the team prefers plain text logs.")
    assert not queued("In Kotlin files the user prefers data classes.",
                      "In Swift files the user prefers structs.")
    # what is preferred still clashes
    assert queued("The user prefers Python for scripts.", "The user prefers Go for scripts.")


def test_years_and_months_are_one_duration():
    assert not queued("Invoices are retained for five years.", "invoice retention: 60 months")
    assert queued("Invoices are retained for five years.", "invoice retention: 48 months")


def test_what_a_thing_was_moved_off_is_no_value_of_it():
    assert not queued("We moved Harborview CI off CircleCI last year.",
                      "Harborview CI runs on GitHub Actions.")


def test_a_slot_said_with_was_is_its_history():
    assert not queued("The billing pool size for exports was 10.",
                      "The billing pool size for exports is 25.")
    assert queued("The billing pool size for exports is 10.",
                  "The billing pool size for exports is 25.")
