"""Sources no one should write still index: what PostgreSQL cannot store is made storable."""

import pytest

from codegraph import services
from codegraph.models import CodeEdge, CodeSymbol

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


def test_a_rust_use_nested_deeper_than_pythons_recursion_limit_is_indexed(alice):
    # Read by recursion, it raised RecursionError: the REST API answered "The JSON is
    # nested too deeply" and refused the whole batch; `index_code` stopped with a traceback.
    source = ("use " + "a::{" * 2000 + "B" + "}" * 2000 + ";\n").encode()
    report = services.index_sources(alice, "p", [services.SourceFile("src/lib.rs", source)],
                                    complete=True)
    assert report.parsed == 1 and report.skipped == {}
    imports = CodeEdge.objects.filter(owner=alice, project="p", kind="imports")
    assert [e.target_text[:12] for e in imports] == ["a::a::a::a::"]
