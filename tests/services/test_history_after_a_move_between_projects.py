"""A memory moved from one project into another: the new project's members read its
history from the move on, as after a move out of private; what it said in the project
it left stays with its author."""

import pytest

from memories.models import Scope
from memories.selectors import versions_seen_by
from memories.services.editing import update_memory
from memories.services.projects import add_member, create_project
from memories.services.remembering import remember
from tests.helpers import SHOP

pytestmark = pytest.mark.django_db


def test_what_a_memory_said_in_another_project_stays_out_of_the_new_ones_history(
        team, alice, bob, charlie):
    lab = create_project(creator=alice, name="github.com/acme/lab")
    add_member(lab, by=alice, username="charlie", role="reader")
    memory = remember(owner=alice, content="The shop's payment key is rotated monthly",
                      project=SHOP, scope=Scope.PROJECT, shared_with=team).memory
    update_memory(memory, by=bob, content="The shop's payment key sk_live_4eC39 is in vault B")
    update_memory(memory, by=bob, content="The shop's payment key is in the team vault")
    update_memory(memory, by=alice, shared_with=lab)

    seen = list(versions_seen_by(memory, charlie).values_list("after", flat=True))
    assert len(seen) == 1 and seen[0]["shared_with"] == str(lab.pk)
    assert "vault B" not in str(seen)
    assert len(versions_seen_by(memory, alice)) == 4
