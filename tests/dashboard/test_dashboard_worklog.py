"""The work log screen: a project's timeline, narrowed to a file or a task, with the
co-edit pairs and the error -> fix patterns; a person sees only their own log."""

import time
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from work.models import FileInteraction, LearnedPattern, PatternKind, Task, TaskStatus

pytestmark = pytest.mark.django_db
URL = reverse("work_log")


def logged(owner, project, description, *paths, days_ago=0):
    start = timezone.now() - timedelta(days=days_ago)
    task = Task.objects.create(owner=owner, project=project, description=description,
                               status=TaskStatus.COMPLETED, started_at=start)
    for i, path in enumerate(paths):
        FileInteraction.objects.create(owner=owner, project=project, task=task, path=path,
                                       operation="edit", created_at=start + timedelta(seconds=i))
    return task


@pytest.fixture
def log(alice, bob):
    tasks = [logged(alice, "shop", f"Refund change {day}", "app/refunds.py",
                    "app/serializers.py", days_ago=day) for day in range(3)]
    tasks.append(logged(alice, "shop", "Restyle the header", "web/header.css"))
    logged(alice, "zeta", "Zeta work", "zeta.py")
    logged(bob, "shop", "Bob's secret task", "app/refunds.py")
    LearnedPattern.objects.create(owner=alice, project="shop", kind=PatternKind.ERROR_FIX,
                                  key="k", observed_count=3, confidence=0.6, data={
                                      "command": "python -m pytest",
                                      "error": "KeyError: 'currency'",
                                      "signature": "keyerror: <q>",
                                      "fix_files": ["app/money.py"]})
    return tasks


def test_the_timeline_shows_the_first_project_with_its_pairs_and_fixes(signed_in, log):
    page = signed_in.get(URL).content.decode()
    assert "Refund change 2" in page and "Restyle the header" in page
    assert "Zeta work" not in page and "Bob&#x27;s secret task" not in page
    assert "<code>app/refunds.py</code> and <code>app/serializers.py</code>: 3 tasks" in page
    assert "KeyError: &#x27;currency&#x27;" in page and "app/money.py" in page
    assert 'aria-current="page">Work log' in page


def test_a_file_narrows_the_timeline_to_the_tasks_that_touched_it(signed_in, log):
    page = signed_in.get(URL, {"project": "shop", "path": "header.css"}).content.decode()
    assert "Restyle the header" in page and "Refund change" not in page


def test_a_task_link_shows_that_task_alone_as_an_htmx_partial(signed_in, log):
    response = signed_in.get(URL, {"project": "shop", "task": log[0].pk}, HTTP_HX_REQUEST="true")
    page = response.content.decode()
    assert '<div id="timeline">' in page and "<html" not in page
    assert "Refund change 0" in page and "Refund change 1" not in page


@pytest.mark.parametrize("path", ["app/refunds.py", ""])
def test_the_file_box_follows_a_file_link_and_show_every_task(signed_in, log, path):
    page = signed_in.get(URL, {"project": "shop", "path": path},
                         HTTP_HX_REQUEST="true").content.decode()
    assert (f'<input type="text" name="path" id="id_path" value="{path}" maxlength="1000" '
            f'placeholder="app/auth.py" hx-swap-oob="true">') in page


def test_a_full_page_has_one_file_box(signed_in, log):
    page = signed_in.get(URL, {"project": "shop", "path": "app/refunds.py"}).content.decode()
    assert page.count('id="id_path"') == 1


def test_another_owners_task_or_a_bad_filter_shows_nothing_of_theirs(signed_in, log, bob):
    bobs = Task.objects.get(owner=bob)
    page = signed_in.get(URL, {"project": "shop", "task": bobs.pk}).content.decode()
    assert "secret" not in page and "No tasks" in page
    response = signed_in.get(URL, {"task": "not-a-number"})
    assert response.status_code == 200 and "Enter a whole number" in response.content.decode()


def test_the_project_select_shows_the_project_the_timeline_is_of_even_one_without_work(
        signed_in, log):
    page = signed_in.get(URL, {"project": "nosuch"}).content.decode()
    assert '<option value="nosuch" selected>' in page and "No tasks." in page
    assert '<option value="shop">' in page


def test_a_bad_task_is_told_in_words_and_the_other_filters_still_apply(signed_in, log):
    page = signed_in.get(URL, {"project": "zeta", "task": "abc"}).content.decode()
    assert '<p class="error" role="alert">Task: Enter a whole number. </p>' in page
    assert 'class="errorlist"' not in page
    assert '<option value="zeta" selected>' in page and "Zeta work" in page


def test_a_task_of_thousands_of_files_shows_its_first_and_counts_the_rest(signed_in, alice):
    logged(alice, "shop", "Read the whole repository",
           *(f"src/m{n}.py" for n in range(1000)))
    page = signed_in.get(URL, {"project": "shop"}).content.decode()
    assert page.count("<code>src/m") == 200 and "<code>src/m199.py</code>" in page
    assert "and 800 more" in page


def test_a_turn_of_thousands_of_edits_leaves_the_page_quick(signed_in, alice):
    # Every edit was paired with every other of its task: 9 s a load for 4,000 edits.
    start = timezone.now()
    task = Task.objects.create(owner=alice, project="shop", description="Rename everything",
                               status=TaskStatus.COMPLETED, started_at=start)
    FileInteraction.objects.bulk_create(
        FileInteraction(owner=alice, project="shop", task=task, path=f"src/m{n % 400}.py",
                        operation="edit", created_at=start + timedelta(milliseconds=50 * n))
        for n in range(4000))
    started = time.perf_counter()
    page = signed_in.get(URL, {"project": "shop"}).content.decode()
    assert time.perf_counter() - started < 2
    assert "Rename everything" in page


def test_the_errors_table_reads_only_the_patterns_it_shows(signed_in, alice, monkeypatch):
    LearnedPattern.objects.bulk_create(
        LearnedPattern(owner=alice, project="shop", kind=PatternKind.ERROR_FIX, key=f"k{n}",
                       observed_count=n, data={"command": "pytest", "error": f"E{n}"})
        for n in range(300))
    read = []
    from_db = LearnedPattern.from_db.__func__
    monkeypatch.setattr(LearnedPattern, "from_db",
                        classmethod(lambda cls, *args: read.append(1) or from_db(cls, *args)))
    page = signed_in.get(URL, {"project": "shop"}).content.decode()
    assert "<td>E299</td>" in page and "<td>E280</td>" in page and "<td>E279</td>" not in page
    assert len(read) == 20


def test_a_tool_named_items_is_counted_like_any_other(signed_in, alice):
    # The agent names its tools: "items" was looked up as the dict's key, not its method.
    Task.objects.create(owner=alice, project="shop", description="Call odd tools",
                        status=TaskStatus.COMPLETED, tools_used={"items": 2, "Read": 1})
    response = signed_in.get(URL, {"project": "shop"})
    assert response.status_code == 200
    page = response.content.decode()
    assert " · items 2" in page and " · Read 1" in page
