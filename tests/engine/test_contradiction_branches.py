"""A branch's name is a value of one slot (issue 12, 2026-11-28, night): "the default branch
of the gateway repo is main" and "the gateway repo's default branch is still master" clash.
"main" and "develop" are words too, so a name counts only with a capital or beside
"branch"."""

from tests.helpers import queued


def test_two_default_branches_of_one_repo_clash():
    assert queued("Default branch of the billing repo is main.",
                  "Billing repo's default branch is still master.")
    assert queued("Default branch of the billing repo is main.",
                  "billing repo: default branch = develop")


def test_two_repos_or_two_kinds_of_branch_do_not():
    assert not queued("Default branch of the api repo is main.",
                      "Default branch of the web repo is develop.")
    assert not queued("Hotfix branches are cut from main.", "Feature branches are cut from develop.")
    assert not queued("The default branch is main.",
                      "We develop on feature branches and merge to main.")
