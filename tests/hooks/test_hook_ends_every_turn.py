"""Every Stop ends its turn in the work log, even when the hook has nothing new to send:
it sends no message twice (the lagging transcript gives a reply again next turn), so a
turn answered as an earlier one ended with its prompt alone, or nothing, and the next
turn's tool events joined its task."""
import pytest

from work.models import Task, TaskStatus

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("second_prompt", ["Now do the same in the settings module",
                                           "Rename the config loader"])
def test_a_turn_answered_as_an_earlier_one_is_ended_and_the_next_turn_is_another_task(
        hook_event, live_server, run_hook, alice, alice_key, checkout, second_prompt):
    def hook(name, **fields):
        result = run_hook(hook_event(name, cwd=str(checkout), transcript_path="", **fields),
                          url=live_server.url, key=alice_key)
        assert result.returncode == 0, result.stderr

    def edit(path, call):
        hook("post_tool_use_edit", tool_use_id=call,
             tool_input={"file_path": f"{checkout}/{path}", "old_string": "a",
                         "new_string": "b"})

    # The second prompt is new, or said again too: then the hook has nothing to send.
    for number, prompt in enumerate(["Rename the config loader", second_prompt], 1):
        hook("user_prompt_submit", prompt=prompt)
        edit(f"step{number}.py", f"toolu_{number}")
        hook("stop", last_assistant_message="Done.")
    edit("step3.py", "toolu_3")

    tasks = Task.objects.filter(owner=alice).order_by("started_at")
    assert [(task.status, task.files_touched) for task in tasks] == [
        (TaskStatus.COMPLETED, ["step1.py"]), (TaskStatus.COMPLETED, ["step2.py"]),
        (TaskStatus.ACTIVE, ["step3.py"])]
