"""The embedded server starts with ENGRAM_EMBEDDED_SHARED_BUFFERS (1GB, or an eighth of a
smaller machine's or container's memory, unless set); a size PostgreSQL would refuse, or
could not start with, is refused first."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from engram_site.settings import memory_available
from tests.helpers import settings_with

ROOT = Path(__file__).resolve().parents[2]

SHOW = """
import os, django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "engram_site.settings")
django.setup()
from django.db import connection
with connection.cursor() as cursor:
    cursor.execute("SHOW shared_buffers")
    print(cursor.fetchone()[0])
"""


def shown(home, size="160MB") -> str:
    """What a new process, the only one attached (it starts and stops the server), sees."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "ENGRAM_TEST_DATABASE")}
    done = subprocess.run([sys.executable, "-c", SHOW], cwd=ROOT, check=True, timeout=120,
                          capture_output=True, text=True,
                          env={**env, "ENGRAM_HOME": str(home),
                               "ENGRAM_EMBEDDED_SHARED_BUFFERS": size})
    return done.stdout.split()[-1]


def buffers(monkeypatch, **environment) -> str:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    return settings_with(monkeypatch, **environment)["DATABASES"]["default"][
        "EMBEDDED_SHARED_BUFFERS"]


def test_the_embedded_server_starts_with_the_configured_shared_buffers(tmp_path):
    shown(tmp_path)  # initialises the cluster, which starts with PostgreSQL's own size

    assert shown(tmp_path) == "160MB"
    # A size changed is the size of the very next start: one the machine could not map
    # is undone by setting another, without a running server to alter.
    assert shown(tmp_path, "144MB") == "144MB"


@pytest.mark.parametrize("size", ["lots", "1.5GB", "8MB", "100GB", "512 MB", "1TB"])
def test_a_size_postgresql_would_refuse_is_refused_with_the_setting_named(monkeypatch, size):
    with pytest.raises(ImproperlyConfigured, match="ENGRAM_EMBEDDED_SHARED_BUFFERS"):
        buffers(monkeypatch, ENGRAM_EMBEDDED_SHARED_BUFFERS=size)


def test_by_default_the_size_is_a_gigabyte_or_an_eighth_of_a_smaller_machine(monkeypatch):
    default = buffers(monkeypatch)
    assert default.endswith("MB")
    megabytes = int(default.removesuffix("MB"))
    assert 16 <= megabytes <= 1024
    assert megabytes == 1024 or megabytes <= memory_available() / 8 / 2**20


def test_the_size_set_is_the_size_used(monkeypatch):
    assert buffers(monkeypatch, ENGRAM_EMBEDDED_SHARED_BUFFERS="512MB") == "512MB"
