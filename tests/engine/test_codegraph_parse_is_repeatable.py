"""A file parses to the same graph every time: tree-sitter hands a capture's nodes in no
fixed order, so a file's imports came out in any order, and of two references to one
name from one definition, any one was kept."""

from codegraph import parsing

SOURCE = b'''import functools

from shop.conf import settings
from shop.urls import LocalePrefixPattern, URLResolver, path
from shop.views.i18n import set_language


def i18n_patterns(*urls):
    try:
        import gettext
    except Exception:
        return list(urls)
    try:
        prefix = LocalePrefixPattern()
    except Exception:
        prefix = None
    return [URLResolver(prefix, list(urls))] if settings.USE_I18N else list(urls)
'''


def test_a_file_parses_to_one_graph_in_source_order():
    graphs = {repr(parsing.parse("urls.py", "python", SOURCE)) for _ in range(50)}
    assert len(graphs) == 1
    graph = parsing.parse("urls.py", "python", SOURCE)
    imports = [s.line for s in graph.symbols if s.kind == parsing.IMPORT]
    assert imports == sorted(imports) == [1, 3, 4, 5, 10]
    [exception] = [r for r in graph.references if r.target == "Exception"]
    assert exception.line == 11  # the first of the two, both in i18n_patterns
