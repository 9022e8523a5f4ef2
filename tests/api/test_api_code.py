"""The code graph's endpoints: what each answers, what each refuses, and that an owner
(and a key restricted to a project) reaches only its own graph."""

import pytest
from codegraph_helpers import index_fixture
from rest_framework.test import APIClient

from codegraph.models import CodeEdge, CodeFile
from memories.services.api_keys import create_api_key

pytestmark = pytest.mark.django_db


@pytest.fixture
def graphs(alice, bob):
    """alice: the Python shop as "shop", the JavaScript one as "blog"; bob: the Go
    repository, also named "shop"."""
    index_fixture(alice, "python", "shop")
    index_fixture(alice, "javascript", "blog")
    index_fixture(bob, "go", "shop")


def test_definitions_say_where_a_symbol_is_defined(graphs, alice, api_client_for):
    client = api_client_for(alice)
    found = client.get("/api/v1/code/definitions", {"project": "shop", "symbol": "Cart"}).json()
    assert [(d["path"], d["kind"], d["line"]) for d in found] == [("shop/models.py", "class", 6)]
    by_qualified = client.get("/api/v1/code/definitions",
                              {"project": "shop", "symbol": "Cart.add"}).json()
    assert [(d["qualified_name"], d["signature"]) for d in by_qualified] == [
        ("Cart.add", "def add(self, item)")]


def test_callers_are_linked_calls_and_unresolved_ones_written_with_the_name(
        graphs, alice, api_client_for):
    client = api_client_for(alice)
    add = client.get("/api/v1/code/callers", {"project": "shop", "symbol": "Cart.add"}).json()
    assert [(c["path"], c["caller"], c["call"], c["resolved"], c["definition_path"])
            for c in add] == [("shop/checkout.py", "checkout", "cart.add", True, "shop/models.py")]
    length = client.get("/api/v1/code/callers", {"project": "shop", "symbol": "len"}).json()
    assert [(c["caller"], c["resolved"], c["definition"]) for c in length] == [
        ("total", False, None)]


def test_a_files_contents_dependencies_and_dependents(graphs, alice, api_client_for):
    client = api_client_for(alice)
    contents = client.get("/api/v1/code/files", {"project": "shop",
                                                 "path": "shop/checkout.py"}).json()
    assert contents["language"] == "python" and contents["lines"] == 14
    assert [(s["kind"], s["qualified_name"], s["line"]) for s in contents["symbols"]] == [
        ("import", ".models", 1), ("import", "json", 2), ("function", "checkout", 5),
        ("function", "total", 12)]
    imports = client.get("/api/v1/code/dependencies", {"project": "shop",
                                                       "path": "./shop/checkout.py"}).json()
    assert [(i["target"], i["path"]) for i in imports] == [
        (".models.Cart", "shop/models.py"), ("json", None)]
    dependents = client.get("/api/v1/code/dependents", {"project": "shop",
                                                        "path": "shop/models.py"}).json()
    assert [(d["path"], d["line"]) for d in dependents] == [("shop/checkout.py", 1)]


def test_a_generated_files_symbols_come_in_pages_with_their_total(alice, api_client_for):
    generated = "".join(f"def f{n}():\n    pass\n" for n in range(600))
    client = api_client_for(alice)
    client.post("/api/v1/code/reindex", {"project": "gen", "files": [
        {"path": "gen.py", "content": generated}]}, format="json")
    first = client.get("/api/v1/code/files", {"project": "gen", "path": "gen.py"}).json()
    assert (len(first["symbols"]), first["symbols_total"]) == (500, 600)
    rest = client.get("/api/v1/code/files", {"project": "gen", "path": "gen.py",
                                             "offset": 500}).json()["symbols"]
    assert [s["name"] for s in rest] == [f"f{n}" for n in range(500, 600)]
    assert client.get("/api/v1/code/files", {"project": "gen", "path": "gen.py",
                                             "limit": 501}).status_code == 400


def test_reindex_takes_new_contents_and_deletions(graphs, alice, api_client_for):
    client = api_client_for(alice)
    answer = client.post("/api/v1/code/reindex", {"project": "shop", "files": [
        {"path": "shop/models.py", "content": "class Cart:\n    def empty(self):\n        pass\n"},
        {"path": "shop/checkout.py", "content": open_fixture("python/shop/checkout.py")},
    ]}, format="json")
    assert answer.status_code == 200, answer.json()
    assert (answer.json()["parsed"], answer.json()["unchanged"]) == (1, 1)
    found = client.get("/api/v1/code/definitions", {"project": "shop", "symbol": "Cart.empty"})
    assert [d["line"] for d in found.json()] == [2]
    gone = client.post("/api/v1/code/reindex", {"project": "shop", "files": [
        {"path": "shop/models.py", "deleted": True}]}, format="json")
    assert gone.json()["deleted"] == 1 and gone.json()["files"] == 2
    assert client.get("/api/v1/code/files", {"project": "shop",
                                             "path": "shop/models.py"}).status_code == 404


def open_fixture(relative: str) -> str:
    from codegraph_helpers import FIXTURES
    return (FIXTURES / relative).read_text()


