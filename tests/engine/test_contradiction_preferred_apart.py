"""One holder preferring two members of one category (issue 12, 2026-11-28, night): "Ines
prefers squash merges so the changelog stays one line per PR" and "Ines wants real merge
commits on the changelog branch" cannot both hold. The holder pins who, not what of: the
rest must still be one subject. "rebase-and-merge" is a merge strategy; an only member
said of one named thing says nothing of another."""

from tests.helpers import queued


def test_one_holder_preferring_two_members_of_one_category_clashes():
    assert queued("Ines prefers squash merges so the changelog stays one line per PR.",
                  "Ines wants real merge commits on the changelog branch; she hates losing "
                  "history to squashing.")
    assert queued("Kofi prefers rebase-and-merge for the PRs he reviews.",
                  "Kofi wants every PR he reviews squash-merged.")


def test_two_things_or_two_holders_are_no_clash():
    assert not queued("Ines prefers squash merges on the api repo.",
                      "Ines wants merge commits on the mobile repo.")
    assert not queued("The user wants code comments to be thorough.",
                      "User wants terse chat replies.")
    assert not queued("Kofi prefers rebase-and-merge for the PRs he reviews.",
                      "Ines wants every PR she reviews squash-merged.")


def test_an_only_member_of_one_named_thing_says_nothing_of_another():
    assert not queued("docs repo: squash merges only.",
                      "data-tools repo uses rebase-and-merge for PRs.")
    assert queued("docs repo: squash merges only.", "The docs repo uses rebase-and-merge for PRs.")


def test_my_preference_is_what_i_prefer():
    assert queued("I prefer squash-merging bugfix PRs into main.",
                  "My preferred merge method for bugfix branches is rebase-and-merge.")
    assert not queued("I prefer squash-merging bugfix PRs into main.",
                      "Kofi's preferred merge method for bugfix branches is rebase-and-merge.")
