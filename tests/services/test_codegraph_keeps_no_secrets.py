"""A code graph's signatures reach agents (MCP code_file, the symbol lists): a secret
written as a default argument is redacted there as memories redact it."""

import pytest

from codegraph import services
from codegraph.models import CodeSymbol

pytestmark = pytest.mark.django_db

AWS_KEY = "AKIA" + "IOSFODNN7EXAMPLE"
SOURCE = f'''def connect(host="db.internal", key="{AWS_KEY}"):
    return host


def plain(host="db.internal", retries=3):
    return host
'''.encode()


def test_a_secret_in_a_default_argument_is_not_stored_and_the_rest_is(alice):
    services.index_sources(alice, "shop", [services.SourceFile("db.py", SOURCE)],
                           complete=True)
    signatures = dict(CodeSymbol.objects.filter(owner=alice).values_list("name", "signature"))
    assert AWS_KEY not in signatures["connect"] and 'host="db.internal"' in signatures["connect"]
    assert signatures["plain"] == 'def plain(host="db.internal", retries=3)'
