"""Coding-style choices a team writes down as opposites (issue 12, 2026-11-28, night): early
returns or a single exit point, named or default exports, Conventional Commits or free-form
messages. One holder, or one thing, with both is a clash; two holders or two things are
not."""

from tests.helpers import queued


def test_one_holder_with_both_ends_of_a_style_clashes():
    assert queued("Kenji prefers early returns over nested conditionals.",
                  "Kenji wants a single exit point per function.")
    assert queued("The user wants named exports in the admin UI.",
                  "The user wants admin UI components default-exported.")
    assert queued("Our release notes follow Conventional Commits.", "Release notes are free-form.")


def test_two_holders_or_two_things_do_not():
    assert not queued("Kenji prefers early returns over nested conditionals.",
                      "Lena wants a single exit point per function.")
    assert not queued("The user wants named exports in the admin UI.",
                      "The user wants the marketing site's components default-exported.")
