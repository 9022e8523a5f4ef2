"""A product's version said in the ways a team writes it, and holders of a role that is
ranked (issue 12, 2026-11-28, night): a product of several words ("React Native") and its
short name ("RN"); a package pinned in lower case ("torch==2.3.0"); what runs the product
(its brokers, its cluster, its nodes) is the product, not a subject of its own. The
primary on-call and the secondary hold two roles; "is on call for" names the role as
"is the on-call for" does, and the words before the role noun say of what. "After the
fifth retry" counts tries."""

from tests.helpers import queued


def test_a_product_of_several_words_is_one_product_and_its_short_name_too():
    assert queued("The field app is built with React Native 0.74.",
                  "We're on RN 0.71.3 in the field app.")
    # the last word alone is no product: "Native" beside "React" is React Native's
    assert not queued("The field app is built with React Native 0.74.",
                      "The field app's Flutter prototype is on 3.22.")


def test_a_package_pinned_in_lower_case_is_the_product_pinned():
    assert queued("The scoring service runs PyTorch 2.2.",
                  "scoring-service requirements.txt pins torch==2.4.1")
    # the file beside it is not what the version is of
    assert not queued("The scoring service runs PyTorch 2.2.",
                      "scoring-service requirements.txt pins numpy==2.2.1")


def test_what_runs_a_product_has_the_products_version():
    assert queued("Our RabbitMQ nodes are on 3.12.",
                  "The production RabbitMQ cluster is still on 3.8.")
    assert queued("The Elasticsearch cluster runs 8.13.", "Our Elasticsearch nodes are on 7.17.")
    # two products are still two subjects
    assert not queued("Our RabbitMQ nodes are on 3.12.", "Our Redis nodes are on 7.2.")


def test_a_primary_and_a_secondary_hold_two_roles():
    assert not queued("Femi is primary on-call for the search cluster this week.",
                      "Lotte is secondary on-call for the search cluster this week.")
    assert queued("Femi is primary on-call for the search cluster this week.",
                  "Lotte is the primary on-call for the search cluster this week.")


def test_on_call_for_a_thing_is_the_on_call_of_it():
    assert queued("Joon is on call for the billing service this week.",
                  "This week's billing-service on-call is Ilse.")
    # another thing, another rotation
    assert not queued("Joon is on call for the billing service this week.",
                      "This week's search-service on-call is Ilse.")


def test_the_words_before_a_role_noun_say_of_what():
    assert queued("Backup on-call for storage this week: Ana.",
                  "Pieter is the backup storage on-call for this week.")


def test_a_primary_placed_in_a_region_is_the_regions_and_a_read_only_copy_names_nothing():
    # the thing's name before "DB primary" names the database, not its primary
    assert not queued("Orders DB primary is in eu-central-1, with a read replica in us-west-2.",
                      "us-west-2 hosts a read-only copy of the orders database that streams "
                      "from the eu-central-1 primary.")
    assert queued("Orders DB primary is in eu-central-1, with a read replica in us-west-2.",
                  "us-west-2 hosts the orders DB primary; eu-central-1 is a read replica of it.")


def test_a_state_until_an_event_is_history():
    assert not queued("Until the 2024 datacenter exit, the orders DB primary was in "
                      "eu-central-1.", "Orders DB primary: us-west-2.")
    assert queued("The orders DB primary is in eu-central-1.", "Orders DB primary: us-west-2.")


def test_two_quantities_are_no_slot_set_to_two_numbers():
    assert not queued("Nightly training uses 4 H100 GPUs per node.",
                      "nightly training job spans 8 nodes.")
    assert queued("Nightly training uses 4 H100 GPUs per node.",
                  "Nightly training uses 8 H100 GPUs per node.")


def test_an_ordinal_try_is_a_count_of_tries():
    # "after the fifth retry" is six tries, no event the statement holds after
    assert queued("The mailer retries a failed send 3 times before dropping it.",
                  "The mailer drops a failed send after the fifth retry.")
    assert queued("The export worker makes 3 attempts.",
                  "The export worker gives up after the fifth attempt.")
    assert not queued("The export worker makes 5 attempts.",
                      "The export worker gives up after the fifth attempt.")
