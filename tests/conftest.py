import importlib.util
import ipaddress
import os
import socket
import sys

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.test import override_settings
from huey.contrib.djhuey import HUEY

from tests.helpers import ANTHROPIC_MESSAGES, OLLAMA_EMBED, SHOP, FakeVendor

# What the suite tests never depends on the developer's shell: no LLM vendor key or URL,
# the offline rules as the LLM, the local embedding model, every ENGRAM_ knob at its
# default. Kept: where the database server, its files and the model files are, and the
# test-only knobs.
PINNED_ENVIRONMENT = {"ENGRAM_LLM_PROVIDER": "rules", "ENGRAM_EMBEDDING_PROVIDER": "local"}
UNPINNED_PREFIXES = ("ENGRAM_", "ANTHROPIC_", "OPENAI_", "OLLAMA_")
KEPT_ENVIRONMENT = {"ENGRAM_HOME", "ENGRAM_TEST_DATABASE", "ENGRAM_MODEL_CACHE",
                    "ENGRAM_SCREENSHOTS", "ENGRAM_FUZZ_EXAMPLES", "ENGRAM_FUZZ_RANDOM"}
NOT_RECOMPUTED = {"DATABASES", "SECRET_KEY"}  # the server the developer points at, kept


def _settings_read_now():
    """The settings module executed afresh from the current environment."""
    source = sys.modules[django_settings.SETTINGS_MODULE].__file__
    spec = importlib.util.spec_from_file_location("pinned_settings", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pin_environment() -> None:
    """Runs when pytest loads this file: after Django read its settings from the shell
    (pytest-django sets Django up first), so the settings are read again, from the shell
    and from the pinned environment, and whatever the pin changes is overridden for the
    whole run. Comparing two fresh reads, not the live settings, leaves alone what apps
    changed at start-up (template_partials wraps the template loaders). Subprocesses
    inherit the pinned environment."""
    shell = _settings_read_now()
    for name in [n for n in os.environ if n.startswith(UNPINNED_PREFIXES)]:
        if name not in KEPT_ENVIRONMENT:
            del os.environ[name]
    os.environ.update(PINNED_ENVIRONMENT)
    pinned = _settings_read_now()
    changed = {name: getattr(pinned, name) for name in dir(pinned)
               if name.isupper() and name not in NOT_RECOMPUTED
               and getattr(shell, name, None) != getattr(pinned, name)}
    if changed:
        override_settings(**changed).enable()


_pin_environment()
# Every test's users (alice, bob, charlie, ...) get a password: at PBKDF2's 1,000,000
# rounds that was most of the suite's time. No test is about the hash itself.
override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]).enable()


def _is_local(host) -> bool:
    if host in (None, "localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True, scope="session")
def no_network():
    """Tests never reach the network: only loopback and unix sockets may connect."""
    real_connect, real_getaddrinfo = socket.socket.connect, socket.getaddrinfo

    def connect(sock, address):
        if sock.family != socket.AF_UNIX and not _is_local(address[0]):
            raise OSError(f"tests must not reach the network (tried {address!r})")
        return real_connect(sock, address)

    def getaddrinfo(host, *args, **kwargs):
        if not _is_local(host):
            raise OSError(f"tests must not resolve {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect, socket.getaddrinfo = connect, getaddrinfo
    yield
    socket.socket.connect, socket.getaddrinfo = real_connect, real_getaddrinfo


@pytest.fixture
def fake_vendor():
    """Start a FakeVendor (tests/helpers.py) for `path` on loopback; closed after the test,
    which fails if one got a request it had no reply scripted for."""
    started = []

    def start(path: str = "") -> FakeVendor:
        started.append(FakeVendor(path))
        return started[-1]

    yield start
    for fake in started:
        fake.close()


@pytest.fixture
def fake_anthropic(fake_vendor, settings):
    """Anthropic's Messages API on loopback, where the anthropic provider sends its calls."""
    fake = fake_vendor(ANTHROPIC_MESSAGES)
    settings.ANTHROPIC_BASE_URL = fake.url
    return fake


@pytest.fixture
def fake_ollama(fake_vendor, settings):
    """Ollama's embedding API on loopback, where the ollama embedding provider sends its calls."""
    fake = fake_vendor(OLLAMA_EMBED)
    settings.ENGRAM_OLLAMA_URL = fake.url
    return fake


@pytest.fixture(autouse=True, scope="session")
def huey_runs_tasks_inline():
    """Tasks run in-process during tests; tests of the queue itself turn this off."""
    HUEY.immediate = True
    yield


@pytest.fixture(autouse=True)
def readers_read_afresh():
    """What a user reads, and the words much of their store holds, are remembered per
    process for a while; a test that writes rows directly (not through the services,
    which forget the first) must not see the last test's."""
    from memories.selectors import forget_common_terms, forget_readers

    forget_readers()
    forget_common_terms()


@pytest.fixture
def stopped_worker():
    """The queue takes tasks but nothing runs them, as with the consumer stopped; run one
    with `HUEY.execute(HUEY.dequeue())`."""
    HUEY.immediate = False
    try:
        HUEY.storage.initialize_schema()
        HUEY.flush()
        yield HUEY
    finally:
        HUEY.flush()
        HUEY.immediate = True


@pytest.fixture
def alice(db):
    return get_user_model().objects.create_user("alice", password="alice-secret-pw")


@pytest.fixture
def bob(db):
    return get_user_model().objects.create_user("bob", password="bob-secret-pw")


@pytest.fixture
def charlie(db):
    return get_user_model().objects.create_user("charlie", password="charlie-secret-pw")


@pytest.fixture
def dana(db):
    return get_user_model().objects.create_user("dana", password="dana-secret-pw")



@pytest.fixture
def team(alice, bob, charlie, dana):
    """alice's project SHOP: alice its owner, bob an editor, dana a reader; charlie is
    not a member."""
    from memories.services.projects import add_member, create_project

    project = create_project(creator=alice, name=SHOP)
    add_member(project, by=alice, username="bob", role="editor")
    add_member(project, by=alice, username="dana", role="reader")
    return project


@pytest.fixture
def signed_in(client, alice):
    """The dashboard's test client, signed in as alice."""
    client.force_login(alice)
    return client


@pytest.fixture
def api_client_for():
    """An API client that sends `owner`'s freshly created key as a Bearer token."""
    from rest_framework.test import APIClient

    from memories.services.api_keys import create_api_key

    def make(owner):
        _, raw_key = create_api_key(owner=owner, name="test")
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_key}")
        return client

    return make
