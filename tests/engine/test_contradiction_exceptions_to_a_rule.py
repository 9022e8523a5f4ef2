"""A case of a rule's subject denied ("hotfix release builds never run ...") is an
exception to a rule for every case, a contradiction; a compound says its parts
("squash-merged" says "squash"); two qualifiers of one kind ("staging" / "production")
are two subjects for a negation too (issue 12, 2026-11-28, night)."""

from tests.helpers import queued


def test_a_case_of_the_rule_denied_is_an_exception():
    assert queued("Every release build runs the full UI test suite.",
                  "Hotfix release builds never run the full UI test suite.")


def test_a_compound_says_its_parts_against_a_rule():
    assert queued("PRs in the atlas repo are always squash-merged.",
                  "We never squash in atlas, merge commits only.")


def test_two_qualifiers_of_one_kind_are_two_subjects():
    assert not queued("Staging deploys always run the smoke suite first.",
                      "Production deploys never run the smoke suite first.")


def test_a_denial_with_no_object_denies_the_rules_verb():
    assert queued("Always squash-merge PRs into develop.",
                  "Never squash — we keep merge commits on develop so blame stays useful.")
    # a denial of another verb, however many words the two share, denies nothing of it
    assert not queued("Dependabot PRs in web-modules are never auto-merged; a human approves "
                      "every one.",
                      "Always merge PRs with a merge commit; the user dislikes squashing.")


def test_no_exceptions_after_a_rule_stresses_it():
    assert queued("Every change to the billing schema needs a DBA review, no exceptions.",
                  "Billing schema changes never need a DBA review.")
    # said as the statement itself, it still denies exceptions
    assert queued("There are no exceptions to the code freeze.",
                  "The code freeze has exceptions for hotfixes.")
