"""A thing both statements name pins their subject (issue 12, 2026-11-28): "search-gateway
uses Elasticsearch 7.17" against "search-gateway's cluster was upgraded to Elasticsearch
8.11 last sprint" speaks of one thing however much context either adds. Each reading sits
beside a look-alike of the same shape that must stay out of the queue."""

from memories.engine import flows
from memories.engine.contradiction import CONFIDENT, rules_verdict


def queued(a: str, b: str) -> bool:
    verdict = rules_verdict(a, b)
    return verdict.contradicts and verdict.confidence >= CONFIDENT


def test_a_named_thing_with_two_versions_contradicts_whatever_context_one_adds():
    assert queued("billing-worker runs Redis 6.2.",
                  "billing-worker's cache was upgraded to Redis 7.2 this quarter.")
    assert queued("Max body size on upload-gateway is 10 MB.",
                  "upload-gateway accepts bodies up to 50 MB and refuses anything bigger.")
    assert queued("pricing-ml: warmup is 3 epochs.", "Warmup in pricing-ml lasts 8 epochs now.")


def test_many_words_of_its_own_beside_a_named_thing_may_say_another_fact_of_it():
    assert not queued("The nightly ETL starts at 02:00 UTC.",
                      "The nightly ETL usually finishes by 03:30 UTC, and alerts fire if it is "
                      "still running at 05:00.")


def test_a_name_each_statement_has_of_its_own_is_another_subject():
    assert not queued("orders-cli is built with Go 1.22.",
                      "orders-agent still builds with Go 1.21.")
    assert not queued("checkout-api rate limit: 100 req/min per key.",
                      "catalog-api rate limit: 1000 req/min per key.")
    # the same name on both sides is the same subject
    assert queued("orders-cli is built with Go 1.22.", "orders-cli still builds with Go 1.21.")


def test_a_past_state_beside_the_named_thing_is_its_history_not_a_clash():
    assert not queued("Back in 2022 the search-api allowed 100 requests/minute per client.",
                      "search-api's limit was raised to 500 req/min per client last quarter.")
    assert queued("The search-api allows 100 requests/minute per client.",
                  "search-api's limit was raised to 500 req/min per client last quarter.")


def test_two_parts_of_a_named_thing_each_said_in_words_of_its_own_are_two_subjects():
    assert not queued("pricing-ml retrains the ranking model monthly.",
                      "pricing-ml's fraud classifier is retrained every week.")
    assert queued("pricing-ml retrains the ranking model monthly.",
                  "pricing-ml's ranking model is retrained every week.")


def test_a_move_off_one_thing_onto_another_is_a_flow_from_it_to_the_other():
    assert queued("We are moving the cron jobs from Jenkins to Argo Workflows.",
                  "The cron jobs are moving off Argo Workflows onto Jenkins.")
    assert not queued("We are moving the cron jobs from Jenkins to Argo Workflows.",
                      "The cron jobs are moving off Jenkins onto Argo Workflows.")


def test_a_sender_and_the_receiver_named_after_what_it_sends_are_the_ends_of_a_flow():
    moved = flows.flow("cart-svc emits checkout events that ledger-svc consumes.")
    assert moved.source == "cart-svc"
    assert queued("cart-svc emits checkout events that ledger-svc consumes.",
                  "ledger-svc sends checkout events to cart-svc.")
    assert not queued("cart-svc emits checkout events that ledger-svc consumes.",
                      "cart-svc sends checkout events to ledger-svc.")


def test_a_quantifier_only_one_statement_says_leaves_the_slot_as_it_is():
    assert queued("Default branch for all new services is main.",
                  "Default branch for new services: trunk.")
    assert not queued("Default branch for all new services is main.",
                      "Default branch for new services: main.")


def test_a_word_narrowing_the_named_thing_on_one_side_or_an_environment_is_another_subject():
    assert not queued("The API runs on port 8000.", "The admin API listens on port 4000.")
    assert not queued("Staging runs 2 replicas of the API.", "The API deployment has 3 replicas.")
    assert queued("The API runs on port 8000.", "The API listens on port 4000.")


