"""Phrases of support and dependency read as their verbs: working without a network is
supporting offline use, "has no X support" is "does not support X", and code that
imports from a module depends on it. Pure, no database. Sentences written for these
tests, not taken from the labelled sets."""

from tests.helpers import queued


def test_working_offline_against_no_offline_support_contradicts():
    assert queued("The field-survey tablet app has no offline support.",
                  "The field-survey tablet app works without an internet connection.")


def test_offline_support_of_another_app_does_not():
    assert not queued("The field-survey tablet app has no offline support.",
                      "The desktop admin console works offline.")


def test_importing_from_a_module_is_depending_on_it_so_the_reverse_contradicts():
    assert queued("`report-builder` imports from `chart-kit`.",
                  "chart-kit depends on report-builder, not the other way round.")


def test_importing_from_a_module_agrees_with_depending_on_it():
    assert not queued("`report-builder` imports from `chart-kit`.",
                      "report-builder depends on chart-kit.")
