"""POST and PATCH /api/v1/memories store a secret's placeholder, never the secret, and
say so in what they answer."""

import pytest

from memories.models import Memory

pytestmark = pytest.mark.django_db

GITHUB_TOKEN = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"


def test_a_secret_posted_in_the_content_or_the_metadata_is_not_stored(alice, api_client_for):
    response = api_client_for(alice).post("/api/v1/memories", {
        "content": f"Releases push with {GITHUB_TOKEN}",
        "metadata": {"command": f"git push https://{GITHUB_TOKEN}@github.com/acme/shop"}},
        format="json")
    assert response.status_code == 201
    assert GITHUB_TOKEN not in response.content.decode()
    memory = Memory.objects.get(pk=response.json()["memory"]["id"])
    assert memory.content == "Releases push with [REDACTED:github_token]"
    assert GITHUB_TOKEN not in str(memory.metadata)
    assert memory.metadata["redactions"] == {"github_token": 2}


def test_a_secret_patched_into_the_content_is_not_stored(alice, api_client_for):
    client = api_client_for(alice)
    created = client.post("/api/v1/memories", {"content": "Releases push from CI"},
                          format="json").json()["memory"]
    response = client.patch(f"/api/v1/memories/{created['id']}",
                            {"content": f"Releases push from CI with {GITHUB_TOKEN}"},
                            format="json")
    assert response.status_code == 200
    assert response.json()["content"] == "Releases push from CI with [REDACTED:github_token]"
    assert GITHUB_TOKEN not in Memory.objects.get(pk=created["id"]).content
