"""The rules judge of contradictions, on hand cases; pure, no database."""

import pytest
from pydantic import ValidationError

from memories.engine.contradiction import (
    CONFIDENT,
    JudgeVerdict,
    asserted,
    measures,
    pair_key,
    rules_verdict,
)
from memories.engine.dedup import content_hash
from memories.engine.llm_json import ReplyParseError, parse_reply


def contradicts(a: str, b: str) -> bool:
    verdict = rules_verdict(a, b)
    # Which statement came first never changes the answer.
    assert rules_verdict(b, a).contradicts is verdict.contradicts
    return verdict.contradicts


@pytest.mark.parametrize(("a", "b"), [
    ("The API port is 8080.", "The API port is 9090."),
    ("The billing service uses MySQL.", "The billing service uses PostgreSQL."),
    ("Engram runs on Python 3.11.", "Engram runs on Python 3.12."),
    ("The staging host is db-staging.internal.", "The staging host is pg-2.internal."),
    ("The default branch is main.", "The default branch is master."),
    ("The Redis cluster is in us-east-2 with 5 replicas.",
     "The Redis cluster is in eu-west-1 with 3 replicas."),
])
def test_the_same_fact_with_another_value_contradicts(a, b):
    assert contradicts(a, b)


@pytest.mark.parametrize(("a", "b"), [
    ("We use Redis for sessions.", "We don't use Redis for sessions."),
    ("Always squash commits when merging.", "Never squash commits when merging."),
    ("We deploy on Fridays.", "We never deploy on Fridays."),
    ("Feature flags are stored in LaunchDarkly.",
     "Feature flags are not stored in LaunchDarkly; they live in a YAML file."),
])
def test_a_statement_and_its_negation_contradict(a, b):
    assert contradicts(a, b)


@pytest.mark.parametrize(("a", "b"), [
    ("I prefer tabs for indentation.", "I prefer spaces for indentation."),
    ("I like tabs for indentation.", "I don't like tabs for indentation."),
    ("The user likes verbose commit messages.", "The user dislikes verbose commit messages."),
    ("The user likes verbose commit messages.", "The user doesn't like verbose commit messages."),
    ("The user prefers pytest over unittest.", "The user prefers unittest over pytest."),
])
def test_a_reversed_preference_contradicts(a, b):
    assert contradicts(a, b)


def test_another_holder_of_the_same_role_contradicts():
    assert contradicts("Alice owns the payments service.", "Bob owns the payments service.")
    assert contradicts("Marta is the tech lead for search.", "Jonas is the tech lead for search.")


def test_one_person_may_own_two_things():
    assert not contradicts("Alice owns the payments service.", "Alice owns the search service.")


def test_a_changed_duration_contradicts_and_an_equal_one_in_other_units_does_not():
    assert contradicts("The cache TTL is 5 minutes.", "The cache TTL is one hour.")
    assert not contradicts("The cache TTL is 5 minutes.", "The cache TTL is 300 seconds.")
    assert not contradicts("The cache TTL is 5 minutes.", "The cache TTL is five minutes.")
    assert not contradicts("Embeddings are cached for 7 days.", "Embeddings are cached for a week.")


def test_a_named_version_worded_differently_still_contradicts():
    assert contradicts("Node 20 is the required runtime for the frontend build.",
                       "The frontend build requires Node 18.")


def test_a_value_denied_on_the_same_subject_contradicts():
    assert contradicts("The project uses Poetry for dependency management.",
                       "The project manages dependencies with pip-tools, not Poetry.")


@pytest.mark.parametrize(("a", "b"), [
    ("The API server listens on port 8080.", "The admin server listens on port 9090."),
    ("The staging database host is db-staging.internal.",
     "The production database host is db-prod.internal."),
    ("Django is pinned to 5.2.", "Django REST Framework is pinned to 3.16."),
    ("The rate limit of the public API is 100 requests per minute.",
     "The internal API has no rate limit."),
])
def test_statements_about_different_subjects_do_not_contradict(a, b):
    assert not contradicts(a, b)


