from datetime import UTC, datetime, timedelta

import numpy as np

from memories.engine.dedup import content_hash, decide, first_duplicate_in_batch
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


def test_decide_takes_the_most_similar_candidate_at_the_threshold():
    assert decide([0.5, 0.93, 0.91], 0.90).duplicate_of == 1
    assert decide([0.90], 0.90).duplicate_of == 0
    below = decide([0.89], 0.90)
    assert below.duplicate_of is None and below.similarity == 0.89
    assert decide([], 0.9).duplicate_of is None


def test_batch_duplicates_point_at_the_earliest_original():
    a = np.array([1.0, 0.0])
    b = np.array([0.0, 1.0])
    near_a = np.array([0.99, 0.141])
    near_a /= np.linalg.norm(near_a)
    vectors = np.stack([a, b, near_a, a])
    assert first_duplicate_in_batch(vectors, 0.9) == [None, None, 0, 0]
    assert first_duplicate_in_batch(np.zeros((0, 2)), 0.9) == []
