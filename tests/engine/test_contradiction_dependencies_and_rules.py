"""Which thing needs which, and a rule for every case against its denial (issue 12,
2026-11-28, late): "billing depends on auth" and "auth imports billing" set the same two
ends the other way round, whatever verb says the need; "always write tests for bug fixes"
and "bug fixes never need tests" deny one rule in other words."""

from memories.engine import flows
from tests.helpers import queued


def test_a_dependency_read_from_its_verb_or_its_passive():
    assert flows.dependency("BasilCore depends on BasilNetworking.").target == "BasilNetworking"
    said = flows.dependency("auth is called by billing")
    assert (said.source, said.target) == ("billing", "auth")
    # a denied need is none, and "calls" as a noun is no verb
    assert flows.dependency("accounts must never import billing") is None
    assert flows.dependency("The gateway times out upstream calls after 30 seconds.") is None
    # people call one another: no need of one thing on another
    assert flows.dependency("My mom calls me every Sunday.") is None
    assert not queued("My mom calls me every Sunday.", "I call my mom every Sunday.")


def test_two_things_that_need_each_other_the_other_way_round_clash():
    assert queued("The orders service depends on the inventory service.",
                  "inventory-svc depends on orders-svc to function.")
    assert queued("In the iOS workspace, BasilCore depends on BasilNetworking.",
                  "BasilNetworking imports BasilCore.")
    assert queued("When ingest_ads finishes it triggers transform_marketing.",
                  "transform_marketing kicks off ingest_ads as its very first task.")
    # the same way round, in two verbs, is one fact
    assert not queued("The orders service depends on the inventory service.",
                      "orders-svc calls inventory-svc to reserve stock.")
    # a need denied is the other's fact said twice
    assert not queued("billing depends on accounts, not the other way around.",
                      "accounts must never import billing; billing may import accounts.")


def test_upstream_and_downstream_are_a_flow():
    assert queued("fct_revenue is upstream of fct_invoices.", "fct_invoices feeds fct_revenue.")
    assert not queued("fct_revenue is upstream of fct_invoices.",
                      "fct_invoices is downstream of fct_revenue.")


def test_a_rule_for_every_case_against_its_denial_clashes():
    assert queued("Always write tests for bug fixes.", "Bug fixes never need tests.")
    assert queued("Every public function must have a docstring.",
                  "We never write docstrings on public functions.")
    # skipping or bypassing what the rule requires denies it too
    assert queued("Hotfixes must go through staging first, every single time.",
                  "Hotfixes skip staging and go straight to prod.")


def test_how_often_a_denial_or_a_choice_set_apart_is_no_rule_denied():
    # "every ten seconds" says how often, not every case
    assert not queued("Health checks fail if there is no answer within two seconds.",
                      "The health check runs every ten seconds.")
    # a denial of a word that undoes itself affirms
    assert not queued("Every public function in the SDK has a docstring.",
                      "No public SDK function ships undocumented.")
    # "not bullet lists" sets a choice apart; it denies nothing of the rule
    assert not queued("Priya wants detailed paragraph explanations of every change, "
                      "not bullet lists.",
                      "Priya always wants detailed paragraph explanations of changes.")


def test_a_state_that_undoes_a_participle_is_its_denial():
    assert queued("analytics.events is partitioned by event_date.",
                  "analytics.events table is unpartitioned.")
    assert queued("The docs site keeps versioned docs for each minor release.",
                  "Docs are unversioned; only the latest release is documented.")
    # a thing named by such a word denies nothing: the preference is still reversed
    assert queued("Prefer feature flags over long-lived branches for unfinished work.",
                  "Unfinished work should stay on a long-lived feature branch rather than "
                  "behind a flag; that's the team's preference.")
    # nor does an action
    assert not queued("Clickstream is loaded into Snowflake from the S3 lake.",
                      "Clickstream is unloaded out of the S3 lake into Snowflake.")


def test_a_thing_denied_with_no_is_denied_whichever_of_its_words_the_other_says():
    assert queued("users.email has a unique constraint in the database.",
                  "There's no DB-level unique constraint on users.email.")
    # the words after its preposition are where, not what is denied
    assert not queued("The orders table has a unique constraint on order_number.",
                      "There's no foreign key on the orders table.")