@pytest.mark.parametrize(("a", "b"), [
    ("The billing service uses Redis for caching.",
     "The billing service uses PostgreSQL for orders."),
    ("The frontend is built with React.", "The frontend uses Tailwind for styling."),
    ("Never force-push to main.", "Force-pushing to feature branches is fine."),
    ("The nightly backup runs at 02:00 UTC.", "The nightly backup is kept for 30 days."),
    ("Engram runs on Python 3.11.", "Engram's CI also tests against Python 3.12."),
    ("The billing service uses MySQL.", "The billing service uses Redis for caching."),
])
def test_compatible_additions_do_not_contradict(a, b):
    assert not contradicts(a, b)


@pytest.mark.parametrize(("a", "b"), [
    ("We use Redis for sessions.", "Sessions are stored in Redis."),
    ("The API server listens on port 8080.", "the API server listens on port 8080"),
    ("Poetry manages the dependencies.", "Poetry is used to manage the dependencies."),
])
def test_paraphrases_do_not_contradict(a, b):
    assert not contradicts(a, b)


def test_a_negation_contradicts_only_a_statement_that_says_what_it_negates():
    assert not contradicts("The service is not deployed to Kubernetes.",
                           "The service's Kubernetes manifests live in deploy/k8s.")


def test_a_past_state_does_not_contradict_the_present_one():
    assert not contradicts("The API server used to listen on port 8000 but now listens on 8080.",
                           "The API server listens on port 8080.")


def test_a_verdict_says_why_and_how_sure():
    found = rules_verdict("The API port is 8080.", "The API port is 9090.")
    assert "'8080' became '9090'" in found.reason and found.confidence == 0.8
    nothing = rules_verdict("The API port is 8080.", "Logs go to Loki.")
    assert not nothing.contradicts and nothing.confidence == 0.5 and nothing.reason


def test_measures_read_units_counts_and_versions():
    words = ["the", "ttl", "is", "an", "hour", "with", "3", "replicas", "and", "100",
             "requests", "per", "minute"]
    # a rate is read per hour, whatever unit it is written in
    assert measures(words) == {"duration": 3600.0, "replica": 3.0, "request/hour": 6000.0}
    assert measures(["6000", "requests", "per", "hour"])["request/hour"] == 6000.0
    assert measures(["10", "mb"]) == {"size": 10_000_000.0}
    assert measures(["on", "python", "3.11"], ["on", "Python", "3.11"]) == {
        "version of python": "3.11"}


def test_the_pair_key_is_the_same_in_either_order():
    a, b = content_hash("The API port is 8080."), content_hash("The API port is 9090.")
    assert pair_key(a, b) == pair_key(b, a)
    assert pair_key(a, b) != pair_key(a, a)
    assert len(pair_key(a, b)) == 64  # fits the JudgedPair.pair_key column


def test_a_judge_verdict_is_checked_field_by_field():
    verdict = parse_reply('{"contradicts": true, "reason": "8080 vs 9090", "confidence": 1}',
                          JudgeVerdict)
    assert verdict == JudgeVerdict(contradicts=True, reason="8080 vs 9090", confidence=1.0)
    with pytest.raises(ValidationError):
        JudgeVerdict(contradicts=True, confidence=1.5)
    with pytest.raises(ReplyParseError, match="confidence"):
        parse_reply('{"contradicts": false, "reason": ""}', JudgeVerdict)
    with pytest.raises(ReplyParseError, match="contradicts"):
        parse_reply('{"contradicts": "yes", "confidence": 0.9}', JudgeVerdict)


def test_long_statements_are_judged_with_their_reason_cut_to_fit():
    """Quoting two long clauses made a reason over 500 characters, which the verdict
    refused: the check crashed, and long memories were never judged."""
    detail = " ".join(f"component{i}" for i in range(70))
    verdict = rules_verdict(f"The deploy script must run the migrations for {detail} first",
                            f"The deploy script must not run the migrations for {detail} first")
    assert verdict.contradicts
    assert len(verdict.reason) == 500 and verdict.reason.endswith("…")
    assert verdict.reason.startswith("one statement negates the other")


