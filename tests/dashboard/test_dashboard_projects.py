"""The Projects screen: one's projects with their members and roles, a new project, and
for owners adding members, changing roles and removing members; any member leaves."""

import pytest
from django.urls import reverse
from django.utils.html import escape

from memories.models import Membership, Project, Role

pytestmark = pytest.mark.django_db

PROJECTS = "/projects/"


def members(project):
    return reverse("project_member", args=[project.pk])


def remove(project):
    return reverse("project_member_remove", args=[project.pk])


def roles(project) -> dict:
    return dict(project.memberships.current().values_list("user__username", "role"))


def section(page: str, project) -> str:
    start = page.index(f'id="project-{project.pk}"')
    return page[start:page.index("</section>", start)]


def test_it_is_routed_under_its_name_and_in_the_navigation(client, alice):
    client.force_login(alice)
    page = client.get(PROJECTS).content.decode()
    assert reverse("projects") == PROJECTS
    assert f'<a href="{PROJECTS}" aria-current="page">Projects</a>' in page


def test_it_lists_ones_projects_with_creator_role_and_members(client, team, bob):
    client.force_login(bob)
    mine = section(client.get(PROJECTS).content.decode(), team)
    assert "github.com/acme/shop" in mine and "Created by alice" in mine
    assert '<strong class="role">editor</strong>' in mine
    rows = mine.split('<tr class="member">')[1:]
    assert [row.split("<td>")[1].split("<")[0].strip() for row in rows] == [
        "alice", "bob (you)", "dana"]
    assert ["owner" in rows[0], "editor" in rows[1], "reader" in rows[2]] == [True] * 3


def test_a_stranger_sees_none_of_its_projects(client, team, charlie):
    client.force_login(charlie)
    page = client.get(PROJECTS).content.decode()
    assert f'id="project-{team.pk}"' not in page and "Created by alice" not in page
    assert "You are a member of no project yet" in page


def test_creating_a_project_makes_one_its_owner(client, alice):
    client.force_login(alice)
    response = client.post(PROJECTS, {"name": "github.com/acme/api"})
    project = Project.objects.get(name="github.com/acme/api", creator=alice)
    assert roles(project) == {"alice": Role.OWNER}
    # Redirected, so that reloading the page does not post the form again.
    assert response.status_code == 302 and response["Location"] == PROJECTS
    page = client.get(PROJECTS).content.decode()
    assert "Project “github.com/acme/api” created" in page
    assert f'id="project-{project.pk}"' in page


def test_htmx_creating_a_project_gets_the_partial_with_the_notice(client, alice):
    client.force_login(alice)
    response = client.post(PROJECTS, {"name": "github.com/acme/api"}, HTTP_HX_REQUEST="true")
    page = response.content.decode()
    assert response.status_code == 200 and page.lstrip().startswith('<div id="projects">')
    assert "Project “github.com/acme/api” created" in page
    assert 'name="name"' in page and 'value="github.com/acme/api"' not in page  # emptied


def test_an_empty_name_is_refused_next_to_the_field(client, alice):
    client.force_login(alice)
    page = client.post(PROJECTS, {"name": "   "}).content.decode()
    assert 'id="id_name_error" role="alert">This field is required.' in page
    assert not Project.objects.exists()


def test_a_name_one_already_has_is_refused_with_the_services_message(client, team, alice):
    client.force_login(alice)
    page = client.post(PROJECTS, {"name": "github.com/acme/shop"}).content.decode()
    assert 'id="id_name_error" role="alert">' in page
    assert escape("You already have a project named 'github.com/acme/shop'.") in page
    assert Project.objects.count() == 1


def test_a_name_with_a_control_character_is_refused(client, alice):
    client.force_login(alice)
    page = client.post(PROJECTS, {"name": "acme\x07shop"}).content.decode()
    assert "cannot hold control characters" in page and not Project.objects.exists()


def test_an_owner_adds_a_member_with_a_role(client, team, alice, charlie):
    client.force_login(alice)
    response = client.post(members(team), {"username": "charlie", "role": "reader"})
    assert response.status_code == 302 and response["Location"] == PROJECTS
    assert roles(team)["charlie"] == Role.READER
    page = client.get(PROJECTS).content.decode()
    assert "charlie joined “github.com/acme/shop” as reader." in page


def test_an_unknown_username_is_refused_next_to_the_field(client, team, alice):
    client.force_login(alice)
    page = client.post(members(team), {"username": "zed", "role": "editor"}).content.decode()
    mine = section(page, team)
    assert f'id="member-{team.pk}-username_error" role="alert">' in mine
    assert escape("No active user is named 'zed'.") in mine
    assert "zed" not in roles(team)


def test_an_unknown_role_is_refused_next_to_the_field(client, team, alice):
    client.force_login(alice)
    page = client.post(members(team), {"username": "charlie", "role": "admin"}).content.decode()
    assert f'id="member-{team.pk}-role_error" role="alert">' in section(page, team)
    assert "charlie" not in roles(team)


def test_an_owner_changes_a_members_role(client, team, alice):
    client.force_login(alice)
    client.post(members(team), {"username": "dana", "role": "editor"})
    assert roles(team)["dana"] == Role.EDITOR
    assert "dana is now editor of “github.com/acme/shop”." in client.get(PROJECTS).content.decode()


def test_the_last_owner_cannot_step_down(client, team, alice):
    client.force_login(alice)
    page = client.post(members(team), {"username": "alice", "role": "editor"}).content.decode()
    assert "would have no owner left" in section(page, team)
    assert roles(team)["alice"] == Role.OWNER


