"""A team that maintains a thing owns it (issue 12, 2026-11-28, late): "maintained by the
mobile team" and "the data team owns it" name two holders of one role, and so do two
people (2026-11-29: the blind dev batches label every such pair between two people a
contradiction). A person may maintain what a team owns. A role in the passive may be
said with two verbs ("owned and operated by ML Platform")."""

from tests.helpers import queued


def test_two_teams_one_owning_the_other_maintaining_clash():
    assert queued("The Remote Config templates are maintained by the mobile team.",
                  "The data team owns the Remote Config templates.")
    assert queued("The Payments squad maintains pricing-svc.",
                  "pricing-svc belongs to the Growth squad.")


def test_a_person_maintaining_what_a_team_owns_is_no_clash():
    assert not queued("The design system package is owned by the web-platform team.",
                      "Yuki maintains the design system package.")


def test_one_person_owning_and_another_maintaining_clash():
    assert queued("Alice owns the billing service.", "Bob maintains the billing service.")
    assert queued("Maya owns the payouts service.",
                  "Payouts is maintained by Tomás; ask him before changing payout logic.")
    assert not queued("Alice owns the billing service.",
                      "Alice maintains the billing service.")


def test_a_role_in_the_passive_said_with_two_verbs():
    assert queued("The feature store is owned and operated by ML Platform.",
                  "Data Engineering owns and runs the feature store.")
    assert not queued("The feature store is owned and operated by ML Platform.",
                      "ML Platform owns and runs the feature store.")