def queued(a: str, b: str) -> bool:
    """Whether the pair would enter the open queue: contradicting, and confident."""
    verdict = rules_verdict(a, b)
    return verdict.contradicts and verdict.confidence >= CONFIDENT


def test_questions_greetings_and_reactions_assert_nothing():
    assert asserted("What's up with you lately?") == ""
    assert asserted("Thanks, Caroline!") == ""
    assert asserted("Wow, great to hear!") == ""
    assert asserted("The API port is 8080.") == "The API port is 8080."
    # a claim keeps its place beside the small talk around it
    assert asserted("Hey! We moved the API to port 9090. Any news?") == (
        "We moved the API to port 9090.")


def test_a_transcript_stamp_is_no_value_to_compare():
    a = "[15 July 2023] Caroline: The book club meets in the library."
    b = "[20 July 2023] Caroline: The book club meets in the library."
    assert not contradicts(a, b)
    # the same stamps around a real change still leave the change to see
    assert contradicts(a, "[20 July 2023] Caroline: The book club never meets in the library.")


def test_chat_lines_that_only_react_are_not_judged():
    assert not contradicts("[8 May 2023] Melanie: Thanks, Caroline! What's up with you?",
                           "[9 June 2023] Melanie: Thanks, Nate! What's new with you?")
    assert rules_verdict("Yep!", "Thanks!").reason.startswith("a statement asserts nothing")


def test_two_speakers_each_speaking_of_themselves_do_not_contradict():
    assert not contradicts("[6 Dec 2023] Tim: I have been playing for four months now.",
                           "[6 Dec 2023] John: I have been playing for a year now.")
    assert contradicts("[6 Dec 2023] Tim: I have been playing for four months now.",
                       "[7 Dec 2023] Tim: I have been playing for a year now.")


def test_a_clash_said_in_conversation_is_kept_but_not_queued():
    fact = ("The staging database is wiped every night.",
            "The staging database is never wiped.")
    assert queued(*fact)
    talk = ("The staging database is wiped every night, you know!",
            "The staging database is never wiped, I told you!")
    assert contradicts(*talk) and not queued(*talk)


@pytest.mark.parametrize(("a", "b"), [
    ("The billing service depends on the auth service.",
     "The auth service depends on the billing service."),
    ("Replicate the orders database from us-east-1 to eu-west-1.",
     "Replicate the orders database from eu-west-1 to us-east-1."),
    ("The billing service calls the auth service.",
     "The auth service calls the billing service."),
])
def test_a_reversed_direction_contradicts(a, b):
    assert contradicts(a, b) and queued(a, b)


@pytest.mark.parametrize(("a", "b"), [
    ("Use pytest for the unit tests.", "For the unit tests, use pytest."),
    ("Background jobs run on Sidekiq.", "Sidekiq runs our background jobs."),
    ("Lena is the release manager for version 3.", "Version 3's release manager is Lena."),
])
def test_the_same_words_rearranged_into_the_same_fact_do_not(a, b):
    assert not queued(a, b)


def test_a_value_changed_in_other_words_is_found_when_the_subject_is_the_same():
    assert queued("The CI pipeline caches dependencies with Turborepo.",
                  "With Nx, the CI pipeline caches dependencies.")
    # another subject: a word of its own modifies a shared one
    assert not queued("The API server listens on port 8080.",
                      "The admin server listens on port 9090.")
    assert not queued("The free plan includes 3 projects.",
                      "The team plan includes 20 projects.")
    # a statement naming both values tells of a change
    assert not queued("Our Helm charts target Kubernetes 1.29.",
                      "We upgraded the Helm charts from Kubernetes 1.25 to 1.29.")


def test_acronyms_keep_their_letters():
    assert contradicts("The web app redirects HTTP to HTTPS.",
                       "The web app redirects HTTPS to HTTP.")
