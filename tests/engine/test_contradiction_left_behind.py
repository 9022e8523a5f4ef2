"""What a statement leaves behind is none of its values, and what a role is held for must
be one thing (issue 12, 2026-11-28, night): "we switched error tracking from Honeybadger
to Sentry" and "we tried Airbrake before settling on Sentry" agree on Sentry; a release
manager for one release is no rival of the app's; two quantities are counts of two
things, and a schedule is no count; a statement that says only a category's words and
its member speaks of the project's whole."""

from tests.helpers import queued


def test_a_member_moved_off_or_tried_is_none_of_a_statements_values():
    assert not queued("We switched error tracking from Honeybadger to Sentry.",
                      "We tried Airbrake in 2021 before settling on Sentry.")
    # the one kept still clashes with another
    assert queued("We switched error tracking from Honeybadger to Sentry.",
                  "Error tracking goes to Airbrake.")


def test_a_release_of_a_thing_is_not_the_thing():
    assert not queued("Release manager for Android 7.1: Bea.",
                      "Release manager for the Android app: Lior")
    assert queued("Release manager for the Android app: Bea",
                  "Lior is the release manager for the Android app.")


def test_a_window_given_by_day_and_hours_is_no_count_of_its_own():
    assert queued("The backup window starts at 23:00 UTC.",
                  "Backup window: Saturdays 03:00-05:00 UTC.")


def test_a_statement_of_only_the_categorys_words_speaks_of_the_whole():
    assert queued("Data experiments are tracked in Neptune.", "Experiment tracking: MLflow")
    # a team's own tracker says nothing of another's
    assert not queued("Data experiments are tracked in Neptune.",
                      "The ranking team tracks its experiments in MLflow.")


def test_a_member_only_tried_is_no_choice_and_a_member_denied_beside_is_still_named():
    assert not queued("We tried NATS for the job queue.", "The job queue runs on RabbitMQ.")
    assert queued("We use NATS for the job queue.", "The job queue runs on RabbitMQ.")
    assert not queued("Don't use yarn in the docs repo; pnpm only.",
                      "Docs repo: use pnpm, not yarn.")
    # "evaluated" is no trial: flags evaluated on one side and another are two sides
    assert queued("Feature flags are evaluated client-side.",
                  "Feature flags are evaluated server-side with the Unleash SDK.")


def test_two_periods_are_two_turns_of_a_role():
    assert not queued("Noor is on call for payments this week.",
                      "Emre is on call for payments next week.")
    assert queued("Noor is on call for payments this week.",
                  "Emre is on call for payments this week.")


def test_a_member_passed_over_in_a_phrase_and_a_state_of_the_early_days():
    assert not queued("Omar prefers Jetpack Compose for new screens.",
                      "New Android screens: Omar wants them declarative rather than in XML layouts.")
    assert not queued("The gateway upstream timeout was 15s in the early days.",
                      "The gateway upstream timeout is 5s.")
    assert queued("The gateway upstream timeout is 15s.", "The gateway upstream timeout is 5s.")


def test_a_state_before_or_until_a_named_year_or_season_is_history():
    assert not queued("Before 2021 we ran Resque for background jobs.",
                      "Background jobs run on Sidekiq.")
    assert not queued("Until spring 2023 the search cluster ran Elasticsearch 7.10.",
                      "The search cluster runs OpenSearch 2.11.")
    assert queued("We run Resque for background jobs.", "Background jobs run on Sidekiq.")
    # ... and so is a state at an event in the past tense
    assert not queued("When the platform launched, the primary region was us-east1.",
                      "Primary region for the platform is us-central1.")
    assert queued("The primary region for the platform is us-east1.",
                  "Primary region for the platform is us-central1.")


def test_one_swap_of_a_place_and_its_value_says_two_facts():
    assert not queued("recs-api HPA max in dev: 3 replicas.",
                      "recs-api HPA max in prod: 40 replicas.")
    assert queued("recs-api HPA max in prod: 3 replicas.",
                  "recs-api HPA max in prod: 40 replicas.")