@pytest.mark.parametrize("files, message", [
    ([], "files"),
    ([{"path": "/etc/passwd.py", "content": "x"}], "absolute"),
    ([{"path": "../outside.py", "content": "x"}], "leaves the project root"),
    ([{"path": "notes.txt", "content": "x"}], "not a file of a supported language"),
    ([{"path": "a.py", "content": "x", "deleted": True}], "either the file's content"),
    ([{"path": "a.py"}], "either the file's content"),
    ([{"path": "a.py", "content": "x"}, {"path": "./a.py", "content": "y"}], "named twice"),
    ([{"path": f"f{n}.py", "content": ""} for n in range(101)], "files"),
    ("not a list", "files"),
])
def test_bad_reindex_input_gets_a_400_and_changes_nothing(graphs, alice, api_client_for,
                                                          files, message):
    before = (CodeFile.objects.count(), CodeEdge.objects.count())
    answer = api_client_for(alice).post("/api/v1/code/reindex",
                                        {"project": "shop", "files": files}, format="json")
    assert answer.status_code == 400
    assert message in str(answer.json()["error"])
    assert (CodeFile.objects.count(), CodeEdge.objects.count()) == before


@pytest.mark.parametrize("query", [{"symbol": "Cart"}, {"project": "shop", "symbol": ""},
                                   {"project": "shop", "symbol": "Cart", "limit": 0}])
def test_a_query_without_a_project_or_symbol_gets_a_400(graphs, alice, api_client_for, query):
    answer = api_client_for(alice).get("/api/v1/code/definitions", query)
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid_request"


LISTINGS = [
    ("/api/v1/code/dependencies", {"path": "shop/checkout.py"}, "target"),
    ("/api/v1/code/definitions", {"symbol": "total"}, "path"),
]


@pytest.mark.parametrize("url, query, field", LISTINGS)
def test_a_listing_says_how_many_there_are_in_all_and_pages_through_them(
        graphs, alice, api_client_for, url, query, field):
    client = api_client_for(alice)
    whole = client.get(url, {"project": "shop", **query})
    total = int(whole["X-Total-Count"])
    assert total == len(whole.json()) >= 1
    pages = [client.get(url, {"project": "shop", **query, "limit": 1, "offset": offset})
             for offset in range(total + 1)]
    assert all(int(page["X-Total-Count"]) == total for page in pages)
    assert [item[field] for page in pages for item in page.json()] == [
        item[field] for item in whole.json()]
    assert pages[-1].json() == []


def test_imports_past_a_page_are_counted_not_cut_silently(graphs, alice, api_client_for):
    client = api_client_for(alice)
    one = client.get("/api/v1/code/dependencies",
                     {"project": "shop", "path": "shop/checkout.py", "limit": 1})
    assert len(one.json()) == 1 and int(one["X-Total-Count"]) == 2


@pytest.mark.parametrize("paging", [{"limit": 0}, {"limit": 501}, {"offset": -1},
                                    {"offset": "two"}, {"limit": "1.5"}])
def test_paging_a_listing_refuses_what_is_no_page(graphs, alice, api_client_for, paging):
    answer = api_client_for(alice).get("/api/v1/code/dependents",
                                       {"project": "shop", "path": "shop/models.py", **paging})
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid_request"


def test_an_unknown_file_is_a_404_in_the_apis_shape(graphs, alice, api_client_for):
    answer = api_client_for(alice).get("/api/v1/code/dependencies",
                                       {"project": "shop", "path": "nope.py"})
    assert answer.status_code == 404 and "not indexed" in answer.json()["error"]["message"]


READS = [
    ("/api/v1/code/definitions", {"symbol": "Cart"}),
    ("/api/v1/code/callers", {"symbol": "Cart.add"}),
    ("/api/v1/code/files", {"path": "shop/models.py"}),
    ("/api/v1/code/dependencies", {"path": "shop/checkout.py"}),
    ("/api/v1/code/dependents", {"path": "shop/models.py"}),
]


@pytest.mark.parametrize("url, query", READS)
def test_another_owner_never_sees_alices_graph(graphs, alice, bob, charlie, api_client_for,
                                               url, query):
    assert _found(api_client_for(alice).get(url, {"project": "shop", **query}))
    for other in (bob, charlie):  # bob has a project "shop" of his own (Go), charlie none
        assert not _found(api_client_for(other).get(url, {"project": "shop", **query}))


def _found(answer) -> bool:
    if answer.status_code == 404:
        return False
    assert answer.status_code == 200, answer.json()
    body = answer.json()
    return bool(body["symbols"] if isinstance(body, dict) else body)


def test_bob_cannot_reindex_into_alices_graph(graphs, alice, bob, api_client_for):
    api_client_for(bob).post("/api/v1/code/reindex", {"project": "shop", "files": [
        {"path": "shop/models.py", "deleted": True}]}, format="json")
    assert CodeFile.objects.filter(owner=alice, path="shop/models.py").exists()


@pytest.mark.parametrize("url, query", READS)
def test_a_key_restricted_to_a_project_reads_only_that_project(graphs, alice, url, query):
    _, raw = create_api_key(owner=alice, name="blog agent", project="blog")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    refused = client.get(url, {"project": "shop", **query})
    assert refused.status_code == 403 and "restricted to project 'blog'" in \
        refused.json()["error"]["message"]
    # Without a project it reads its own, where no file is under shop/.
    own = client.get(url, query)
    assert own.status_code == 404 or "shop/" not in own.content.decode()
    write = client.post("/api/v1/code/reindex", {"project": "shop", "files": [
        {"path": "shop/models.py", "deleted": True}]}, format="json")
    assert write.status_code == 403
    assert CodeFile.objects.filter(owner=alice, project="shop", path="shop/models.py").exists()


def test_a_restricted_key_reads_its_project_without_naming_it(graphs, alice):
    _, raw = create_api_key(owner=alice, name="blog agent", project="blog")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    found = client.get("/api/v1/code/definitions", {"symbol": "Cart"}).json()
    assert [d["path"] for d in found] == ["src/cart.js"]


@pytest.mark.parametrize("url, query", READS)
def test_without_a_key_every_endpoint_answers_401(graphs, url, query):
    assert APIClient().get(url, {"project": "shop", **query}).status_code == 401
