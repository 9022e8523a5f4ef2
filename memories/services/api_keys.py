"""API keys: an agent's way in, shown once and stored only as a digest. A key may expire
and may be restricted to one project."""

import secrets
from datetime import datetime, timedelta

from django.core.exceptions import ValidationError
from django.utils import timezone

from .. import selectors
from ..models import ApiKey
from .validation import MAX_SCOPE_LENGTH, unstorable_error

MAX_KEY_DAYS = 3650


def create_api_key(*, owner, name: str, expires_in_days: int | None = None,
                   project: str = "", now: datetime | None = None) -> tuple[ApiKey, str]:
    """A new key for `owner`; the key itself is returned once and never stored.

    `expires_in_days` (1 to 3650) makes it refused from then on; `project` restricts it
    to that project's memories (blank: every project)."""
    name = (name or "").strip()
    project = (project or "").strip()
    errors = {}
    if not name or len(name) > 100:
        errors["name"] = ["Give the key a name of 1 to 100 characters."]
    if expires_in_days is not None and (
            isinstance(expires_in_days, bool) or not isinstance(expires_in_days, int)
            or not 1 <= expires_in_days <= MAX_KEY_DAYS):
        errors["expires_in_days"] = [
            f"The expiry is a whole number of days from 1 to {MAX_KEY_DAYS} (or none)."]
    if len(project) > MAX_SCOPE_LENGTH or unstorable_error(project):
        errors["project"] = [(f"A project name is text of at most {MAX_SCOPE_LENGTH} "
                              "characters.")]
    if errors:
        raise ValidationError(errors)
    now = now or timezone.now()
    expires_at = now + timedelta(days=expires_in_days) if expires_in_days else None
    raw = ApiKey.PREFIX + secrets.token_urlsafe(32)
    key = ApiKey.objects.create(owner=owner, name=name, key_prefix=raw[:12],
                                key_hash=ApiKey.digest(raw), created_at=now,
                                expires_at=expires_at, project=project)
    return key, raw


def revoke_api_key(key: ApiKey, *, now: datetime | None = None) -> ApiKey:
    if key.revoked_at is None:
        key.revoked_at = now or timezone.now()
        key.save(update_fields=["revoked_at"])
    selectors.forget_api_key(key.key_hash)
    return key
