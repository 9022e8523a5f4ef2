""""The user" in an agent's notes is the "I" of the user's own words, and more closed
kinds of choice (issue 12, 2026-11-28, late): dataframe libraries, Rust error-handling
crates, and test styles, query structures and comma placements as scales."""

from tests.helpers import queued


def test_i_and_the_user_are_one_holder_of_a_preference():
    assert queued("The user prefers pytest over unittest.",
                  "I want all new tests written with unittest.")
    # the holder says who, not what of: two things still need a subject in common
    assert not queued("The user wants named exports in the admin UI.",
                      "The user wants the marketing site's components default-exported.")


def test_two_members_of_a_new_category_or_scale_for_one_subject_clash():
    assert queued("Priya prefers polars for new data scripts.",
                  "Priya wants new data scripts in pandas.")
    assert queued("The user prefers plain pytest functions.", "The user wants TestCase classes.")
    # two holders, each their own
    assert not queued("Priya prefers polars for new data scripts.",
                      "Raj wants new data scripts in pandas.")
