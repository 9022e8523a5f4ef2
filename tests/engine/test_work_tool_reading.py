"""Reading Claude Code's tool events, errors and a task's steps without Django."""

from datetime import datetime, timedelta, timezone

from work.engine import (
    MAX_FIX_FILES,
    MAX_OPEN_FAILURES,
    Step,
    command_head,
    error_fixes,
    error_signature,
    files_mentioned,
    intent_of,
    pattern_confidence,
    read_tool_call,
    relative_path,
    similarity,
    workflow_of,
)

PROJECT = "github.com/acme/shop"


def test_paths_inside_the_checkout_become_relative_to_it():
    assert relative_path("/home/a/src/shop/app/auth.py", PROJECT) == "app/auth.py"
    assert relative_path("/elsewhere/auth.py", PROJECT) == "/elsewhere/auth.py"
    assert relative_path("./app/x.py", "") == "app/x.py"


def test_a_dot_folder_keeps_its_dot_when_the_path_starts_with_dot_slash():
    assert relative_path("./.github/workflows/ci.yml", "") == ".github/workflows/ci.yml"
    assert relative_path(".//./.env.example", "") == ".env.example"


def test_read_edit_write_and_search_give_their_operation_and_lines():
    read = read_tool_call("Read", '{"file_path": "/r/shop/a.py", "offset": 5, "limit": 10}',
                          None, PROJECT)
    assert [(f.path, f.operation, f.line_start, f.line_end) for f in read.files] == [
        ("a.py", "read", 5, 14)]
    edit = read_tool_call("MultiEdit", {"file_path": "/r/shop/a.py", "edits": []},
                          {"structuredPatch": [{"newStart": 3, "newLines": 2},
                                               {"newStart": 40, "newLines": 1}]}, PROJECT)
    assert (edit.files[0].operation, edit.files[0].line_start, edit.files[0].line_end) == (
        "edit", 3, 40)
    write = read_tool_call("Write", {"file_path": "/r/shop/n.py", "content": "a\nb\nc"},
                           None, PROJECT)
    assert (write.files[0].operation, write.files[0].line_end) == ("write", 3)
    grep = read_tool_call("Grep", {"pattern": "TODO"}, None, PROJECT)
    assert (grep.files[0].path, grep.files[0].operation, grep.files[0].context) == (
        ".", "search", "TODO")


def test_a_shell_command_is_kept_and_its_failure_message_read():
    call = read_tool_call("Bash", {"command": "make test"}, {"error": "Exit code 2"})
    assert (call.command, call.error, call.files) == ("make test", "Exit code 2", ())


def test_files_named_in_a_prompt_are_found_once_in_order():
    assert files_mentioned("Fix app/auth.py, then auth.py tests in tests/test_auth.py; "
                           "see http://x.io/a.py and app/auth.py") == [
        "app/auth.py", "auth.py", "tests/test_auth.py"]


def test_intent_comes_from_the_prompt_then_from_what_was_done():
    assert intent_of("The login page is broken") == "project_fixing"
    assert intent_of("Add a logout button") == "code_writing"
    assert intent_of("Explain the session middleware") == "code_reading"
    assert intent_of("Where is the cache configured?") == "project_exploration"
    assert intent_of("ok go on", edited=True) == "code_writing"


def test_two_runs_of_one_failure_share_a_signature():
    first = error_signature("Traceback...\n  File \"/a/b.py\", line 3\n"
                            "ImportError: cannot import name 'x' from 'app.auth' (/a/b.py)")
    second = error_signature("ImportError: cannot import name 'login' from 'app.views' "
                             "(/c/d.py)")
    assert first == second == "importerror: cannot import name <q> from <q> (<path>)"
    # {importerror, cannot, import, name} of {importerror, cannot, import, name, from}
    assert similarity(first, "ImportError: cannot import name") == 0.8
    assert similarity(first, "TypeError: unsupported operand") == 0.0


def test_command_heads_name_the_program_and_its_subcommand():
    assert command_head("python -m pytest tests/x.py -q") == "python -m pytest"
    assert command_head("DEBUG=1 npm run build") == "npm run"
    assert command_head("git commit -m 'x' && git push") == "git commit"
    assert command_head("/usr/bin/ls -la") == "ls"


T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)


def steps(*items):
    return [Step(T0 + timedelta(seconds=i), **kw) for i, kw in enumerate(items)]


def test_an_error_fix_is_a_failure_then_edits_then_the_same_command_passing():
    found = error_fixes(steps(
        {"command": "pytest tests/a.py", "success": False, "error": "E AssertionError: 1 != 2"},
        {"edited": "app/a.py"}, {"edited": "app/b.py"}, {"edited": "app/a.py"},
        {"command": "pytest tests/a.py -x"},
        {"command": "mypy .", "success": False, "error": "error: bad"},  # never passes
        {"edited": "app/c.py"}))
    assert [(f.command, f.fix_files) for f in found] == [("pytest", ["app/a.py", "app/b.py"])]


def test_a_failure_that_passes_again_without_an_edit_teaches_nothing():
    assert error_fixes(steps({"command": "pytest", "success": False, "error": "flaky"},
                             {"command": "pytest"})) == []


def test_a_task_of_hundreds_of_failures_edits_and_passes_keeps_each_fix_small():
    heads = [f"tool{n}" for n in range(300)]
    found = error_fixes(steps(
        *({"command": head, "success": False, "error": "E boom"} for head in heads),
        *({"edited": f"app/m{n}.py"} for n in range(300)),
        *({"command": head} for head in heads)))
    # Every edit went to every failure: 300 fixes of 300 files each (2,000: 39 s).
    assert [f.command for f in found] == heads[:MAX_OPEN_FAILURES]
    assert {tuple(f.fix_files) for f in found} == {
        tuple(f"app/m{n}.py" for n in range(MAX_FIX_FILES))}


def test_a_workflow_is_the_successful_commands_in_first_run_order():
    assert workflow_of(steps({"command": "pytest -q"}, {"command": "npm run build"},
                             {"command": "pytest"}, {"command": "git push", "success": False},
                             {"command": "git commit -m x"})) == (
        "pytest", "npm run", "git commit")
    assert workflow_of(steps({"command": "pytest"}, {"command": "git commit"})) == ()


def test_confidence_shrinks_small_counts():
    assert pattern_confidence(3, 3) == 0.6
    assert pattern_confidence(1, 1) == 0.333
    assert pattern_confidence(9, 10) == 0.75


def test_a_test_runners_summary_line_does_not_hide_the_exception_it_reports():
    assert error_signature("FAILED tests/test_x.py::test_total - KeyError: 'currency'\n"
                           "1 failed, 12 passed in 0.84s") == "keyerror: <q>"
    assert error_signature("make: *** [build] Error 2") == "make: *** [build] error <n>"
