"""The rules judge reads amounts and names written in more ways (a retry verb before what
it retries, "a full year", Kubernetes sizes, "split into", chat channels, log levels),
and keeps apart what only looks like a clash; pure, no database. Sentences written for
these tests, not taken from the labelled sets."""

from memories.engine.contradiction import measures
from memories.engine.short_forms import spell_out
from tests.helpers import queued


def test_a_retry_verb_before_what_it_retries_counts_the_tries():
    assert measures(["the", "mailer", "retries", "a", "bounced", "message", "4", "times"]) \
        == {"attempts": 5.0}
    assert queued("The mailer retries a bounced message 4 times.",
                  "The mailer retries bounced messages 2 times.")
    # four retries after the first try are five attempts
    assert not queued("The mailer retries a bounced message 4 times.",
                      "The mailer gives up on a bounced message after 5 attempts.")


def test_a_unit_stressed_as_whole_is_one_of_it():
    assert measures(["kept", "for", "a", "whole", "year"]) == {"duration": 31536000.0}
    assert queued("Access logs are kept for 30 days, then purged.",
                  "We keep access logs for a full year before deleting them.")
    assert not queued("Access logs are kept for 365 days, then purged.",
                      "We keep access logs for a full year before deleting them.")


def test_a_kubernetes_size_is_a_binary_size():
    assert spell_out("requests 256Mi") == "requests 256 MiB"
    assert spell_out("Mike has 5 Mi") == "Mike has 5 Mi"  # only glued to its number
    assert queued("Memory limit for the cache pods is 256Mi.",
                  "Cache pods are allowed up to 1 GiB of memory.")
    assert not queued("Memory limit for the cache pods is 1024Mi.",
                      "Cache pods are allowed up to 1 GiB of memory.")


def test_split_into_ties_a_count_to_its_subject():
    assert queued("The `clicks` stream has 8 shards.", "clicks is split into 16 shards.")
    assert not queued("The `clicks` stream has 8 shards.",
                      "The `views` stream is split into 16 shards.")


def test_a_log_level_is_a_member_of_a_closed_category():
    assert spell_out("the api-gw") == "the api-gateway"
    assert queued("Default log level for the billing worker is WARN.",
                  "The billing worker ships with ERROR as its default log level.")
    assert not queued("Default log level for the billing worker is WARN.",
                      "Default log level for the search worker is ERROR.")


def test_executed_on_is_run_on_and_a_server_names_its_ci_service():
    assert queued("All nightly jobs run on CircleCI.",
                  "Every nightly job is executed on our Jenkins server.")
    assert not queued("The nightly jobs run on CircleCI.",
                      "The release jobs are executed on our Jenkins server.")


def test_a_chat_channel_is_a_name_of_its_own():
    assert queued("Release notes are posted in #releases.",
                  "Release notes are posted only in #changelog.")
    # the word a channel is made of is no channel; a channel is no name of another kind
    assert not queued("Release notes are posted in #releases.",
                      "Release notes are posted with the releases.")
    assert not queued("Deploys are announced only in #ops.", "Deploys go through CI.")


def test_the_single_one_leaves_room_for_no_other():
    assert queued("The staging Kubernetes namespace is `qa-main`.",
                  "All staging workloads run in the single `staging-core` namespace.")
    assert not queued("The staging Kubernetes namespace is `qa-main`.",
                      "All production workloads run in the single `prod-core` namespace.")


def test_verbs_of_requiring_are_one_and_2fa_is_two_factor_authentication():
    assert spell_out("MFA and 2FA") == "multi-factor authentication and two-factor authentication"
    assert queued("The billing console requires MFA for every login.",
                  "Multi-factor auth is not enforced on the billing console.")
    assert not queued("The billing console requires MFA for every login.",
                      "Multi-factor auth is not enforced on the status page.")


def test_how_tries_end_is_part_of_their_count():
    assert queued("Failed uploads are retried 4 times.",
                  "Upload delivery gives up after 2 attempts.")
    assert not queued("Failed uploads are retried 4 times.",
                      "Failed exports give up after 2 attempts.")


