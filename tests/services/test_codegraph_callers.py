"""callers: linked calls, and unresolved ones written with the name, in the languages
the symbol is defined in."""

import pytest

from codegraph import services
from codegraph.selectors import callers

pytestmark = pytest.mark.django_db

FILES = {
    "store.py": "class Store:\n    def save(self):\n        pass\n\n\n"
                "def run(store, other):\n    Store().save()\n    other.thing.save()\n"
                "    other.push(2)\n",
    "ui.js": "function click(form) {\n  form.save();\n  form.items.push(1);\n}\n",
    "app.ts": "function go(x: any) {\n  x.flush();\n}\n",
    "lib.js": "export function flush() {}\n",
    "other.ts": "function go2(y: any) {\n  y.flush();\n}\n",
}


@pytest.fixture
def project(alice):
    services.index_sources(alice, "p", [services.SourceFile(path, text.encode())
                                        for path, text in FILES.items()], complete=True)


def _found(owner, symbol):
    return sorted((e.file.path, e.line, e.target_id is not None)
                  for e in callers(owner, "p", symbol))


def test_a_python_method_has_python_callers_only(project, alice):
    # Both Python calls link: save is the project's one save. The JS form.save() is
    # another language's and is left out.
    assert _found(alice, "Store.save") == [("store.py", 7, True), ("store.py", 8, True)]


def test_javascript_and_typescript_call_each_other(project, alice):
    assert _found(alice, "flush") == [("app.ts", 2, True), ("other.ts", 2, True)]


def test_a_name_the_project_never_defines_matches_calls_in_every_language(project, alice):
    assert _found(alice, "push") == [("store.py", 9, False), ("ui.js", 3, False)]
