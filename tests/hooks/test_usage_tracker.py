"""The usage tracker marks an injected memory cited when the turn made use of it."""
from engram_client.usage import Evidence, reflected


def test_a_preference_followed_in_a_command_is_cited_without_being_restated():
    turn = Evidence("Added date-fns to the invoice list.",
                    [{"tool_name": "Bash", "tool_input": {"command": "cd web && pnpm add date-fns"}}])
    assert reflected("Use pnpm, never npm, for anything in the web/ frontend.", turn)


def test_a_number_or_path_the_turn_used_is_cited():
    turn = Evidence("Connected.", [{"tool_name": "Bash",
                                    "tool_input": {"command": "psql -h db -p 5433 -c 'select 1'"}}])
    assert reflected("The staging database listens on port 5433.", turn)


def test_a_plural_in_the_memory_matches_the_singular_in_the_turn():
    assert reflected("Prefer f-strings over % formatting.",
                     Evidence("I used an f-string for the log line.", []))


def test_sharing_only_generic_coding_words_is_ignored():
    turn = Evidence("Fixed the failing test and updated the file.",
                    [{"tool_name": "Edit", "tool_input": {"file_path": "tests/test_api.py"}}])
    assert not reflected("Run the test suite with make test before every change.", turn)


def test_an_unrelated_turn_is_ignored():
    turn = Evidence("The README now explains how to install the CLI.",
                    [{"tool_name": "Write", "tool_input": {"file_path": "README.md",
                                                           "content": "pip install ."}}])
    assert not reflected("Dana reviews every database migration.", turn)
