"""An order said by its first item ("newest first" is descending) and a rounding said by
its direction are two ends of one scale: two statements on one subject that take each
end contradict, two subjects do not. Pure, no database; sentences written for these
tests, not taken from the labelled sets."""

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
