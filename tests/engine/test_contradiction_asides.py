"""What a statement says beside its claim is read apart from it: what comes right after
or before it (", right after standup"), the event after which it holds ("... after the
spring migration"), and a state that held before an event ("before the fix, X was ...")
is the past. Pure, no database. Sentences written for these tests, not taken from the
labelled sets."""

from tests.helpers import queued


def test_an_event_next_to_a_schedule_does_not_hide_another_day():
    assert queued("The team retro is every Thursday afternoon, just after the demo.",
                  "Team retro: Fridays 15:00.")


def test_the_same_day_with_an_event_next_to_it_does_not_contradict():
    assert not queued("The team retro is every Friday afternoon, just after the demo.",
                      "Team retro: Fridays 15:00.")


def test_a_count_said_with_the_event_it_followed_still_clashes():
    assert queued("The ingest worker pool runs 5 workers in production.",
                  "We raised the ingest worker pool to 8 workers in production after the "
                  "March outage, and it has stayed there.")


def test_the_same_count_after_an_event_does_not_clash():
    assert not queued("The ingest worker pool runs 8 workers in production.",
                      "We raised the ingest worker pool to 8 workers in production after the "
                      "March outage.")


def test_a_state_before_an_event_is_the_past_and_clashes_with_no_present_one():
    assert not queued("Before the index rebuild, search p95 was 900ms.",
                      "Search p95 is 250ms now that the index was rebuilt.")


def test_a_present_state_said_before_an_event_in_a_rule_is_still_judged():
    assert queued("Before a release, the staging cluster runs Node 18.",
                  "Before a release, the staging cluster runs Node 20.")


def test_a_closing_remark_in_brackets_does_not_hide_a_clash():
    assert queued("The kiosk app has no offline support.",
                  "Kiosk app works offline (local cache, writes queued).")
    assert queued("The analytics Postgres is on 16 now.",
                  "analytics Postgres = 13 (for now)")


def test_a_closing_remark_in_brackets_does_not_make_a_clash():
    assert not queued("The kiosk app works offline.",
                      "Kiosk app works offline (local cache, writes queued).")


def test_a_remark_on_a_thing_of_its_own_after_a_comma_is_read_apart():
    assert queued("The admin portal is on Angular 17.",
                  "admin portal: Angular 14, upgrade still pending")


def test_the_same_version_with_a_remark_after_it_does_not_clash():
    assert not queued("The admin portal is on Angular 14.",
                      "admin portal: Angular 14, upgrade still pending")
