"""Readings of issue 12's fifth round: one subject or one value said in other words, and
the look-alikes those readings must leave alone. Each reading is general (a kind of
wording), not one pair's words."""

from memories.engine.contradiction import CONFIDENT, rules_verdict


def queued(a: str, b: str) -> bool:
    verdict = rules_verdict(a, b)
    return verdict.contradicts and verdict.confidence >= CONFIDENT


def test_a_short_form_inside_a_compound_is_read_as_its_words():
    assert queued("auth-service listens on port 8081.",
                  "The authentication service is bound to port 8080 in every environment.")
    assert queued("Nightly database backups are kept for 30 days.",
                  "Nightly DB backups are retained for two weeks.")


def test_a_name_with_digits_keeps_its_parts_and_stays_a_name():
    assert queued("The production Kubernetes cluster is named prod-eu-1.",
                  "Our prod k8s cluster is called atlas-prod.")
    assert not queued("The staging cluster is named stg-eu-1.",
                      "The production cluster is named prod-eu-1.")


def test_a_scope_that_narrows_nothing_is_left_out():
    assert queued("Each tenant gets a storage quota of 50 GB.",
                  "Tenant storage quota is 5 GB on every plan, with no exceptions.")
    assert queued("The CI runner pool has 12 runners.",
                  "There are sixteen runners in the CI pool at the moment.")


def test_a_measure_said_with_other_verbs_and_units():
    assert queued("Access tokens expire after 15 minutes.",
                  "Access tokens stay valid for one hour.")
    assert not queued("The TTL for the product-page cache is 10 minutes.",
                      "Product-page cache entries expire after 600 seconds.")
    assert queued("Uploads to the media service are capped at 25 MB.",
                  "The media service accepts files of up to 100 megabytes.")
    assert queued("Sessions time out after 30 minutes of inactivity.",
                  "Idle sessions expire after 1 hour.")
    assert not queued("Tokens expire after 15 minutes.", "The TTL of tokens is 900 seconds.")


def test_a_phrase_before_the_shared_words_still_narrows_a_measure():
    assert not queued("The API rate limit is 100 requests per minute for free users.",
                      "The API rate limit is 1000 requests per minute for paid users.")


def test_a_day_of_the_year_is_a_schedule():
    assert queued("The holiday code freeze starts on December 15th.",
                  "Code freeze for the holidays begins on 20 Dec this year, same as always.")
    assert not queued("Sprint one starts on March 3rd.", "Sprint two starts on March 17th.")


def test_a_member_passed_over_clashes_with_a_statement_of_it():
    assert queued("The frontend manages client state with Redux Toolkit.",
                  "For client-side state the SPA uses Zustand stores instead of Redux.")
    assert queued("The auth service uses JWTs.",
                  "The authentication service relies on server-side sessions instead of JWTs.")
    assert not queued("The mobile team uses Kotlin instead of Java.",
                      "The backend team uses Java.")
    assert not queued("Our web app uses React instead of Vue.",
                      "The admin dashboard is built with Vue.")


def test_a_thing_denied_clashes_with_one_that_does_the_work_by_it():
    assert queued("All background jobs are processed by Celery workers.",
                  "Every background job goes through RQ; we don't run Celery.")
    assert queued("Type checking with mypy is a required step in CI.",
                  "CI doesn't run mypy at all.")
    assert not queued("We don't use ORMs in the reporting service.",
                      "The reporting service uses Postgres.")


def test_a_role_said_with_a_phrase():
    assert queued("The billing service is owned by the Payments team.",
                  "billing-svc belongs to the Platform team.")
    assert queued("The on-call rotation is managed by Priya.", "Tom runs the on-call rotation.")
    assert not queued("The billing service is owned by the Payments team.",
                      "Payments owns billing-svc.")


def test_a_state_that_ended_or_a_change_under_way_is_no_claim_about_now():
    assert not queued("The billing service was owned by Platform until the 2023 reorg.",
                      "Since the reorg, Payments owns billing-svc.")
    assert not queued("The billing service was written in Ruby.",
                      "The billing service is being rewritten in Go.")


def test_a_flow_said_from_its_receiver():
    assert queued("The notifications service consumes events published by the user service.",
                  "The user service subscribes to the events that the notifications "
                  "service publishes.")
    assert queued("We replicate the database from Frankfurt to Dublin.",
                  "Replication runs from the Dublin primary to the Frankfurt replica.")
    assert not queued("The order service publishes events to the shipping service.",
                      "Events from the order service are published to the shipping service.")


def test_a_preference_passed_over_and_a_choice_denied():
    assert queued("The user prefers pytest over unittest.",
                  "The user wants all new tests written with unittest.")
    assert not queued("The user prefers pytest over unittest.",
                      "The user wants unittest removed from the legacy suite.")
    assert queued("The user prefers tabs for indentation.", "The user wants spaces, not tabs.")
    assert not queued("The user prefers tabs for indentation in Makefiles.",
                      "The user wants spaces in Python, not tabs.")


def test_negations_that_speak_of_two_things():
    assert not queued("The `new-checkout` flag is enabled in production.",
                      "The `new-search` flag is disabled in production.")
    assert not queued("Backups are encrypted at rest.", "Backups are not encrypted in transit.")
    assert queued("Secrets must never be committed to the repository, not even in encrypted "
                  "form.", "Encrypted secrets are always committed to the repo, using sops.")


def test_measures_and_values_of_two_things():
    assert not queued("The user prefers 2-space indentation in YAML.",
                      "The user prefers 4-space indentation in Python.")
    assert not queued("The web app is built with Node 20.", "The CLI is built with Node 18.")
    assert not queued("Node v20 is used in CI.", "Node 18 is used on developer laptops.")
    assert not queued("We deploy on Tuesdays.", "We deploy on Tuesdays and Thursdays.")
    assert not queued("Deploys happen at 10am UTC.", "Deploys happen at 11am CET.")
    assert not queued("The rate limit is 100 requests per minute.",
                      "The rate limit is 6000 requests per hour.")
    assert not queued("Deploys are blocked on Fridays, with no exceptions.",
                      "Deploys are allowed on Saturdays.")


def test_look_alikes_found_across_the_studied_batches():
    assert not queued("We use PG 16 in production.", "prod pg: 16.2")
    assert not queued("We deploy to production with Argo CD.",
                      "We deploy to prod only on Mondays and Wednesdays.")
    assert not queued("The `new-checkout` flag is enabled in production.",
                      "Production runs 6 API replicas.")
    assert not queued("Our backend has been on Python 3.12 since the last upgrade.",
                      "Until March the backend ran on Python 3.10.")
    assert not queued("Billing logs are kept for 90 days.", "Log retention in Loki is 14 days.")
    assert not queued("The user dislikes verbose answers.",
                      "For TS code, indent with two spaces - that's what the user likes.")


def test_a_language_before_a_plural_that_a_verb_follows_names_which_things():
    assert not queued("Kotlin services build with Gradle.", "Java services build with Maven.")
    assert not queued("Our Elixir services log with Logger.", "Our Rust services use tracing.")
    assert queued("Kotlin services build with Gradle.", "Kotlin services build with Maven.")
