"""An instruction ("prefer X over Y") says what the speaker prefers, and a preference is
reversed when the words that tell its choices apart change sides, though each side is
worded its own way. Pure, no database; sentences written for these tests, not taken from
the labelled sets."""

from tests.helpers import queued


def test_an_instruction_reverses_the_speakers_own_preference():
    assert queued("I would rather use dataclasses than plain dicts for configs.",
                  "Prefer typed dicts with TypedDict over dataclasses.")
    assert queued("Prefer tabs over spaces.", "I prefer spaces over tabs.")


def test_an_instruction_is_not_what_someone_else_prefers():
    assert not queued("Prefer tabs over spaces.", "Maria prefers spaces over tabs.")


def test_the_same_preference_worded_otherwise_is_no_reversal():
    assert not queued("I would rather use dataclasses than plain dicts for configs.",
                      "Prefer dataclasses over dicts.")
