"""API keys: made with a name and shown once, listed with their last use, revoked."""

import pytest
from django.urls import reverse

from memories.models import ApiKey
from memories.services.api_keys import create_api_key

pytestmark = pytest.mark.django_db

KEYS = "/keys/"


def revoke(key):
    return reverse("revoke_api_key", args=[key.pk])


def test_it_is_routed_under_its_name():
    assert reverse("api_keys") == KEYS


def test_a_new_key_is_shown_once(signed_in, alice):
    response = signed_in.post(KEYS, {"name": "laptop claude"})
    key = ApiKey.objects.get(owner=alice)
    page = response.content.decode()
    raw = page.split('id="new-key"')[1].split('value="')[1].split('"')[0]
    assert raw.startswith("engram_") and ApiKey.digest(raw) == key.key_hash
    assert "no-store" in response["Cache-Control"]
    assert raw not in signed_in.get(KEYS).content.decode()


def test_the_new_key_works_against_the_api(signed_in, alice):
    page = signed_in.post(KEYS, {"name": "ci"}).content.decode()
    raw = page.split('id="new-key"')[1].split('value="')[1].split('"')[0]
    assert ApiKey.objects.matching(raw).owner == alice


def test_a_key_needs_a_name_and_says_so_next_to_the_field(signed_in):
    page = signed_in.post(KEYS, {"name": "   "}).content.decode()
    field = page[page.index('for="id_name"'):]
    field = field[:field.index("</p>")]
    assert 'id="id_name_error" role="alert">This field is required.' in field
    assert 'aria-describedby="id_name_helptext id_name_error"' in field
    assert not ApiKey.objects.exists()


def test_a_too_long_name_is_refused_and_kept_in_the_field(signed_in):
    long_name = "x" * 101
    page = signed_in.post(KEYS, {"name": long_name}).content.decode()
    assert "at most 100 characters" in page and f'value="{long_name}"' in page


def test_the_list_shows_ones_own_keys_with_their_last_use(signed_in, alice, bob):
    create_api_key(owner=alice, name="used key")
    ApiKey.objects.filter(name="used key").update(last_used_at="2026-03-04T05:06:00Z")
    create_api_key(owner=alice, name="idle key")
    create_api_key(owner=bob, name="bob's key")
    page = signed_in.get(KEYS).content.decode()
    assert "used key" in page and "2026-03-04 05:06" in page and "never" in page
    assert "bob&#x27;s key" not in page and "bob's key" not in page


def test_revoking_a_key_stops_it_and_keeps_it_listed(signed_in, alice):
    key, raw = create_api_key(owner=alice, name="old")
    response = signed_in.post(revoke(key))
    assert response.status_code == 302 and response["Location"] == KEYS
    assert ApiKey.objects.matching(raw) is None
    assert "revoked" in signed_in.get(KEYS).content.decode()


def test_nobody_revokes_anothers_key(client, alice, bob):
    key, raw = create_api_key(owner=alice, name="alice's")
    client.force_login(bob)
    assert client.post(revoke(key)).status_code == 404
    assert ApiKey.objects.matching(raw) is not None


def test_revoking_needs_a_post(signed_in, alice):
    key, _ = create_api_key(owner=alice, name="k")
    assert signed_in.get(revoke(key)).status_code == 405


def test_htmx_answers_with_the_keys_partial(signed_in, alice):
    key, _ = create_api_key(owner=alice, name="k")
    created = signed_in.post(KEYS, {"name": "new"}, HTTP_HX_REQUEST="true")
    revoked = signed_in.post(revoke(key), HTTP_HX_REQUEST="true")
    for response in (created, revoked):
        assert response.content.decode().lstrip().startswith('<div id="keys"')
    assert "apiKeyCreated" in created["HX-Trigger"]
    assert "apiKeyRevoked" in revoked["HX-Trigger"]


def test_the_list_does_not_query_per_key(signed_in, alice, django_assert_max_num_queries):
    for n in range(30):
        create_api_key(owner=alice, name=f"key {n}")
    with django_assert_max_num_queries(4):
        assert signed_in.get(KEYS).status_code == 200


def test_a_key_can_carry_an_expiry_and_a_project_and_the_list_shows_them(signed_in, alice):
    page = signed_in.post(KEYS, {"name": "shop ci", "expires_in_days": "30",
                                 "project": " shop "}).content.decode()
    key = ApiKey.objects.get(owner=alice)
    assert key.project == "shop" and key.expires_at is not None
    listed = signed_in.get(KEYS).content.decode()
    assert "shop" in listed and key.expires_at.strftime("%Y-%m-%d") in listed
    assert 'id="id_expires_in_days"' in page and 'id="id_project"' in page


def test_without_expiry_or_project_a_key_reaches_everything_for_ever(signed_in, alice):
    signed_in.post(KEYS, {"name": "laptop"})
    key = ApiKey.objects.get(owner=alice)
    assert key.project == "" and key.expires_at is None
    assert "all projects" in signed_in.get(KEYS).content.decode()


@pytest.mark.parametrize("days", ["0", "-3", "abc", "99999"])
def test_a_bad_expiry_is_refused_next_to_its_field(signed_in, alice, days):
    page = signed_in.post(KEYS, {"name": "ci", "expires_in_days": days}).content.decode()
    assert not ApiKey.objects.filter(owner=alice).exists()
    field = page[page.index('for="id_expires_in_days"'):]
    assert 'id="id_expires_in_days_error" role="alert">' in field[:field.index("</p>")]


def test_a_too_long_project_is_refused(signed_in, alice):
    signed_in.post(KEYS, {"name": "ci", "project": "p" * 201})
    assert not ApiKey.objects.filter(owner=alice).exists()


def test_an_expired_key_is_listed_as_expired(signed_in, alice):
    from datetime import timedelta

    from django.utils import timezone
    key, _ = create_api_key(owner=alice, name="old one", expires_in_days=1)
    ApiKey.objects.filter(pk=key.pk).update(expires_at=timezone.now() - timedelta(days=2))
    assert "expired " in signed_in.get(KEYS).content.decode()
