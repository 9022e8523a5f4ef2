"""The words that say what a member of a category does ("error tracking", "exceptions",
"secrets", "pipelines", "formatting") say which slot it fills, not what a statement is
about (issue 12, 2026-11-28, night): "Error tracking for checkout-web is Sentry" and
"checkout-web exceptions are sent to Bugsnag" speak of one slot. With one member said to
be the only one, both statements saying the category's words speak of the whole."""

from tests.helpers import queued


def test_the_words_of_a_categorys_job_are_no_subject_of_their_own():
    assert queued("CI for the platform repo runs on Jenkins.", "The platform repo's pipelines "
                  "are defined in .circleci/config.yml and run on CircleCI.")
    assert queued("Checkout-web exceptions are sent to Bugsnag, not Sentry.",
                  "Error tracking for checkout-web is Sentry.")
    assert queued("data-jobs uses Black to format Python.", "Formatter in data-jobs: ruff format.")


def test_another_thing_is_still_another_slot():
    assert not queued("The platform repo's pipelines are defined in .circleci/config.yml and "
                      "run on CircleCI.", "CI for the docs repo runs on Jenkins.")
    assert not queued("Checkout-web exceptions are sent to Bugsnag.",
                      "Error tracking for search-web is Sentry.")


def test_an_only_member_clashes_where_both_say_the_categorys_words():
    assert queued("Application error tracking goes to our Raygun account.",
                  "Exceptions are reported to Airbrake, which is our only error tracker.")
    # without "only", two trackers may both be in use
    assert not queued("Application error tracking goes to our Raygun account.",
                      "Mobile crash reports go to Airbrake.")


def test_more_members_and_the_words_of_sending_mail():
    assert queued("Feature flags are handled with django-waffle.",
                  "We use Flagsmith for feature flags.")
    assert queued("Password-reset email is sent via Postmark.",
                  "Password-reset mail goes out through Amazon SES.")
    # a provider paid for until a quarter is history
    assert not queued("Until Q2 last year we paid for Flagsmith for feature flags.",
                      "Feature flags live in django-waffle.")
