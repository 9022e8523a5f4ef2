"""What the maintenance tests share."""

import pytest

from memories.services import remembering


@pytest.fixture
def remember(django_capture_on_commit_callbacks):
    """remember(), then the contradiction check its commit queues."""
    def store(owner, content, **fields):
        with django_capture_on_commit_callbacks(execute=True):
            return remembering.remember(owner=owner, content=content, **fields).memory
    return store