def test_before_said_in_other_words_is_before():
    assert queued("Always rebuild the search index before a release.",
                  "Never rebuild the search index ahead of a release.")
    assert queued("Always tag the commit before publishing.",
                  "Never tag the commit prior to publishing.")
    assert not queued("Always rebuild the search index before a release.",
                      "The search index is always rebuilt ahead of a release.")


def test_an_arrow_between_two_ends_is_a_direction():
    assert queued("Ledger sync is one-way: ledger -> warehouse.",
                  "The warehouse pushes ledger rows one-way into the ledger.")
    assert not queued("Ledger sync is one-way: ledger -> warehouse.",
                      "Ledger rows flow from the ledger to the warehouse.")


def test_an_availability_said_in_nines_is_its_percentage():
    assert measures(["uptime", "is", "four", "nines"])["percent"] == 99.99
    assert queued("The search cluster's uptime SLO is 99.99%.",
                  "Uptime SLO of the search cluster: three nines.")
    # the same amount both ways: a swap of a number word is read as its number
    assert not queued("The uptime SLO is 99.9%.", "The uptime SLO is three nines.")
    assert queued("The uptime SLO is 99.95%.", "The uptime SLO is three nines.")


def test_a_cron_time_keeps_the_zone_written_after_it_in_brackets():
    assert queued("The invoice export runs every night at 03:15 UTC.",
                  "Invoice export cron: 0 1 * * * (UTC)")
    assert not queued("The invoice export runs every night at 01:00 UTC.",
                      "Invoice export cron: 0 1 * * * (UTC)")


def test_an_image_tag_is_the_version_of_the_image_not_a_port():
    assert measures(["we", "build", "on", "node:20"], ["We", "build", "on", "node:20"]) == {
        "version of node": "20"}
    assert measures(["redis:6379"], ["redis:6379"]) == {"port": 6379.0}
    assert queued("The worker Dockerfile starts FROM ruby:3.2-slim.",
                  "Worker Dockerfile base image: ruby:3.3-alpine")


def test_a_product_s_version_is_known_by_its_category_s_name_for_it():
    assert queued("Cluster version: GKE 1.30 everywhere.",
                  "Our GKE clusters still run Kubernetes 1.28.")


def test_a_feature_flag_is_a_flag():
    assert queued("The dark_mode flag is disabled in production.",
                  "Feature flag dark_mode is ON in production.")


def test_items_per_page_and_a_page_size_are_one_measure():
    assert measures(["returns", "20", "items", "per", "page"])["page size"] == 20
    assert queued("The invoices endpoint returns 50 items per page.",
                  "The page size of the invoices endpoint is 20.")
    assert not queued("The invoices endpoint returns 50 items per page.",
                      "The page size of the invoices endpoint is 50.")


def test_a_number_after_port_is_the_port_and_a_conjunction_after_a_number_counts_nothing():
    assert measures(["listens", "on", "port", "8081", "when", "run", "locally"]) == {
        "port": 8081.0}
    assert measures(["deployment", "is", "replicas", "6", "no", "hpa"]) == {"replica": 6.0}
    assert queued("billing-svc listens on port 8081 when run locally.",
                  "Run billing-svc locally and hit it on localhost:9000; that's its only port.")


def test_a_two_word_label_that_names_a_thing_is_no_speaker():
    from memories.engine.contradiction import asserted

    assert asserted("Staging DB: Postgres 15 on RDS.") == "Staging DB is Postgres 15 on RDS."
    assert asserted("Mary Jane: Postgres is great") == "Postgres is great"
    assert queued("Staging DB: Postgres 15 on RDS.",
                  "The staging database runs PostgreSQL 13; no upgrade planned this year.")


def test_a_product_named_by_one_side_only_is_part_of_the_version_not_the_subject():
    assert queued("The Terraform AWS provider is pinned to 5.40 in infra-core.",
                  "infra-core: hashicorp/aws provider pinned at 4.60.")
