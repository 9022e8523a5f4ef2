"""A reading of the two statements together decides where the rules found no conflict."""

import pytest

from memories.engine.contradiction import (
    CONFIDENT,
    READ_KEPT,
    READ_QUEUED,
    READ_SIMILARITY,
    read_verdict,
    rules_verdict,
)

# Two statements the rules find nothing in: the conflict is said in other words.
RETENTION = ("We keep 30 days of application logs.", "Log retention is two weeks.")


def reading(chance):
    """A reader that says `chance` of every pair, and remembers what it was shown."""
    def read(a, b):
        read.shown.append((a, b))
        return chance
    read.shown = []
    return read


def never(a, b):
    raise AssertionError(f"the reader was asked about {a!r} / {b!r}")


def test_the_rules_alone_find_no_conflict_in_the_pair_the_reader_is_asked_about():
    verdict = rules_verdict(*RETENTION)
    assert not verdict.contradicts and verdict.confidence < CONFIDENT


def test_a_sure_reading_queues_a_contradiction_the_rules_missed():
    read = reading(0.9)
    verdict = read_verdict(*RETENTION, read)
    assert verdict.contradicts and verdict.confidence >= CONFIDENT
    assert "read together" in verdict.reason and "0.90" in verdict.reason
    assert read.shown == [RETENTION]


def test_a_reading_at_the_queue_mark_is_confident_and_just_under_it_is_kept_unsure():
    at_mark = read_verdict(*RETENTION, reading(READ_QUEUED))
    assert at_mark.contradicts and at_mark.confidence == pytest.approx(CONFIDENT)
    under = read_verdict(*RETENTION, reading(READ_QUEUED - 0.05))
    assert under.contradicts and under.confidence < CONFIDENT


def test_a_doubtful_reading_leaves_the_rules_verdict_as_it_was():
    verdict = read_verdict(*RETENTION, reading(READ_KEPT - 0.01))
    assert verdict == rules_verdict(*RETENTION)


def test_a_confident_rules_verdict_is_not_read_again():
    a, b = "The API listens on port 8080.", "The API listens on port 9090."
    assert rules_verdict(a, b).confidence >= CONFIDENT
    assert read_verdict(a, b, never) == rules_verdict(a, b)


@pytest.mark.parametrize("a, b", [
    ("Did we keep 30 days of logs?", "Log retention is two weeks."),
    ("Thanks, sounds good!", "Log retention is two weeks."),
    ("[8 May 2023] Mel: I went hiking last weekend.",
     "[9 May 2023] Tim: I went camping last weekend."),
])
def test_questions_reactions_and_two_speakers_each_of_themselves_are_never_read(a, b):
    verdict = read_verdict(a, b, never)
    assert not verdict.contradicts and verdict == rules_verdict(a, b)


def test_the_reader_reads_what_the_statements_assert_without_their_transcript_stamps():
    read = reading(0.9)
    read_verdict("[8 May 2023] Mel: We keep 30 days of application logs.",
                 "[9 May 2023] Mel: Log retention is two weeks.", read)
    assert read.shown == [RETENTION]


def test_talk_marks_lower_a_reading_below_the_queue():
    plain = read_verdict(*RETENTION, reading(READ_QUEUED + 0.1))
    talk = read_verdict("You know we keep 30 days of application logs!",
                        "Log retention is two weeks.", reading(READ_QUEUED + 0.1))
    assert plain.confidence >= CONFIDENT > talk.confidence


@pytest.mark.parametrize("a, b", [
    ("We use PG 16 in production.", "Production runs PostgreSQL version 16."),
    ("Max upload size is 50 MB.", "Files up to fifty megabytes can be uploaded."),
])
def test_two_statements_of_the_same_values_are_not_read_as_a_change(a, b):
    assert read_verdict(a, b, never) == rules_verdict(a, b)



@pytest.mark.parametrize("a, b", [
    ("We previously kept 30 days of application logs.", "Log retention is two weeks."),
    ("The CI ran on Jenkins.", "Our CI now runs on GitHub Actions."),
])
def test_a_change_told_over_time_is_not_read_as_a_conflict(a, b):
    assert read_verdict(a, b, never) == rules_verdict(a, b)


def test_two_statements_too_unalike_to_be_of_one_subject_are_not_read():
    assert read_verdict(*RETENTION, never, similarity=READ_SIMILARITY - 0.01) == rules_verdict(
        *RETENTION)
    read = reading(0.9)
    assert read_verdict(*RETENTION, read, similarity=READ_SIMILARITY).contradicts
    assert read.shown == [RETENTION]


def test_a_reading_kept_only_before_the_talk_penalty_is_not_kept():
    """A chance just over READ_KEPT, less two talk marks, is under it: nothing is kept."""
    talk = ("You know we keep 30 days of application logs!",
            "Did you know log retention is two weeks!")
    verdict = read_verdict(*talk, reading(READ_KEPT + 0.05))
    assert verdict == rules_verdict(*talk) and not verdict.contradicts
