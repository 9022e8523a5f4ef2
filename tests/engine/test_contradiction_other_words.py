"""The rules judge finds a contradiction said in other words, and keeps apart what only
looks like one; pure, no database. Sentences written for these tests, not taken from the
labelled sets."""

import pytest

from memories.engine.contradiction import measures
from tests.helpers import queued


@pytest.mark.parametrize(("a", "b"), [
    ("Dependabot is enabled on the payments repository.",
     "Dependabot is disabled on the payments repository."),
    ("Squash merges are allowed on main.", "Squash merges are forbidden on main."),
    ("Webhooks are delivered synchronously.", "Webhooks are delivered asynchronously."),
    ("The audit log is stored in UTC.", "The audit log is stored in local time."),
])
def test_an_opposite_word_reads_as_a_negation(a, b):
    assert queued(a, b)


def test_opposite_words_about_two_things_do_not_clash():
    assert not queued("Dependabot is enabled on the payments repository.",
                      "Renovate is disabled on the frontend repository.")


def test_retries_and_attempts_count_the_same_tries():
    assert measures(["failed", "jobs", "are", "retried", "5", "times"]) == {"attempts": 6.0}
    assert measures(["jobs", "give", "up", "after", "3", "attempts"]) == {"attempts": 3.0}
    assert queued("Failed jobs are retried 5 times.", "Failed jobs give up after 3 attempts.")
    # two retries after the first try are three attempts
    assert not queued("Failed jobs are retried 2 times.",
                      "Failed jobs give up after 3 attempts.")


def test_a_percentage_is_one_measure_however_written():
    assert queued("The error budget is 1 percent.", "The error budget is 2%.")
    assert not queued("The error budget is 1 percent.", "The error budget is 1%.")


def test_a_limit_named_in_other_words_is_one_subject():
    assert queued("Avatars are limited to 2 MB per image.", "The per-image avatar limit is 5 MB.")
    assert queued("Passwords must be at least 10 characters long.",
                  "The minimum length of a password is 8 characters.")


def test_limits_of_two_things_named_apart_do_not_clash():
    assert not queued("The API pod is limited to 512 MB of memory.",
                      "The worker pod is limited to 2 GB of memory.")
    assert not queued("Passwords must be at least 10 characters long.",
                      "Usernames are at most 30 characters long.")


def test_a_verb_before_its_object_is_no_modifier_of_it():
    assert queued("Nightly reports run on Airflow.", "We schedule nightly reports with Dagster.")
    assert not queued("The nightly report runs on Airflow.",
                      "The weekly report runs on Dagster.")


@pytest.mark.parametrize("b", ["The CLI no longer supports Node 16.",
                               "The CLI doesn't support Node 16 anymore."])
def test_a_negation_in_another_word_order_contradicts(b):
    assert queued("We support Node 16 in the CLI.", b)


def test_a_negation_about_another_thing_does_not():
    assert not queued("The staging cache is flushed every night.",
                      "The session cache is never flushed.")


def test_a_passive_that_names_who_does_it_gives_the_role():
    assert queued("The release checklist is maintained by Omar.",
                  "Priya maintains the release checklist.")
    assert not queued("The release checklist is maintained by Omar.",
                      "Omar maintains the release checklist.")


def test_a_preference_reversed_in_other_words_contradicts_for_the_same_person():
    assert queued("He prefers named exports over default exports.",
                  "He prefers default exports to named ones.")
    assert not queued("He prefers named exports over default exports.",
                      "She prefers default exports to named ones.")


def test_a_statement_that_adds_a_value_does_not_replace_it():
    assert queued("The SDK is tested on Python 3.11.", "The SDK is tested on Python 3.13.")
    assert not queued("The SDK is tested on Python 3.11.",
                      "The SDK is also tested on Python 3.13.")


def test_values_in_different_roles_fill_different_slots():
    assert not queued("Build artifacts are uploaded to S3.",
                      "Build artifacts are signed with Sigstore before they are uploaded.")


def test_a_number_does_not_take_the_place_of_a_name():
    assert not queued("Java 21 is the runtime for the backend.", "The backend uses Gradle.")


def test_a_version_said_in_other_words_contradicts_unless_the_change_is_told():
    assert queued("The cluster runs Kubernetes 1.29.", "Our cluster is on Kubernetes 1.27 now.")
    assert not queued("The cluster runs Kubernetes 1.29.",
                      "We upgraded the cluster from Kubernetes 1.27 to 1.29.")


def test_only_one_way_leaves_no_room_for_another():
    assert queued("Production deploys are triggered by merging to main.",
                  "Production deploys are only triggered by a signed tag.")
    assert not queued("Staging deploys are triggered by merging to main.",
                      "Production deploys are only triggered by a signed tag.")


def test_an_opposite_word_names_another_thing_when_no_negation_is_in_question():
    assert not queued("Synchronous calls time out after 5 seconds.",
                      "Asynchronous jobs time out after 10 minutes.")
    assert queued("Synchronous calls time out after 5 seconds.",
                  "Synchronous calls time out after 10 minutes.")


def test_a_negation_in_another_place_is_no_contradiction():
    assert not queued("Caching is disabled in development.", "Caching is enabled in production.")
    assert queued("Caching is disabled in production.", "Caching is enabled in production.")


def test_a_value_that_marks_the_subject_names_another_subject():
    assert not queued("The p95 latency target is 200 ms.", "The p99 latency target is 500 ms.")
    assert queued("The p95 latency target is 200 ms.", "The p95 latency target is 500 ms.")
