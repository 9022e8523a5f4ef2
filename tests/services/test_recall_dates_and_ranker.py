"""Recall with the learned ranker: a question that names a date finds what was said
about that date, relative dates ("yesterday") resolved against when it was said."""

from datetime import UTC, datetime

import pytest

from memories.engine import ranker
from memories.services.recall import candidate_features
from memories.services.remembering import remember

JUNE = datetime(2023, 6, 11, 15, 0, tzinfo=UTC)
AUGUST = datetime(2023, 8, 21, 15, 0, tzinfo=UTC)


@pytest.fixture
def two_trips(alice):
    lake = remember(owner=alice, content="We went camping by the lake yesterday, the tent "
                    "leaked.", valid_from=JUNE, importance=5, now=JUNE)
    hills = remember(owner=alice, content="We went camping in the hills, the stove broke.",
                     valid_from=AUGUST, importance=5, now=AUGUST)
    assert lake.created and hills.created  # two trips, not one strengthened
    lake, hills = lake.memory, hills.memory
    for text in ("The quarterly budget review is in March.",
                 "Use black with a line length of 100."):
        remember(owner=alice, content=text, importance=5)
    return lake, hills


def test_the_learned_ranker_is_the_default(settings):
    assert settings.ENGRAM_RANKER == "learned"


def _date_feature(alice, query, name="date") -> dict:
    ids, features = candidate_features(owner=alice, query=query)
    return dict(zip(ids, features[:, ranker.FEATURES.index(name)]))


def test_yesterday_said_on_11_june_matches_a_question_about_10_june(two_trips, alice):
    lake, hills = two_trips
    dates = _date_feature(alice, "Where did we go camping on 10 June 2023?")
    assert (dates[lake.pk], dates[hills.pk]) == (1.0, 0.0)
    dates = _date_feature(alice, "Where did we go camping on 11 June 2023?")
    assert dates[lake.pk] == 1.0  # the day it was said on counts too
    assert set(_date_feature(alice, "Where did we go camping?").values()) == {0.0}


def test_a_date_kept_only_as_the_memorys_own_date_counts_as_one_its_words_cannot_show(
        two_trips, alice):
    # The lake trip's text says "yesterday", which names 10 June; its own date is 11 June.
    # The hills trip's text names no date at all: only its valid_from knows it.
    lake, hills = two_trips
    asked = "Where did we go camping on 21 August 2023?"
    assert _date_feature(alice, asked)[hills.pk] == 1.0
    assert _date_feature(alice, asked, "own_date")[hills.pk] == 1.0
    on_the_lake_day = _date_feature(alice, "Where did we go camping on 10 June 2023?",
                                    "own_date")
    assert (on_the_lake_day[lake.pk], on_the_lake_day[hills.pk]) == (0.0, 0.0)
    said_the_day_after = _date_feature(alice, "Where did we go camping on 11 June 2023?",
                                       "own_date")
    assert said_the_day_after[lake.pk] == 1.0  # "yesterday" names the 10th, not the 11th
    assert set(_date_feature(alice, "Where did we go camping?", "own_date").values()) == {0.0}
