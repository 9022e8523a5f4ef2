"""What is supported and what is available, and a value denied beside the one stated; pure, no database.
Sentences written for these tests, not taken from the labelled sets."""

from tests.helpers import queued


def test_what_is_supported_and_what_is_not_available_speak_of_one_thing():
    assert queued("The reports page supports PDF downloads.",
                  "PDF downloads are not available from the reports page.")
    assert not queued("The reports page supports PDF downloads.",
                      "PDF downloads are not available from the billing page.")


def test_a_value_denied_beside_the_stated_one_leaves_the_stated_one_standing():
    assert queued("The build cache lives in eu-central-1.",
                  "The build cache is hosted in us-west-2, not in Europe.")
    assert not queued("The build cache lives in us-west-2.",
                      "The build cache is hosted in us-west-2, not in Europe.")
