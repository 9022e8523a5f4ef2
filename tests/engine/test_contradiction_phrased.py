"""Clashes said in other words than the rules' plain forms: a count whose noun is named
by several words, a plural and its singular, a compound verb, a consequence after
", so", a team as the holder of a role, state kept or not, a dependency had or not;
and the short forms that are something else in lower case. Pure, no database; sentences
written for these tests, not taken from the labelled sets."""

from memories.engine.short_forms import spell_out
from tests.helpers import queued


def test_the_words_between_a_count_and_what_it_counts_still_say_which_things():
    assert queued("The ingest worker pool has six replicas in staging.",
                  "Staging runs 9 ingest worker replicas.")
    assert not queued("The ingest worker pool has six replicas in staging.",
                      "Staging runs 9 export worker replicas.")


def test_a_plural_in_ies_is_the_same_word_as_its_singular_in_y():
    assert queued("Never cache API replies containing tokens.",
                  "Cache every API reply containing tokens for an hour.")
    assert queued("Never edit the retention policy by hand.",
                  "Edit the retention policies by hand.")
    assert not queued("Never log request bodies.", "Log every response header at DEBUG level.")


def test_a_negated_verb_negates_a_compound_that_opens_with_it():
    assert queued("Always squash-merge feature branches.", "Never squash feature branches.")
    assert not queued("Always squash-merge feature branches.", "Never rebase feature branches.")


def test_what_follows_so_is_a_clause_of_its_own():
    assert queued("Marta is the owner of the search service.",
                  "Jonas is the only owner of search, so requests about it go to him.")
    assert not queued("Marta is the owner of the search service.",
                      "Jonas is the only owner of billing, so requests about it go to him.")


def test_a_team_holds_a_role_as_a_person_does():
    assert queued("The mobile SDK is owned by the Client Platform team.",
                  "Ownership of the mobile SDK sits with the Growth team.")
    assert queued("The Frontend team owns the component library.",
                  "The component library is owned by the Backend team.")
    assert not queued("The Frontend team owns the component library.",
                      "The Backend team owns the billing service.")
    assert not queued("Ownership of the mobile SDK sits with the Growth team.",
                      "The Growth team owns the mobile SDK.")


def test_keeping_session_state_is_the_opposite_of_being_stateless():
    assert queued("The render service is stateless.",
                  "The render service keeps user session state in memory.")
    assert not queued("The render service is stateless.",
                      "The render service keeps no session state.")
    assert not queued("The UI state is kept in Pinia.", "We keep UI state in Pinia.")


def test_having_no_dependency_on_a_service_is_not_depending_on_it():
    assert queued("The checkout service depends on the pricing service.",
                  "Checkout has no dependency on pricing.")
    assert not queued("The checkout service depends on the pricing service.",
                      "The checkout service has no dependency on the search service.")


def test_a_short_form_that_is_a_word_in_lower_case_is_written_out_only_in_capitals():
    assert spell_out("migrated the UI to TS") == "migrated the UI to TypeScript"
    assert spell_out("the ts column is indexed") == "the ts column is indexed"
    assert spell_out("two PRs and one MR") == "two pull requests and one merge request"
    assert spell_out("pr = fetch(url)") == "pr = fetch(url)"
    assert spell_out("ask Mr Okafor or Mrs Lee") == "ask Mr Okafor or Mrs Lee"


def test_days_glued_to_a_number_are_read_only_as_a_small_d():
    assert spell_out("logs are kept 30d") == "logs are kept 30 d"
    assert spell_out("a 3D model viewer") == "a 3D model viewer"


def test_a_switch_on_or_off_for_a_place_is_enabled_or_disabled_there():
    assert queued("Debug logging is on in production.", "Debug logging is off in production.")
    assert queued("Request tracing is on for every tenant.",
                  "Request tracing is disabled for every tenant.")
    assert not queued("Debug logging is on in staging.", "Debug logging is off in production.")
    assert not queued("Dana is on call this week.", "Dana is off on Friday.")
