"""The code graph's MCP tools, through the SDK's client against the real server: the
same answers as /api/v1/code/, for the key's owner and within its project."""

import pytest
from codegraph_helpers import index_fixture
from mcp_helpers import call, with_client
from rest_framework.exceptions import ValidationError

from codegraph import services
from codegraph.models import CodeFile
from memories.mcp import operations
from memories.services.api_keys import create_api_key

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_agent_finds_definitions_callers_files_and_imports(server_url, alice, key_for):
    index_fixture(alice, "python", "shop")

    async def scenario(client):
        return [await call(client, "code_definitions", symbol="Cart", project="shop"),
                await call(client, "code_callers", symbol="Cart.add", project="shop"),
                await call(client, "code_file", path="shop/checkout.py", project="shop"),
                await call(client, "code_dependencies", path="shop/checkout.py", project="shop"),
                await call(client, "code_dependents", path="shop/models.py", project="shop"),
                await call(client, "code_file", path="../etc/passwd", project="shop"),
                await call(client, "code_definitions", symbol="Cart")]

    answers = with_client(server_url, key_for(alice), scenario)
    assert answers[0] == (False, "1. shop/models.py:6 class Cart")
    assert answers[1] == (False, ("1. shop/checkout.py:8 in checkout: cart.add() → "
                                  "shop/models.py:Cart.add"))
    assert answers[2][1].splitlines()[1:] == [
        "  1: import .models", "  2: import json",
        "  5: function checkout — def checkout(items)",
        "  12: function total — def total(cart: Cart) -> int"]
    assert answers[3][1].splitlines()[1:] == [
        "1: .models.Cart → shop/models.py", "2: json → (outside the project)"]
    assert answers[4] == (False, "Imported by:\nshop/checkout.py:1 (.models.Cart)")
    assert answers[5][0] and "leaves the project root" in answers[5][1]
    assert answers[6][0] and "name the project" in answers[6][1]


def test_reindex_over_mcp_updates_the_graph(server_url, alice, key_for):
    index_fixture(alice, "python", "shop")

    async def scenario(client):
        return [await call(client, "code_reindex", project="shop", files=[
                    {"path": "shop/models.py", "content": "def fresh():\n    pass\n"}]),
                await call(client, "code_definitions", symbol="fresh", project="shop")]

    reindexed, found = with_client(server_url, key_for(alice), scenario)
    assert reindexed == (False, ("Re-indexed: 1 parsed, 0 unchanged, 0 removed. Project "
                                 "'shop' now has 3 files, 3 functions, 0 classes, 13 edges."))
    assert found == (False, "1. shop/models.py:1 function fresh — def fresh()")


def test_other_owners_and_other_projects_keys_reach_nothing(server_url, alice, bob, key_for):
    index_fixture(alice, "python", "shop")
    _, blog_key = create_api_key(owner=alice, name="blog agent", project="blog")

    async def scenario(client):
        return [await call(client, "code_definitions", symbol="Cart", project="shop"),
                await call(client, "code_file", path="shop/models.py", project="shop"),
                await call(client, "code_reindex", project="shop", files=[
                    {"path": "shop/models.py", "deleted": True}])]

    bobs = with_client(server_url, key_for(bob), scenario)
    assert bobs[0] == (False, "No function or class 'Cart' in project 'shop'.")
    assert bobs[1][0] and "not indexed" in bobs[1][1]
    blogs = with_client(server_url, blog_key, scenario)
    assert all(failed and "restricted to project 'blog'" in text for failed, text in blogs)
    assert CodeFile.objects.filter(owner=alice, path="shop/models.py").exists()


def test_a_listing_longer_than_500_says_how_many_more_there_are(alice):
    generated = "".join(f"def f{n}():\n    pass\n" for n in range(600))
    hub = [services.SourceFile("hub.py", b"def h():\n    pass\n")]
    users = [services.SourceFile(f"u{n}.py", b"import hub\n") for n in range(502)]
    services.index_sources(alice, "p", [services.SourceFile("gen.py", generated.encode()),
                                        *hub, *users], complete=True)
    listing = operations.code_file(alice, {"project": "p", "path": "gen.py"}).splitlines()
    assert len(listing) == 1 + 500 + 1
    assert listing[-1] == "  … and 100 more (offset 500 for the next)"
    rest = operations.code_file(alice, {"project": "p", "path": "gen.py", "offset": 500})
    assert [line.split(" — ")[-1] for line in rest.splitlines()[1:]] == [
        f"def f{n}()" for n in range(500, 600)]
    for offset in (-1, "ten", True):
        with pytest.raises(ValidationError) as refused:
            operations.code_file(alice, {"project": "p", "path": "gen.py", "offset": offset})
        assert "offset" in refused.value.detail
    importers = operations.code_dependents(alice, {"project": "p", "path": "hub.py"})
    assert importers.splitlines()[-1] == "… and 2 more"