def test_a_refused_role_change_is_told_at_the_members_row_and_the_add_form_stays_empty(
        client, team, alice):
    client.force_login(alice)
    page = section(client.post(members(team), {"username": "alice", "role": "reader",
                                               "row": "change"}).content.decode(), team)
    rows, rest = page.split("<h3>Add a member</h3>")
    add_form = rest[:rest.index("</form>")]
    [alices_row] = [row for row in rows.split('<tr class="member">')[1:] if "(you)" in row]
    assert f'id="role-{team.pk}-{alice.pk}-error" role="alert">' in alices_row
    assert "would have no owner left" in alices_row
    assert "would have no owner left" not in add_form and 'value="alice"' not in add_form
    assert roles(team)["alice"] == Role.OWNER


def above_the_members(section: str) -> str:
    return section[:section.index("<table>")]


def test_a_refused_leave_is_told_at_the_members_own_row_not_above_the_members(
        client, team, alice):
    client.force_login(alice)
    page = section(client.post(remove(team), {"username": "alice"}).content.decode(), team)
    [alices_row] = [row for row in page.split('<tr class="member">')[1:] if "(you)" in row]
    assert f'id="remove-{team.pk}-{alice.pk}-error" role="alert">' in alices_row
    assert "would have no owner left" in alices_row
    assert "would have no owner left" not in above_the_members(page)


def test_a_refusal_about_someone_without_a_row_is_told_above_the_members(client, team, alice):
    client.force_login(alice)
    page = section(client.post(remove(team), {"username": "charlie"}).content.decode(), team)
    assert escape("'charlie' is not a member") in above_the_members(page)
    page = section(client.post(members(team), {"username": "zed", "role": "reader",
                                               "row": "change"}).content.decode(), team)
    assert "zed" in above_the_members(page)


def test_an_owner_removes_a_member(client, team, alice):
    client.force_login(alice)
    client.post(remove(team), {"username": "dana"})
    assert "dana" not in roles(team)
    assert Membership.objects.get(project=team, user__username="dana").left_at is not None


def test_only_owners_see_the_member_controls(client, team, alice, bob, dana):
    for person, controls in ((alice, True), (bob, False), (dana, False)):
        client.force_login(person)
        mine = section(client.get(PROJECTS).content.decode(), team)
        assert ("Add a member" in mine) is controls
        assert (f'action="{members(team)}"' in mine) is controls
        assert ('aria-label="Remove dana"' in mine) is controls
        assert "Leave github.com/acme/shop" in mine  # every member may leave


@pytest.mark.parametrize("person", ["bob", "dana"])
def test_a_member_who_is_not_an_owner_may_not_manage_members(client, team, person):
    client.force_login(team.memberships.get(user__username=person).user)
    assert client.post(members(team), {"username": "charlie", "role": "owner"}).status_code == 403
    assert client.post(members(team), {"username": "dana", "role": "owner"}).status_code == 403
    assert client.post(remove(team), {"username": "alice"}).status_code == 403
    assert roles(team) == {"alice": "owner", "bob": "editor", "dana": "reader"}


def test_a_stranger_gets_404_for_every_action_on_the_project(client, team, charlie):
    client.force_login(charlie)
    assert client.post(members(team), {"username": "charlie", "role": "owner"}).status_code == 404
    assert client.post(remove(team), {"username": "charlie"}).status_code == 404
    assert client.post(remove(team), {"username": "dana"}).status_code == 404
    assert "charlie" not in roles(team) and "dana" in roles(team)


def test_a_member_leaves(client, team, dana):
    client.force_login(dana)
    response = client.post(remove(team), {"username": "dana"}, follow=True)
    page = response.content.decode()
    assert "You left “github.com/acme/shop”" in page
    assert f'id="project-{team.pk}"' not in page
    assert "dana" not in roles(team)


def test_the_last_owner_cannot_leave_and_is_told_why(client, team, alice):
    client.force_login(alice)
    page = client.post(remove(team), {"username": "alice"}).content.decode()
    assert "would have no owner left: make another member an owner first." in section(page, team)
    assert roles(team)["alice"] == Role.OWNER


def test_removing_someone_who_is_not_a_member_says_so(client, team, alice):
    client.force_login(alice)
    page = client.post(remove(team), {"username": "charlie"}).content.decode()
    assert escape("'charlie' is not a member of project") in section(page, team)


def test_htmx_gets_the_projects_partial(client, team, alice):
    client.force_login(alice)
    response = client.post(members(team), {"username": "charlie", "role": "editor"},
                           HTTP_HX_REQUEST="true")
    page = response.content.decode()
    assert response.status_code == 200 and "<html" not in page
    assert page.lstrip().startswith('<div id="projects">')
    assert "charlie joined" in page and roles(team)["charlie"] == Role.EDITOR


def test_two_projects_of_one_name_by_different_creators_are_told_apart(client, team, bob):
    from memories.services.projects import create_project

    bobs = create_project(creator=bob, name="github.com/acme/shop")
    client.force_login(bob)
    page = client.get(PROJECTS).content.decode()
    assert "Created by alice" in section(page, team) and "Created by bob" in section(page, bobs)
    client.post(members(bobs), {"username": "dana", "role": "reader"})
    assert roles(bobs) == {"bob": "owner", "dana": "reader"}
    assert roles(team)["dana"] == "reader"
