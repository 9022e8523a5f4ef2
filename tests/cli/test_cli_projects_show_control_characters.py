"""What `engram projects create`, `add-member` and `remove-member` say shows the control
characters of a project's name and of its members' names as escapes (`\x1b`), as the
tables do: a name from before Engram refused them, or from another Engram, cannot clear
the terminal or recolour it. Engram itself now refuses them all, C1 ones included."""
import re

import pytest
from django.contrib.auth import get_user_model

from memories.models import Membership, Project, Role

pytestmark = pytest.mark.django_db(transaction=True)

PLANTED = "shop\x1b[2J\x1b[31m\x9b1m"
SHOWN = r"shop\x1b[2J\x1b[31m\x9b1m"
# every C0 and C1 control character but a newline
OBEYED = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")


NEWCOMER = "mallory\x1b]52;c;ZWNobyBoaQ==\x07"


@pytest.fixture
def planted(alice):
    """alice's project named with escape sequences, a member named so and a newcomer
    (none can be made through Engram today: they are stored as an older Engram did)."""
    project = Project.objects.create(name=PLANTED, creator=alice)
    users = get_user_model().objects
    for user, role in [(alice, Role.OWNER),
                       (users.create_user(PLANTED, password="planted-pw"), Role.EDITOR)]:
        Membership.objects.create(project=project, user=user, role=role, added_by=alice)
    users.create_user(NEWCOMER, password="newcomer-pw")
    return project


@pytest.mark.parametrize("change", [["add-member", PLANTED, NEWCOMER, "editor"],
                                    ["add-member", PLANTED, PLANTED, "reader"],
                                    ["remove-member", PLANTED, PLANTED]],
                         ids=["adding", "changing a role", "removing"])
def test_a_member_change_prints_the_names_control_characters_as_escapes(
        engram, planted, change):
    code, said = engram("projects", *change)
    assert code == 0 and SHOWN in said
    assert not OBEYED.search(said)


def test_a_project_named_with_a_c1_control_character_is_refused_not_printed(engram, capsys):
    code, said = engram("projects", "create", "shop\x9b1m")  # "\x9b" is ESC [ in one byte
    refusal = capsys.readouterr().err
    assert code == 1 and said == "" and "cannot hold control characters" in refusal
    assert not OBEYED.search(refusal) and not Project.objects.exists()
