"""One statement says a measure of a thing and nothing else; the other says it with a
phrase of its own after the subject (issue 12, 2026-11-28, evening). The phrase narrows
nothing: "Renovate runs nightly" and "Renovate checks for updates monthly" clash. A word of
its own that modifies the subject ("the admin server") or names a thing still makes two
subjects. Also here: a version with three parts is a value, not a word of the subject; a
compound is split before it is stemmed; a participle after "are" is the verb; "our
convention" is the team; a measure that "will rise to" is a plan."""

from memories.engine.contradiction import rules_verdict
from tests.helpers import queued


def test_a_phrase_only_one_side_adds_narrows_no_schedule_or_version():
    assert queued("Renovate runs nightly.", "Renovate checks for updates monthly.")
    assert queued("The billing worker is pinned to Python 3.11.4 until the pandas upgrade "
                  "lands.", "billing worker runs Python 3.12.1")


def test_a_word_of_its_own_before_the_subject_still_makes_two_subjects():
    assert not queued("The API server listens on port 8080.",
                      "The admin server listens on port 9090.")
    assert not queued("The billing worker runs Python 3.11.", "The reporting worker runs "
                                                              "Python 3.12.")


def test_a_version_in_three_parts_is_no_word_of_the_subject():
    # "1.9.22" is no number; read as a name, each side had one of its own
    assert queued("payments-android: Kotlin 1.9.22",
                  "payments-android compiles with Kotlin 2.0.0.")


def test_a_compound_is_split_before_it_is_stemmed():
    # "acme-ios" is "acme" "ios", not "acme" "io"
    a = "The acme iOS app must stay under 40 MB download size."
    b = "acme-ios download size budget: 60 MB."
    assert queued(a, b)
    # the reason gives the amounts as a person writes them, not as 4e+07 bytes
    assert "the size changed: 40 MB against 60 MB" in rules_verdict(a, b).reason


def test_a_reason_says_durations_periods_and_times_in_their_own_units():
    assert rules_verdict("Renovate runs nightly.", "Renovate checks for updates monthly."
                         ).reason == "the period changed: 1 day against 30 days"
    assert rules_verdict("The nightly ledger job starts at 02:00 UTC.",
                         "The ledger job's nightly start time is 05:30 UTC."
                         ).reason.endswith("02:00 against 05:30")
    assert "90 seconds against 2 minutes" in rules_verdict(
        "The deploy-bot HTTP timeout is 90 seconds.",
        "deploy-bot gives up on HTTP calls after 2 minutes.").reason


def test_a_reason_names_what_is_counted_as_a_statement_wrote_it():
    # the measure's key is stemmed ("messag"); a person reads the word as written
    assert rules_verdict("The billing queue holds at most 100 messages.",
                         "You know, the billing queue holds 200 messages!"
                         ).reason == "the messages changed: 100 against 200"


def test_a_participle_after_are_is_the_verb_not_a_word_that_narrows():
    assert queued("Exports of the billing database are encrypted at rest.",
                  "Billing database exports are stored unencrypted.")
    assert not queued("Exports of the billing database are encrypted at rest.",
                      "Billing database exports are not encrypted in transit.")


def test_our_convention_is_the_team_and_another_team_is_not():
    assert queued("The team prefers tabs over spaces.", "Our convention favors spaces over tabs.")
    assert queued("We prefer tabs over spaces.", "Our convention favors spaces over tabs.")
    assert not queued("The mobile team prefers tabs over spaces.",
                      "Our convention favors spaces over tabs.")


def test_a_measure_that_will_rise_is_a_plan_not_a_second_value():
    assert not queued("The upload limit will rise to 200 MB next quarter.",
                      "The upload limit is 50 MB.")
    assert queued("The upload limit is 200 MB.", "The upload limit is 50 MB.")
