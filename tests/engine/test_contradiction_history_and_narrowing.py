"""Look-alikes that must stay out of the queue (issue 12, 2026-11-28, evening, from the
false flags of two fresh blind batches): a state told as history in more ways ("was on
Python 3.9 until ...", "back in 2022", "owned ... until the reorg", "was 15 minutes before
the complaints"), a limit said to narrow another further, a "not" with only a phrase
after it, and two things of one kind each named after the same noun. Each beside the
clash of the same shape that must still be queued."""

from tests.helpers import queued


def test_a_state_told_as_history_is_no_clash_with_the_present_one():
    assert not queued("orders-api was on Python 3.9 until the upgrade last spring.",
                      "orders-api runs on Python 3.12.")
    assert not queued("Release cadence: every two weeks on Tuesdays.",
                      "Back in 2021 we released monthly.")
    assert not queued("Team Orion owned billing until the reorg in March.",
                      "The billing service is owned by Team Vega.")
    assert not queued("Cart TTL in Redis: 12 hours.",
                      "Cart TTL was 30 minutes before the checkout complaints.")
    assert queued("orders-api is on Python 3.9.", "orders-api runs on Python 3.12.")
    assert queued("Team Orion owns the billing service.",
                  "The billing service is owned by Team Vega.")


def test_a_limit_said_to_narrow_another_further_adds_to_it():
    assert not queued("Uploads on wiki-service are limited to 50 MB.",
                      "Uploads on wiki-service are further limited to 20 MB.")
    assert queued("Max upload size on wiki-service is 50 MB.",
                  "Max upload size on wiki-service is 20 MB.")


def test_a_not_with_only_a_phrase_after_it_denies_for_the_clause_before_it():
    assert not queued("The gateway uses Redis for session counters.",
                      "The gateway keeps TLS certificates in memory, not in Redis.")
    assert queued("The gateway uses Redis for session counters.",
                  "There is no Redis anywhere in the gateway.")


def test_two_things_of_one_kind_named_after_the_same_noun_are_two_subjects():
    assert not queued("Airflow DAG refresh_sales_marts runs daily at 04:00 UTC.",
                      "Airflow DAG load_clickstream runs hourly.")
    assert queued("Airflow DAG refresh_sales_marts runs daily at 04:00 UTC.",
                  "Airflow DAG refresh_sales_marts runs hourly.")
