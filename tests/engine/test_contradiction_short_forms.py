"""Short forms, glued units, slash rates and numbers in words are read as what they stand
for, so a contradiction written with them is found and a restatement is not flagged;
pure, no database. Sentences written for these tests, not taken from the labelled sets."""

from memories.engine.contradiction import measures
from memories.engine.short_forms import spell_out
from tests.helpers import queued


def test_short_forms_of_the_field_are_written_out_even_inside_a_compound():
    assert spell_out("The search-svc opens PRs") == "The search-service opens pull requests"
    assert spell_out("PG and Node.js") == "Postgres and Node"


def test_an_address_or_a_host_name_keeps_its_short_form():
    assert spell_out("pg-replica-2.internal:5432") == "pg-replica-2.internal:5432"
    assert spell_out("mail me at pr@example.com") == "mail me at pr@example.com"


def test_a_glued_unit_and_a_slash_rate_are_spelled_apart():
    assert spell_out("uploads over 10MB wait 5s") == "uploads over 10 MB wait 5 s"
    assert spell_out("at most 600 req/min") == "at most 600 requests per min"


def test_numbers_in_more_than_one_word_become_digits_and_a_lone_one_stays_a_word():
    assert spell_out("twenty-five workers") == "25 workers"
    assert spell_out("one hundred and twenty seconds") == "120 seconds"
    assert spell_out("two thousand five hundred rows") == "2500 rows"
    assert spell_out("the one and only bucket") == "the one and only bucket"


def test_a_rate_is_one_measure_in_any_unit_of_time():
    assert measures(["100", "requests", "per", "minute"]) == measures(
        ["6000", "requests", "per", "hour"])
    assert queued("The search service is pinned to 100 requests per minute.",
                  "The search-svc is pinned to 1,000 req/min.")
    assert not queued("The search service is pinned to 100 requests per minute.",
                      "The search-svc is pinned to 6,000 req/hour.")


def test_a_subject_named_by_its_short_form_is_the_same_subject():
    assert queued("The billing service runs on Node 18.", "billing-svc runs on Node.js 20.")
    assert not queued("The billing service runs on Node 18.", "billing-svc runs on Node.js 18.")
    assert not queued("The billing service runs on Node 18.", "search-svc runs on Node.js 20.")


def test_a_version_said_after_the_word_version_belongs_to_the_name_before_it():
    assert queued("PG on the reporting cluster is version 13.",
                  "The reporting cluster's Postgres is at 15.4.")
    assert not queued("PG on the reporting cluster is version 13.",
                      "The reporting cluster's Redis is at 7.2.")


def test_a_glued_duration_compares_with_one_written_out():
    assert queued("The health check timeout is 10 seconds.",
                  "Health checks time out after 3s.")
    assert not queued("The health check timeout is 10 seconds.",
                      "Health checks time out after 10s.")
