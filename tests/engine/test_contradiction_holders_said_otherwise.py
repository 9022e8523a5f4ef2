"""Who holds a role, said in more ways (issue 12, 2026-11-28, evening): a team of two
words before "team", two verbs of one holder ("owns and maintains"), ownership that
"moved to" someone, a long label ("Release manager for the 3.x line: Aisha") and "X is the
platform team's job". And the first word of two statements is the holder only when the
role is said of it next: "Payments is owned by Alice" / "Billing is owned by Alice" speak
of two things one person owns."""

from tests.helpers import queued


def test_a_team_named_in_two_words_holds_a_role():
    assert queued("The search infra team maintains the crawler.",
                  "The crawler is maintained by the ranking team.")


def test_each_of_two_verbs_gives_its_holder_the_role():
    assert queued("The web platform team owns and maintains the design tokens.",
                  "The brand team maintains the design tokens.")
    # the same holder, another thing
    assert not queued("The web platform team owns and maintains the design tokens.",
                      "The web platform team maintains the icon set.")


def test_ownership_that_moved_to_someone_is_held_by_them_now():
    assert queued("Platform owns the Redis clusters.",
                  "Ownership of the Redis clusters moved to the storage team.")


def test_a_long_label_names_the_holder_after_its_colon():
    assert queued("Release manager for the Atlas 3.x line: Aisha.",
                  "Diego is release manager for Atlas 3.x.")


def test_a_job_or_responsibility_said_of_a_team_is_theirs():
    assert queued("Onboarding is the platform team's responsibility.",
                  "The growth team owns onboarding.")


def test_two_things_one_holder_has_are_no_clash():
    assert not queued("Payments is owned by Alice.", "Billing is owned by Alice.")
    assert not queued("Onboarding is the platform team's responsibility.",
                      "Billing is the platform team's responsibility.")
    # the holder said first still clashes
    assert queued("Alice owns billing.", "Bob owns billing.")
    assert queued("Carol is the on-call engineer this week.",
                  "Dan is the on-call engineer this week.")


def test_a_thing_numbered_two_ways_is_two_things_whoever_holds_them():
    assert not queued("Release manager for SDK v2.0: Fatima.",
                      "Release manager for SDK v2.1: Gustavo.")
    assert not queued("The build agent for Xcode 15 is Orion.",
                      "The build agent for Xcode 16 is Vega.")
    assert queued("Release manager for SDK v2.0: Fatima.",
                  "Release manager for SDK v2.0: Gustavo.")


def test_a_thing_said_to_be_someones_is_held_by_them():
    assert queued("The weekly billing export is Rosa's.", "Kenji owns the weekly billing export.")
    assert queued("Bogdan owns the Vault upgrade.", "The Vault upgrade is on Ines's plate.")
    assert not queued("The weekly billing export is Rosa's.",
                      "Rosa owns the weekly billing export.")


def test_on_call_is_a_role_with_one_holder():
    assert queued("This week's primary on-call for search is Ethan.",
                  "Zara is primary on-call for search this week.")
    assert not queued("This week's primary on-call for search is Ethan.",
                      "Zara is primary on-call for payments this week.")


def test_a_team_prefers_as_itself_with_or_without_the_word_team():
    assert queued("The data team prefers Parquet over CSV for exports.",
                  "For exports, data would rather use CSV than Parquet.")
    assert not queued("The data team prefers Parquet over CSV for exports.",
                      "For exports, mobile would rather use CSV than Parquet.")
