"""A switch said in the ways configuration and notes say it (issue 12, 2026-11-28, night):
a setting written as configuration ("strict: false", "`strict` set to true",
"storage_encrypted = false") is that setting disabled or enabled; "is off on the bucket"
is "disabled on" it. A known product only one side names ("S3 versioning", "GraphQL
introspection") is what the thing is, not another thing the negation speaks of. A clause that opens on
"it" speaks of the name in the clause before it; a reason given after a value ("to keep
costs down") is no part of it; what is measured changing with the amount is two things;
a statement that restates the other and adds an exception negates nothing of it."""

from tests.helpers import queued


def test_a_setting_written_as_configuration_is_a_switch():
    assert queued("Strict mode is on in tsconfig for the billing UI.",
                  "The billing UI's tsconfig has `strict` set to false.")
    assert queued("noImplicitAny is disabled in the billing UI.",
                  "billing UI tsconfig: noImplicitAny: true")
    # the same state in both is no clash
    assert not queued("Strict mode is on in tsconfig for the billing UI.",
                      "The billing UI's tsconfig has `strict` set to true.")


def test_a_chat_line_that_says_true_is_no_setting():
    assert not queued("Melanie: True.", "Melanie: False.")


def test_a_switch_off_on_a_thing_is_disabled_on_it():
    assert queued("Bucket media-prod has object lock enabled.", "Object lock is off on media-prod.")
    assert not queued("Bucket media-prod has object lock enabled.",
                      "Object lock is off on media-staging.")


def test_a_product_only_one_side_names_is_what_the_thing_is():
    assert queued("The partner gateway has introspection enabled in production.",
                  "GraphQL introspection is disabled in production for the partner gateway.")
    # a product of a kind the other names too is another thing
    assert not queued("Redis persistence is enabled on the session store.",
                      "Postgres persistence is disabled on the session store.")


def test_a_clause_that_opens_on_it_speaks_of_the_name_before():
    assert queued("billing-consumer is idempotent, so replays are safe.",
                  "Replaying events into billing-consumer double-charges - it is not "
                  "idempotent.")
    # with no name before it, "it" names nothing
    assert not queued("billing-consumer is idempotent, so replays are safe.",
                      "Replays double-charge people - it is not idempotent.")


def test_a_reason_given_after_a_value_is_no_part_of_it():
    assert queued("LOG_LEVEL=INFO in production.",
                  "Production log level is WARNING to keep logging costs down.")
    # a verb's object is no reason: "wants to keep PRs small" is what Alice wants
    assert not queued("Alice wants to keep PRs small.", "Bob wants to keep PRs large.")


def test_what_is_measured_changing_with_the_amount_is_two_things():
    assert not queued("We cache search results for 5 minutes to reduce load.",
                      "We cache product pages for 1 hour to reduce load.")
    assert queued("We cache search results for 5 minutes.", "We cache search results for 1 hour.")


def test_a_statement_that_restates_the_other_and_adds_an_exception_negates_nothing_of_it():
    assert not queued("Preview builds expire after 7 days.",
                      "Preview builds expire after 7 days; builds of tagged releases never expire.")
    # an exception of its own against the rule is still read
    assert queued("Builds of tagged releases expire after 7 days.",
                  "Preview builds expire after 7 days; builds of tagged releases never expire.")
