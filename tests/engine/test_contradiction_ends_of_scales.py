"""Ends of one scale: an order said by its first item ("newest first" is descending), a
rounding said by its direction, a light or a dark theme, a type inferred or
written out. Two statements on one subject that take each end contradict,
two subjects do not. Pure, no database; sentences written for these tests, not taken
from the labelled sets."""

from tests.helpers import queued


def test_an_order_said_by_its_first_item_is_an_end_of_the_sort_order():
    assert queued("The audit log is sorted newest first.",
                  "The audit log is sorted in ascending order.")
    assert queued("Search hits are listed highest first by relevance.",
                  "Search hits are listed by relevance, lowest first.")
    assert not queued("The audit log is sorted newest first.",
                      "The export file is sorted in ascending order.")


def test_rounding_up_and_rounding_down_are_two_ends():
    assert queued("Invoice totals are rounded up to the nearest cent.",
                  "Invoice totals are rounded down to the nearest cent.")
    assert not queued("Invoice totals are rounded up to the nearest cent.",
                      "Tax amounts are rounded down to the nearest cent.")
    assert not queued("Invoice totals are rounded up to the nearest cent.",
                      "Invoice totals are rounded up to the nearest cent before tax.")


def test_a_light_and_a_dark_theme_are_two_ends():
    assert queued("Screenshots in the handbook use the light theme.",
                  "Handbook screenshots are taken in dark mode.")
    assert not queued("The admin console ships a dark theme.",
                      "The marketing site ships a light theme.")


def test_a_type_inferred_is_implicit():
    assert queued("Kotlin local variable types are inferred.",
                  "Kotlin local variable types are always explicit.")
