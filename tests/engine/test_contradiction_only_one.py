"""A thing said to be the only one of its kind, or denied with nothing to narrow the
denial, clashes with a statement that names another of its kind or uses it, however
else the two are worded. Pure, no database; sentences written for these tests, not taken
from the labelled sets."""

from tests.helpers import queued


def test_the_only_member_of_a_category_clashes_with_another_on_a_shared_subject():
    assert queued("Our infrastructure is managed solely with Pulumi.",
                  "All cloud infrastructure lives in CloudFormation templates.")
    assert queued("Crash reports go to Bugsnag.",
                  "Honeybadger is our only crash reporter, for web and mobile.")


def test_an_only_member_leaves_other_subjects_and_other_ways_alone():
    assert not queued("We only use Postgres for billing.", "Analytics uses MySQL.")
    assert not queued("The webhook endpoint only accepts JSON.",
                      "The webhook endpoint returns XML errors.")
    assert not queued("Crash reports go to Bugsnag.", "Honeybadger watches our uptime.")


def test_a_thing_denied_outright_clashes_with_a_statement_that_uses_it():
    assert queued("We picked Dramatiq for background tasks.",
                  "There is no Dramatiq anywhere in the codebase.")
    assert queued("The web team uses Yarn to install packages.", "Yarn is not used.")
    assert queued("Frontend builds run on webpack.", "We don't use webpack.")


def test_a_denial_narrowed_to_one_use_or_a_thing_no_longer_named_as_used_is_no_clash():
    assert not queued("We don't use Redis for sessions.", "We use Redis for caching.")
    assert not queued("We don't use Redis.", "Redis was removed last year.")
    assert not queued("There is no Dramatiq anywhere in the codebase.",
                      "There is no Celery anywhere in the codebase.")
