"""Money written with "$" and "k" or "thousand" is a number of dollars (a spending limit
is a budget), "10k" alone is 10000, and one counted thing said with two nouns ("pods" /
"replicas", "hosts" / "VMs" / "machines") is counted as one. Pure, no database. Sentences
written for these tests, not taken from the labelled sets."""

from memories.engine.short_forms import spell_out
from tests.helpers import queued


def test_money_with_a_dollar_sign_is_a_number_of_dollars():
    assert spell_out("a cap of $3k") == "a cap of 3000 dollars"
    assert spell_out("costs $40,000 a year") == "costs 40000 dollars a year"
    assert spell_out("$2.5M raised") == "2500000 dollars raised"
    assert spell_out("we index 50k documents") == "we index 50000 documents"


def test_a_small_m_after_a_bare_number_stays_minutes():
    assert spell_out("the job takes 5m") != spell_out("the job takes 5000000")


def test_two_budgets_said_in_words_and_with_a_dollar_sign_contradict():
    assert queued("The quarterly GCP budget is forty thousand dollars.",
                  "Quarterly GCP budget: $25k")


def test_one_budget_said_both_ways_does_not():
    assert not queued("The quarterly GCP budget is twenty-five thousand dollars.",
                      "Quarterly GCP budget: $25k")


def test_pods_and_replicas_of_one_deployment_are_one_count():
    assert spell_out("runs six pods") == "runs six replicas"
    assert queued("search-api: 4 replicas in staging.",
                  "The search API deployment runs nine pods in staging.")


def test_the_same_number_of_pods_and_replicas_does_not_contradict():
    assert not queued("search-api: 4 replicas in staging.",
                      "The search API deployment runs four pods in staging.")


def test_a_pod_not_counted_keeps_its_name():
    assert spell_out("the pod restarts") == "the pod restarts"


def test_a_spending_limit_is_a_budget():
    assert queued("Our AWS spending ceiling is eight thousand dollars a month.",
                  "Our AWS budget is $3k a month.")
    assert not queued("Our AWS spending ceiling is three thousand dollars a month.",
                      "Our AWS budget is $3k a month.")
