"""A name given ("is called X", "is named X", "is known as X") says what the thing is,
as "is X" does, so a terse note "thing: Y" clashes with it; "named after" gives no name.
Pure, no database. Sentences written for these tests, not taken from the labelled sets."""

from tests.helpers import queued


def test_a_name_given_against_a_noted_name_contradicts():
    assert queued("Our staging Kubernetes cluster is called `blue-ridge`.",
                  "staging kubernetes cluster: green-valley")


def test_the_same_name_given_and_noted_does_not():
    assert not queued("Our staging Kubernetes cluster is called `blue-ridge`.",
                      "staging kubernetes cluster: blue-ridge")


def test_a_name_given_is_no_quality_of_the_thing():
    assert not queued("The archive bucket is named `cold-archive`.",
                      "The archive bucket is encrypted.")


def test_a_name_given_to_one_thing_says_nothing_of_a_count_of_another():
    assert not queued("Staging runs 3 worker replicas.",
                      "The staging queue is named `jobs-staging`.")


def test_a_number_does_not_replace_a_name_in_one_slot():
    assert not queued("Search requests time out after 8 seconds.",
                      "Search results list dates as Unix epoch seconds.")
