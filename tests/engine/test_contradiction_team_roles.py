"""A team that maintains a thing owns it (issue 12, 2026-11-28, late): "maintained by the
mobile team" and "the data team owns it" name two holders of one role; between people,
owning and maintaining stay two roles. A role in the passive may be said with two verbs
("owned and operated by ML Platform")."""

from tests.helpers import queued


def test_two_teams_one_owning_the_other_maintaining_clash():
    assert queued("The Remote Config templates are maintained by the mobile team.",
                  "The data team owns the Remote Config templates.")
    assert queued("The Payments squad maintains pricing-svc.",
                  "pricing-svc belongs to the Growth squad.")


def test_a_person_maintaining_what_a_team_or_another_person_owns_is_no_clash():
    assert not queued("The design system package is owned by the web-platform team.",
                      "Yuki maintains the design system package.")
    assert not queued("Alice owns the billing service.", "Bob maintains the billing service.")


def test_a_role_in_the_passive_said_with_two_verbs():
    assert queued("The feature store is owned and operated by ML Platform.",
                  "Data Engineering owns and runs the feature store.")
    assert not queued("The feature store is owned and operated by ML Platform.",
                      "ML Platform owns and runs the feature store.")
