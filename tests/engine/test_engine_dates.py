"""The dates a text names, relative ones resolved against the date it was said on."""

from datetime import date

from memories.engine.dates import Period, date_match, day, names_a_date, periods_named

SAID_ON = date(2023, 7, 20)  # a Thursday


def test_yesterday_and_last_saturday_are_the_days_before_the_date_it_was_said_on():
    assert periods_named("I went to a support group yesterday", SAID_ON) == [
        day(date(2023, 7, 19))]
    assert periods_named("I ran a charity race last Saturday", SAID_ON) == [
        day(date(2023, 7, 15))]


def test_next_month_crosses_into_the_next_year_and_weeks_ago_name_a_week():
    assert periods_named("the kids start school next month", date(2023, 12, 5)) == [
        Period(date(2024, 1, 1), date(2024, 2, 1))]
    assert periods_named("two weeks ago we went camping", SAID_ON) == [
        Period(date(2023, 7, 3), date(2023, 7, 10))]


def test_absolute_dates_name_a_day_a_month_or_a_year():
    assert periods_named("What did she show on October 13, 2023?") == [
        day(date(2023, 10, 13))]
    assert periods_named("the setback in October 2023") == [
        Period(date(2023, 10, 1), date(2023, 11, 1))]
    assert periods_named("the beach trips in 2023") == [
        Period(date(2023, 1, 1), date(2024, 1, 1))]


def test_a_month_without_a_year_matches_that_month_of_any_year_and_may_the_verb_is_no_month():
    june = periods_named("When did she go camping in June?")
    assert june == [Period(month=6)]
    assert date_match(june, [day(date(2021, 6, 30))]) == 0.5
    assert date_match(june, [day(date(2021, 7, 1))]) == 0.0
    assert periods_named("we may go in the spring") == []
    assert not names_a_date("we may go camping")


def test_without_a_reference_relative_words_name_nothing():
    assert periods_named("we went camping last week") == []
    assert names_a_date("what did we decide last week")


def test_a_match_on_a_day_counts_more_than_on_a_month_or_a_year():
    said = [day(date(2023, 10, 13))]
    assert date_match(periods_named("on 13 October 2023"), said) == 1.0
    assert date_match(periods_named("in October 2023"), said) == 0.5
    assert date_match(periods_named("in 2023"), said) == 0.2
    assert date_match(periods_named("on 14 October 2023"), said) == 0.0


def test_letters_a_case_blind_match_takes_for_ascii_ones_name_the_same_period():
    # re.IGNORECASE matches "ſ" as "s", "ı" and "İ" as "i", the Kelvin sign as "k"
    for said in ("laſt week", "thıs week", "THİS WEEK", "two weeKs ago"):
        expected = periods_named(said.replace("ſ", "s").replace("ı", "i").replace(
            "İ", "I").replace("K", "k"), SAID_ON)
        assert periods_named(said, SAID_ON) == expected != []


def _periods_pattern_by_pattern(text, reference=None):
    """periods_named as first written: every pattern run, then taken out with re.sub. The
    skipping of patterns that cannot match must find exactly what this finds."""
    from memories.engine import dates

    found, rest = [], text
    for pattern in dates._ABSOLUTE:
        found += [p for p in (dates._absolute(m, reference) for m in pattern.finditer(rest))
                  if p is not None]
        rest = pattern.sub(" ", rest)
    if reference is not None:
        found += [p for p in (dates._relative(m, reference)
                              for m in dates._RELATIVE.finditer(rest)) if p]
    return list(dict.fromkeys(found))[:dates.MAX_PERIODS]  # each once, the first few


def _texts_with_and_without_dates():
    from pathlib import Path

    from memories.evaluation import locomo

    fixtures = Path(__file__).parents[1] / "fixtures"
    texts = [turn.content for path in ("locomo_tiny.json", "locomo_heldout.json")
             for conversation in locomo.load(fixtures / path)
             for turn in conversation.turns]
    texts += [q.question for path in ("locomo_tiny.json", "locomo_heldout.json")
              for conversation in locomo.load(fixtures / path) for q in conversation.questions]
    texts += ["On 3 May 2023 and May 4, 2023, then in June, by 2024 and mid-July",
              "Sept. 9th, 2022 was before Oct 2 and the 5th of March; two weeks ago",
              "may I ask about March? In 1999, last Friday, in May 2020, 12 Dec",
              "no date here", "", "June", "2023 in 2023 of 2023, Jan 31 2023 Feb 30 2023",
              "Two Weeks AGO, LAST Monday, Yesterday, this Morning, nExt year, a Few days ago",
              "the laſt week of ſeptember, paſt month", "during 1999 and since 2001",
              "Café opened last month, since 2020, this weekend, 3 days ago"]
    return texts


def test_skipping_patterns_that_cannot_match_finds_what_running_every_one_finds():
    dated = 0
    for text in _texts_with_and_without_dates():
        for reference in (None, SAID_ON):
            expected = _periods_pattern_by_pattern(text, reference)
            assert periods_named(text, reference) == expected, text
            dated += bool(expected)
    assert dated > 100  # the texts name dates, so the comparison says something


def test_whether_a_text_names_a_date_is_what_running_every_pattern_says():
    from memories.engine import dates

    answers = [(names_a_date(text), any(pattern.search(text) for pattern in
                                        (*dates._ABSOLUTE, dates._RELATIVE)))
               for text in _texts_with_and_without_dates()]
    assert all(quick == every for quick, every in answers)
    assert 30 < sum(every for _, every in answers) < len(answers)  # both kinds are there


def test_a_text_repeating_dates_names_each_period_once_and_only_the_first_few():
    from memories.engine.dates import MAX_PERIODS, periods_named

    repeated = periods_named("in June " * 12_500, date(2024, 7, 1))
    assert len(repeated) == 1
    many = periods_named(" ".join(f"{day} May 2024" for day in range(1, 32))
                         + " " + " ".join(f"{day} June 2024" for day in range(1, 31)))
    assert len(many) == MAX_PERIODS
    assert many[0] == periods_named("1 May 2024")[0]
