from datetime import timedelta

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from memories.models import ApiKey

# Recording every use would turn each read into a write; a minute's precision is plenty.
LAST_USED_PRECISION = timedelta(minutes=1)


def usable_key(raw_key: str) -> ApiKey | None:
    """The usable key that `raw_key` is (its owner loaded), or None; notes when it was
    used. The REST API and the MCP server both check keys here."""
    key = ApiKey.objects.matching(raw_key)
    if key is not None:
        now = timezone.now()
        if key.last_used_at is None or now - key.last_used_at > LAST_USED_PRECISION:
            ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
    return key


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
            raise exceptions.AuthenticationFailed("Unknown or revoked API key.")
        return key.owner, key

    def authenticate_header(self, request):
        return self.keyword


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = ApiKeyAuthentication
    name = "ApiKey"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer"}
