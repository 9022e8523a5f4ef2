"""Sources no one should write still index: what PostgreSQL cannot store is made storable."""

import pytest

from codegraph import services
from codegraph.models import CodeSymbol

pytestmark = pytest.mark.django_db


def test_a_name_longer_than_its_column_nul_and_invalid_utf8_are_made_storable(alice):
    long_name = "f" * 300
    # A NUL past the first 8 KiB, where binary files are told apart, and a stray byte.
    source = b"#" * 9000 + b"\n" + f"def {long_name}(a='\0'):\n    pass\n".encode() \
        + b"def g(b='\xff'):\n    pass\n"
    report = services.index_sources(alice, "p", [services.SourceFile("x.py", source)],
                                    complete=True)
    assert (report.parsed, report.functions) == (1, 2)
    stored = {s.name: s.signature for s in CodeSymbol.objects.filter(owner=alice, project="p")}
    assert set(stored) == {long_name[:200], "g"}
    assert "\0" not in stored[long_name[:200]] and stored["g"] == "def g(b='\ufffd')"
