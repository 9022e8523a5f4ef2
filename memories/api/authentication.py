from datetime import timedelta

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from memories import selectors
from memories.models import ApiKey

# Recording every use would turn each read into a write; a minute's precision is plenty.
LAST_USED_PRECISION = timedelta(minutes=1)


UNKNOWN_KEY = "Unknown or revoked API key."


def usable_key(raw_key: str) -> ApiKey | None:
    """The usable key that `raw_key` is (its owner loaded), or None when it is unknown,
    revoked or expired; notes when it was used. The REST API and the MCP server both
    check keys here, and both narrow what the key reaches by its project
    (`selectors.Reach.of_key`)."""
    key = selectors.usable_api_key(raw_key)
    if key is not None:
        now = timezone.now()
        if key.last_used_at is None or now - key.last_used_at > LAST_USED_PRECISION:
            ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
            selectors.note_key_used(key, now)
    return key


def refusal(raw_key: str) -> str:
    """Why `raw_key` is not usable, in words for the 401: expired, or unknown/revoked."""
    expired = ApiKey.objects.expired_matching(raw_key)
    if expired is not None:
        return (f"This API key expired on {expired.expires_at:%Y-%m-%d %H:%M} UTC: make a "
                "new one on the dashboard's API keys screen.")
    return UNKNOWN_KEY


class ApiKeyAuthentication(authentication.BaseAuthentication):
    """`Authorization: Bearer <key>`, for agents. The dashboard uses its session."""

    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Send the key as: Authorization: Bearer <key>.")
        key = usable_key(header[1].decode("latin-1"))
        if key is None:
            raise exceptions.AuthenticationFailed(refusal(header[1].decode("latin-1")))
        return key.owner, key

    def authenticate_header(self, request):
        return self.keyword


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = ApiKeyAuthentication
    name = "ApiKey"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer"}