def test_a_role_noun_after_is_holds_a_role_with_or_without_an_article():
    assert queued("Aisha is release manager for the billing app.",
                  "Diego is release manager for the billing app.")
    assert queued("Aisha is the release manager for the billing app.",
                  "Diego is release manager for the billing app.")
    assert not queued("Aisha is release manager for the billing app.",
                      "Diego is release manager for the mobile app.")


def test_a_preposition_left_where_an_end_was_taken_out_is_not_what_moves():
    assert queued("Orders replicate from the Dublin primary to the Oregon replica.",
                  "We replicate from Oregon into Dublin.")
    assert not queued("Orders replicate from the Dublin primary to the Oregon replica.",
                      "We replicate from Dublin into Oregon.")


def test_two_slots_of_one_named_thing_are_no_clash():
    assert not queued("Staging Redis is version 7.", "Staging Redis listens on port 6380.")
    assert not queued("The Terraform modules are maintained by Elena.",
                      "All Terraform module changes are reviewed by Aisha.")
    assert queued("Staging Redis is version 7.", "Staging Redis runs version 6.")


def test_a_person_and_a_thing_named_together_are_no_one_value_against_another():
    assert not queued("Leila Haddad owns sync-api and its Postgres database.",
                      "sync-api p95 latency target: 300 ms.")
    assert queued("Leila Haddad owns sync-api.", "sync-api is owned by Omar Aziz.")


def test_a_name_before_a_word_of_its_own_says_which_kind_of_thing_not_a_value():
    assert not queued("cart-api runs on Node 20 LTS.", "cart-api p95 latency target is 120 ms.")
    # what a named thing is leaves the name a value
    assert queued("The desktop client is built with Electron.",
                  "Our desktop client is a Tauri app.")


def test_a_language_tag_is_a_locale_whatever_else_names_it():
    assert queued("checkout-web default locale is en-GB.",
                  "Default locale for checkout-web: fr-FR")
    assert not queued("checkout-web default locale is en-GB.",
                      "Default locale for admin-web: fr-FR")


def test_a_thing_that_feeds_another_is_the_source_of_a_flow():
    assert flows.flow("The parser stage feeds the indexer stage.").target == "the indexer stage"
    assert queued("In quarry, the parser stage feeds the indexer stage.",
                  "quarry's indexer stage runs first and its output feeds the parser.")
    assert not queued("In quarry, the parser stage feeds the indexer stage.",
                      "quarry's parser stage runs first and its output feeds the indexer.")


def test_a_size_in_decimal_and_in_binary_units_is_one_size():
    assert not queued("Each sync worker's memory limit: 4 GB.",
                      "Each sync worker is capped at 4096 MB.")
    assert not queued("The upload cap is 1 GB.", "The upload cap is 1 GiB.")
    assert queued("Each sync worker's memory limit: 4 GB.",
                  "Each sync worker is capped at 8192 MB.")


def test_a_state_told_as_how_it_was_at_first_or_before_an_event_is_history():
    assert not queued("Deploys for the CLI happen every Friday.",
                      "CLI deploys were monthly at first; since spring they happen every Friday.")
    assert not queued("The primary region is eu-west-1.",
                      "Before the 2024 move the primary was in eu-central-1; it has been in "
                      "eu-west-1 since.")
    assert queued("The primary region is eu-west-1.", "The primary region is eu-central-1.")


def test_a_log_level_in_small_letters_counts_beside_the_words_log_level():
    assert queued("Log level in prod for billing-svc: INFO.",
                  "billing-svc runs with LOG_LEVEL=debug in production.")
    # without its kind, "debug" is a verb
    assert not queued("Log level in prod for billing-svc: INFO.",
                      "We debug billing-svc in production with tracing.")


def test_a_plain_word_each_gives_last_as_what_the_thing_is_is_a_value():
    assert queued("The default branch of the docs repo is develop.",
                  "The docs repo's default branch is trunk.")
    # a verb's form says how the thing is, not what
    assert not queued("Three replicas of the docs site are running.",
                      "Three docs site replicas are deployed.")
