"""A shared project for the dashboard's team tests: alice owns it, bob edits, dana reads,
charlie is not a member."""

import pytest
from django.contrib.auth import get_user_model

from memories.models import Role
from memories.services.projects import add_member, create_project


@pytest.fixture
def dana(db):
    return get_user_model().objects.create_user("dana", password="dana-secret-pw")


@pytest.fixture
def shop(alice, bob, dana, charlie):
    """github.com/acme/shop (a git remote's name, slashes and all)."""
    project = create_project(creator=alice, name="github.com/acme/shop")
    add_member(project, by=alice, username="bob", role=Role.EDITOR)
    add_member(project, by=alice, username="dana", role=Role.READER)
    return project
