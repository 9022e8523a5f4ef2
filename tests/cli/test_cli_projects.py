"""`engram projects` and `engram remember --scope`: a team managed from a terminal,
through the REST API, with the API's refusals as exit code 1 and its message."""
import io
import json

import pytest

from engram_client import cli
from memories.models import Membership, Memory, Project, Scope
from memories.services.api_keys import create_api_key
from memories.services.projects import add_member, create_project
from tests.helpers import SHOP

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def engram_as(live_server, monkeypatch, tmp_path):
    """Run `engram ARGS` as `user` against a served Engram: (exit code, stdout)."""
    monkeypatch.setenv("ENGRAM_URL", live_server.url)
    monkeypatch.setenv("ENGRAM_CONFIG", str(tmp_path / "none.json"))

    def run(user, *args):
        monkeypatch.setenv("ENGRAM_API_KEY", create_api_key(owner=user, name="cli")[1])
        out = io.StringIO()
        return cli.main(list(args), out=out), out.getvalue()
    return run


def _members(project) -> dict:
    return dict(Membership.objects.current().filter(project=project)
                .values_list("user__username", "role"))


def test_create_a_project_add_members_and_list_them_with_roles(engram_as, alice, bob, dana):
    code, said = engram_as(alice, "projects", "create", SHOP)
    assert code == 0 and said == f"created project {SHOP}; you are its owner\n"
    assert engram_as(alice, "projects", "add-member", SHOP, "bob", "editor")[0] == 0
    code, said = engram_as(alice, "projects", "add-member", SHOP, "dana", "reader")
    assert code == 0 and said.startswith(f"dana is now reader of {SHOP}")
    code, table = engram_as(bob, "projects")
    header, row = table.splitlines()
    assert header.split() == ["name", "creator", "role", "members"]
    assert row.split()[:3] == [SHOP, "alice", "editor"]
    assert "alice (owner), bob (editor), dana (reader)" in row
    code, said = engram_as(dana, "projects", "list", "--json")
    assert [(p["name"], p["role"]) for p in json.loads(said)] == [(SHOP, "reader")]


def test_changing_a_role_and_removing_a_member(engram_as, team, alice, dana):
    assert engram_as(alice, "projects", "add-member", SHOP, "dana", "editor")[0] == 0
    assert _members(team)["dana"] == "editor"
    code, said = engram_as(alice, "projects", "remove-member", SHOP, "dana")
    assert code == 0 and said.startswith("dana is no longer a member")
    assert "dana" not in _members(team)


def test_a_member_leaves_with_their_own_name(engram_as, team, bob):
    assert engram_as(bob, "projects", "remove-member", SHOP, "bob")[0] == 0
    assert "bob" not in _members(team)


def test_only_an_owner_manages_members_and_the_cli_says_so(engram_as, team, bob, capsys):
    code, _ = engram_as(bob, "projects", "add-member", SHOP, "charlie", "reader")
    assert code == cli.REFUSED and "owner" in capsys.readouterr().err
    assert "charlie" not in _members(team)


def test_dot_names_the_project_of_this_directory(engram_as, alice, bob, monkeypatch,
                                                 tmp_path):
    checkout = tmp_path / "shop"
    (checkout / ".git").mkdir(parents=True)
    (checkout / ".git" / "config").write_text(
        '[remote "origin"]\n\turl = git@github.com:acme/shop.git\n')
    monkeypatch.chdir(checkout)
    assert engram_as(alice, "projects", "create", ".")[0] == 0
    assert engram_as(alice, "projects", "add-member", ".", "bob", "editor")[0] == 0
    assert _members(Project.objects.get(name=SHOP)) == {"alice": "owner", "bob": "editor"}


def test_creator_picks_one_of_two_projects_of_a_name(engram_as, alice, bob, charlie):
    for creator in (alice, bob):
        add_member(create_project(creator=creator, name="shop"), by=creator,
                   username="charlie", role="reader")
    code, _ = engram_as(charlie, "projects", "remove-member", "shop", "charlie")
    assert code == cli.REFUSED
    code, _ = engram_as(charlie, "projects", "remove-member", "shop", "charlie",
                        "--creator", "bob")
    assert code == 0
    assert list(Membership.objects.current().filter(user=charlie).values_list(
        "project__creator__username", flat=True)) == ["alice"]


def test_remember_with_scope_project_shares_it_with_the_members(engram_as, team, bob, dana):
    code, said = engram_as(bob, "remember", "Orders use PostgreSQL 16.", "--project", SHOP,
                           "--scope", "project")
    assert code == 0 and said.startswith("created ")
    memory = Memory.objects.get(owner=bob)
    assert (memory.scope, memory.shared_with) == (Scope.PROJECT, team)
    code, shown = engram_as(dana, "show", str(memory.pk))
    assert code == 0 and "scope:       project" in shown and "author:      bob" in shown


@pytest.mark.parametrize("project, message", [(SHOP, "reader"),
                                              ("warehouse", "no project named")])
def test_remember_with_scope_project_is_refused_without_a_project_one_may_write(
        engram_as, team, dana, capsys, project, message):
    code, _ = engram_as(dana, "remember", "Orders use PostgreSQL 16.", "--project", project,
                        "--scope", "project")
    assert code == cli.REFUSED and message in capsys.readouterr().err
    assert not Memory.objects.exists()


def test_a_project_named_in_another_script_reaches_the_api_intact(engram_as, alice, bob):
    assert engram_as(alice, "projects", "create", "東京/ショップ")[0] == 0
    code, said = engram_as(alice, "projects", "add-member", "東京/ショップ", "bob", "editor")
    assert code == 0, said
    assert _members(Project.objects.get(name="東京/ショップ")) == {"alice": "owner",
                                                               "bob": "editor"}
