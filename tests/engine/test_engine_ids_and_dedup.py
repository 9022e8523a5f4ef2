from datetime import UTC, datetime, timedelta

import numpy as np

from memories.engine.dedup import content_hash, decide, first_duplicate_in_batch, same_details
from memories.engine.ids import uuid7


def test_uuid7_carries_version_7_and_the_millisecond_it_was_made():
    now = datetime(2026, 11, 22, 12, 0, 0, tzinfo=UTC)
    value = uuid7(now, bytes(10))
    assert value.version == 7
    assert value.variant == "specified in RFC 4122"
    assert value.int >> 80 == int(now.timestamp() * 1000)


def test_uuid7_sorts_by_time():
    now = datetime(2026, 1, 1, tzinfo=UTC)
    ids = [uuid7(now + timedelta(milliseconds=i), b"\xff" * 10 if i % 2 else bytes(10))
           for i in range(5)]
    assert sorted(ids) == ids


def test_content_hash_ignores_case_and_spacing_but_not_words():
    assert content_hash("Use  Tabs\n") == content_hash("use tabs")
    assert content_hash("use tabs") != content_hash("use spaces")


def test_decide_takes_the_most_similar_duplicate_at_the_threshold():
    text = "Run the migrations before deploying"
    candidates = [("Lunch is at noon", 0.5), ("run the migration before deploying!", 0.93),
                  ("Run migrations before deploys", 0.91)]
    assert decide(text, candidates, 0.90).duplicate_of == 1
    assert decide(text, [("run migrations before deploying", 0.90)], 0.90).duplicate_of == 0
    below = decide(text, [("run migrations before deploying", 0.89)], 0.90)
    assert below.duplicate_of is None and below.similarity == 0.89
    assert decide(text, [], 0.9).duplicate_of is None


def test_a_changed_detail_is_not_a_duplicate_however_close_the_vectors():
    old = "The Redis cluster for ledger is in us-east-2 with 5 replicas"
    new = "The Redis cluster for ledger is in eu-west-1 with 3 replicas"
    assert not same_details(old, new)
    assert decide(new, [(old, 0.95)], 0.90).duplicate_of is None
    assert decide(new, [(old, 0.95)], 0.90, strict=False).duplicate_of == 0


def test_negation_and_added_words_are_details():
    assert not same_details("Deploy on Fridays", "Never deploy on Fridays")
    assert not same_details("Run migrations", "Run migrations on prod")
    assert same_details("The password rotates every 30 days",
                        "The password is rotated every 30 days.")


def test_batch_duplicates_point_at_the_earliest_original():
    a = np.array([1.0, 0.0])
    b = np.array([0.0, 1.0])
    near_a = np.array([0.99, 0.141])
    near_a /= np.linalg.norm(near_a)
    contents = ["use tabs", "lunch at noon", "Use tabs.", "use  TABS"]
    vectors = np.stack([a, b, near_a, a])
    assert first_duplicate_in_batch(contents, vectors, 0.9) == [None, None, 0, 0]
    assert first_duplicate_in_batch([], np.zeros((0, 2)), 0.9) == []


def test_batch_items_with_other_details_are_all_kept():
    contents = ["5 replicas in us-east-2", "3 replicas in eu-west-1"]
    vectors = np.stack([np.array([1.0, 0.0])] * 2)
    assert first_duplicate_in_batch(contents, vectors, 0.9) == [None, None]


def test_a_swapped_direction_is_a_different_fact():
    assert not same_details("Replicate the orders database from us-east-1 to eu-west-1",
                            "Replicate the orders database from eu-west-1 to us-east-1")
    assert not same_details("The billing service depends on the auth service",
                            "The auth service depends on the billing service")
    assert not same_details("The billing service calls the auth service",
                            "The auth service calls the billing service")


def test_a_changed_modal_verb_is_a_different_fact():
    assert not same_details("Every admin must enable 2FA", "Every admin may enable 2FA")
    assert not same_details("Reviewers should squash commits", "Reviewers must squash commits")


def test_a_moved_phrase_and_inflection_still_say_the_same():
    assert same_details("Use pytest for tests", "For tests, use pytest.")
    assert same_details("Migrate the sessions from Redis to Postgres",
                        "Migrate sessions to Postgres from Redis")
    assert same_details("Every admin must enable 2FA", "every admin MUST enable 2FA!")


def test_the_decision_keeps_a_reversed_fact_however_close_the_vectors():
    old = "Replicate the orders database from eu-west-1 to us-east-1"
    new = "Replicate the orders database from us-east-1 to eu-west-1"
    assert decide(new, [(old, 0.997)], 0.90).duplicate_of is None
    assert decide("Admins may enable 2FA", [("Admins must enable 2FA", 0.977)],
                  0.90).duplicate_of is None
    assert decide("For tests, use pytest", [("Use pytest for tests", 0.97)],
                  0.90).duplicate_of == 0


def test_a_batch_of_near_copies_reads_each_texts_details_once(monkeypatch):
    from memories.engine import dedup

    read = []
    monkeypatch.setattr(dedup, "details", lambda text: read.append(text) or frozenset(
        text.split()))
    contents = [f"The deploy pipeline builds the image, variant {n}." for n in range(60)]
    vectors = np.ones((60, 4)) / 2.0  # all alike: every pair is above the threshold
    assert first_duplicate_in_batch(contents, vectors, 0.9) == [None] * 60
    assert sorted(read) == sorted(contents)  # read again for every pair, it was 60 * 59
