"""API keys: an agent's way in, shown once and stored only as a digest."""

import secrets
from datetime import datetime

from django.core.exceptions import ValidationError
from django.utils import timezone

from ..models import ApiKey


def create_api_key(*, owner, name: str) -> tuple[ApiKey, str]:
    """A new key for `owner`; the key itself is returned once and never stored."""
    name = (name or "").strip()
    if not name or len(name) > 100:
        raise ValidationError({"name": ["Give the key a name of 1 to 100 characters."]})
    raw = ApiKey.PREFIX + secrets.token_urlsafe(32)
    key = ApiKey.objects.create(owner=owner, name=name, key_prefix=raw[:12],
                                key_hash=ApiKey.digest(raw))
    return key, raw


def revoke_api_key(key: ApiKey, *, now: datetime | None = None) -> ApiKey:
    if key.revoked_at is None:
        key.revoked_at = now or timezone.now()
        key.save(update_fields=["revoked_at"])
    return key
