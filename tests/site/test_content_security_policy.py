"""A Content-Security-Policy on every page: everything from this origin, nothing inline.
The templates carry no inline script or style for it to refuse; only the API docs page
(Swagger UI) is relaxed, and only for styles and data: images."""

import re

import pytest
from django.conf import settings

from memories.models import UsageEvent, UsageKind
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db

INLINE_SCRIPT = re.compile(r'<script(?![^>]*\b(?:src=|type="application/json"))[^>]*>', re.I)
INLINE_STYLE = re.compile(r"<style\b|\sstyle=", re.I)
INLINE_HANDLER = re.compile(r"\son[a-z]+=", re.I)


def policy(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {name: values for name, *values in
            (part.split() for part in header.split(";") if part.strip())}


def assert_nothing_inline(html: str, where: str) -> None:
    for pattern in (INLINE_SCRIPT, INLINE_STYLE, INLINE_HANDLER):
        found = pattern.search(html)
        assert not found, f"{where}: {html[max(0, found.start() - 80):found.end() + 80]}"


@pytest.mark.parametrize("template", sorted(
    str(p.relative_to(settings.BASE_DIR)) for p in (settings.BASE_DIR / "templates").rglob("*.html")))
def test_no_template_has_inline_script_or_style(template):
    assert_nothing_inline((settings.BASE_DIR / template).read_text(), template)


def test_every_screen_sends_the_policy_and_renders_nothing_inline(client, alice):
    memory = remember(owner=alice, content="The staging database listens on port 5433").memory
    UsageEvent.objects.create(memory=memory, owner=alice, kind=UsageKind.RETRIEVED)
    assert_nothing_inline(client.get("/accounts/login/").content.decode(), "sign-in")
    assert policy(client.get("/accounts/login/"))["default-src"] == ["'self'"]
    client.force_login(alice)
    for path in ("/", f"/memories/{memory.pk}/", "/context/", "/contradictions/",
                 "/reflection/", "/stats/", "/jobs/", "/keys/", "/transfer/", "/settings/",
                 "/accounts/password/"):
        response = client.get(path)
        assert response.status_code == 200, path
        directives = policy(response)
        assert directives["default-src"] == ["'self'"], path
        assert directives["object-src"] == ["'none'"], path
        assert "'unsafe-inline'" not in response["Content-Security-Policy"], path
        assert_nothing_inline(response.content.decode(), path)


def test_usage_bars_are_sized_by_class(client, alice):
    memory = remember(owner=alice, content="Deploys go out on Tuesdays").memory
    UsageEvent.objects.create(memory=memory, owner=alice, kind=UsageKind.RETRIEVED)
    client.force_login(alice)
    assert 'class="bar w20"' in client.get(f"/memories/{memory.pk}/").content.decode()


def test_htmx_is_told_not_to_inject_its_indicator_style(client):
    page = client.get("/accounts/login/").content.decode()
    assert '<meta name="htmx-config" content=\'{"includeIndicatorStyles": false' in page
    css = (settings.BASE_DIR / "static" / "engram" / "engram.css").read_text()
    assert ".htmx-request .htmx-indicator" in css


def test_the_api_docs_relax_styles_only_and_load_their_script_from_a_file(client):
    response = client.get("/api/docs/")
    html = response.content.decode()
    directives = policy(response)
    assert directives["style-src"] == ["'self'", "'unsafe-inline'"]
    assert directives["img-src"] == ["'self'", "data:"]
    assert "script-src" not in directives  # default-src 'self': no inline script
    assert not INLINE_SCRIPT.search(html)
    script = re.search(r'<script src="([^"]*\?[^"]*script[^"]*)"', html).group(1)
    start = client.get(script.replace("&amp;", "&"))
    assert start.status_code == 200 and "SwaggerUIBundle" in start.content.decode()


def test_the_api_and_healthz_carry_the_policy_too(client, alice, api_client_for):
    assert "Content-Security-Policy" in api_client_for(alice).get("/api/v1/memories")
    assert "Content-Security-Policy" in client.get("/healthz")
