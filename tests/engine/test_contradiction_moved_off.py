"""A statement that still states what another says was moved off is out of date (issue 12,
2026-11-28, late): "we migrated search from Solr to OpenSearch" and "search runs on Solr"
cannot both be true now."""

from tests.helpers import queued


def test_a_member_moved_off_and_still_stated_clashes():
    assert queued("Search runs on Solr.", "We migrated search from Solr to OpenSearch last year.")
    assert queued("We use Mercurial for version control.", "The team moved from Mercurial to Git.")


def test_the_past_another_thing_or_the_new_member_agree_with_a_move():
    assert not queued("Search used to run on Solr.",
                      "We migrated search from Solr to OpenSearch last year.")
    assert not queued("The billing app still runs on Heroku.",
                      "We migrated the marketing site from Heroku to Vercel.")
    assert not queued("Search runs on OpenSearch.",
                      "We migrated search from Solr to OpenSearch last year.")
