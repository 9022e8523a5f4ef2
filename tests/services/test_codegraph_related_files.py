"""related_files: what predictive context asks of the graph, the files a file imports or
is imported by, nearest first."""

import pytest

from codegraph import services
from codegraph.selectors import related_files

pytestmark = pytest.mark.django_db

# a imports b, b imports c, d imports a; e stands alone.
TREE = {"a.py": "import b\n", "b.py": "from c import thing\n", "c.py": "thing = 1\n",
        "d.py": "import a\n", "e.py": "import os\n"}


@pytest.fixture
def tree(alice):
    services.index_sources(alice, "p", [services.SourceFile(path, text.encode())
                                        for path, text in TREE.items()], complete=True)


def test_neighbours_come_first_imports_before_importers_then_two_away(tree, alice):
    assert related_files(alice, "p", "a.py", limit=10) == ["b.py", "d.py", "c.py"]
    assert related_files(alice, "p", "c.py", limit=10) == ["b.py", "a.py", "d.py"]


def test_the_limit_keeps_the_nearest(tree, alice):
    assert related_files(alice, "p", "a.py", limit=2) == ["b.py", "d.py"]


def test_a_lone_file_an_unknown_file_another_project_or_owner_give_nothing(tree, alice, bob):
    assert related_files(alice, "p", "e.py", limit=10) == []
    assert related_files(alice, "p", "missing.py", limit=10) == []
    assert related_files(alice, "other", "a.py", limit=10) == []
    assert related_files(bob, "p", "a.py", limit=10) == []
