"""The code graph of a small repository in each language: exactly these nodes and edges.

Each fixture under tests/fixtures/codegraph/ has two files, one importing the other, a
class hierarchy, calls across files and calls into a library that must stay unresolved.
"""

import pytest
from codegraph_helpers import edges_of, index_fixture, nodes_of

pytestmark = pytest.mark.django_db

EXPECTED = {
    "python": (
        {("shop/checkout.py", "import", ".models", "from .models import Cart", 1),
         ("shop/checkout.py", "import", "json", "import json", 2),
         ("shop/checkout.py", "function", "checkout", "def checkout(items)", 5),
         ("shop/checkout.py", "function", "total", "def total(cart: Cart) -> int", 12),
         ("shop/models.py", "class", "Base", "", 1),
         ("shop/models.py", "function", "Base.save", "def save(self)", 2),
         ("shop/models.py", "class", "Cart", "", 6),
         ("shop/models.py", "function", "Cart.add", "def add(self, item)", 7)},
        [("calls", "shop/checkout.py:checkout", "?json.dumps"),
         ("calls", "shop/checkout.py:checkout", "shop/checkout.py:total"),
         ("calls", "shop/checkout.py:checkout", "shop/models.py:Cart"),
         ("calls", "shop/checkout.py:checkout", "shop/models.py:Cart.add"),
         ("calls", "shop/checkout.py:total", "?len"),
         ("calls", "shop/models.py:Cart.add", "?self.items.append"),
         ("calls", "shop/models.py:Cart.add", "shop/models.py:Base.save"),
         ("contains", "shop/checkout.py", ".models"),
         ("contains", "shop/checkout.py", "checkout"),
         ("contains", "shop/checkout.py", "json"),
         ("contains", "shop/checkout.py", "total"),
         ("contains", "shop/models.py", "Base"),
         ("contains", "shop/models.py", "Cart"),
         ("contains", "shop/models.py:Base", "Base.save"),
         ("contains", "shop/models.py:Cart", "Cart.add"),
         ("imports", "shop/checkout.py", "?json"),
         ("imports", "shop/checkout.py", "shop/models.py"),
         ("inherits", "shop/models.py:Cart", "shop/models.py:Base"),
         ("references", "shop/checkout.py:total", "shop/models.py:Cart")],
    ),
    "javascript": (
        {("src/cart.js", "class", "Base", "", 1),
         ("src/cart.js", "function", "Base.save", "save()", 2),
         ("src/cart.js", "class", "Cart", "", 5),
         ("src/cart.js", "function", "Cart.add", "add(item)", 6),
         ("src/index.js", "import", "./cart", "import { Cart } from './cart';", 1),
         ("src/index.js", "import", "lodash", "require('lodash')", 2),
         ("src/index.js", "function", "checkout", "function checkout(items)", 4),
         ("src/index.js", "function", "total", "total = (cart)", 10)},
        [("calls", "src/cart.js:Cart.add", "?this.items.push"),
         ("calls", "src/cart.js:Cart.add", "src/cart.js:Base.save"),
         ("calls", "src/index.js", "?require"),
         ("calls", "src/index.js:checkout", "?items.forEach"),
         ("calls", "src/index.js:checkout", "?lodash.sum"),
         ("calls", "src/index.js:checkout", "src/cart.js:Cart"),
         ("calls", "src/index.js:checkout", "src/cart.js:Cart.add"),
         ("calls", "src/index.js:checkout", "src/index.js:total"),
         ("contains", "src/cart.js", "Base"),
         ("contains", "src/cart.js", "Cart"),
         ("contains", "src/cart.js:Base", "Base.save"),
         ("contains", "src/cart.js:Cart", "Cart.add"),
         ("contains", "src/index.js", "./cart"),
         ("contains", "src/index.js", "checkout"),
         ("contains", "src/index.js", "lodash"),
         ("contains", "src/index.js", "total"),
         ("imports", "src/index.js", "?lodash"),
         ("imports", "src/index.js", "src/cart.js"),
         ("inherits", "src/cart.js:Cart", "src/cart.js:Base")],
    ),
    "typescript": (
        {("src/app.ts", "import", "./store", "import { Store } from './store';", 1),
         ("src/app.ts", "function", "main", "function main(): void", 3),
         ("src/store.ts", "class", "Named", "", 1),
         ("src/store.ts", "class", "Store", "", 5),
         ("src/store.ts", "function", "Store.find", "find(id: number): Item | undefined", 7),
         ("src/store.ts", "class", "Item", "", 12)},
        [("calls", "src/app.ts:main", "src/store.ts:Store"),
         ("calls", "src/app.ts:main", "src/store.ts:Store.find"),
         ("contains", "src/app.ts", "./store"),
         ("contains", "src/app.ts", "main"),
         ("contains", "src/store.ts", "Item"),
         ("contains", "src/store.ts", "Named"),
         ("contains", "src/store.ts", "Store"),
         ("contains", "src/store.ts:Store", "Store.find"),
         ("imports", "src/app.ts", "src/store.ts"),
         ("inherits", "src/store.ts:Store", "src/store.ts:Named"),
         ("references", "src/store.ts:Store.find", "src/store.ts:Item")],
    ),
    "go": (
        {("main.go", "import", "fmt", '"fmt"', 4),
         ("main.go", "import", "example.com/shop/store", '"example.com/shop/store"', 6),
         ("main.go", "function", "main", "func main()", 9),
         ("store/store.go", "class", "Base", "", 3),
         ("store/store.go", "class", "Store", "", 5),
         ("store/store.go", "function", "Store.Add", "func (s *Store) Add(item string)", 10),
         ("store/store.go", "function", "New", "func New() *Store", 14)},
        [("calls", "main.go:main", "?fmt.Println"),
         ("calls", "main.go:main", "store/store.go:New"),
         ("calls", "main.go:main", "store/store.go:Store.Add"),
         ("calls", "store/store.go:Store.Add", "?append"),
         ("contains", "main.go", "example.com/shop/store"),
         ("contains", "main.go", "fmt"),
         ("contains", "main.go", "main"),
         ("contains", "store/store.go", "Base"),
         ("contains", "store/store.go", "New"),
         ("contains", "store/store.go", "Store"),
         ("contains", "store/store.go:Store", "Store.Add"),
         ("imports", "main.go", "?fmt"),
         ("imports", "main.go", "store/store.go"),
         ("inherits", "store/store.go:Store", "store/store.go:Base"),
         ("references", "store/store.go:New", "store/store.go:Store"),
         ("references", "store/store.go:Store.Add", "store/store.go:Store")],
    ),
    "rust": (
        {("src/lib.rs", "import", "store", "mod store;", 1),
         ("src/lib.rs", "import", "crate::store::Cart", "use crate::store::Cart;", 3),
         ("src/lib.rs", "function", "run", "pub fn run() -> usize", 5),
         ("src/store.rs", "class", "Cart", "", 1),
         ("src/store.rs", "class", "Container", "", 5),
         ("src/store.rs", "function", "Cart.len", "fn len(&self) -> usize", 10),
         ("src/store.rs", "function", "Cart.new", "pub fn new() -> Self", 16),
         ("src/store.rs", "function", "Cart.add", "pub fn add(&mut self, item: u32)", 20)},
        [("calls", "src/lib.rs:run", "src/store.rs:Cart.add"),
         ("calls", "src/lib.rs:run", "src/store.rs:Cart.len"),
         ("calls", "src/lib.rs:run", "src/store.rs:Cart.new"),
         ("calls", "src/store.rs:Cart.add", "?self.items.push"),
         # By name only, no types: the Vec's len() inside Cart.len is taken for the one
         # len the project defines.
         ("calls", "src/store.rs:Cart.len", "src/store.rs:Cart.len"),
         # Vec::new names another type: not linked to Cart::new.
         ("calls", "src/store.rs:Cart.new", "?Vec::new"),
         ("contains", "src/lib.rs", "crate::store::Cart"),
         ("contains", "src/lib.rs", "run"),
         ("contains", "src/lib.rs", "store"),
         ("contains", "src/store.rs", "Cart"),
         ("contains", "src/store.rs", "Container"),
         ("contains", "src/store.rs:Cart", "Cart.add"),
         ("contains", "src/store.rs:Cart", "Cart.len"),
         ("contains", "src/store.rs:Cart", "Cart.new"),
         ("imports", "src/lib.rs", "src/store.rs"),  # mod store;
         ("imports", "src/lib.rs", "src/store.rs"),  # use crate::store::Cart;
         ("inherits", "src/store.rs:Cart", "src/store.rs:Container"),
         ("references", "src/store.rs", "src/store.rs:Cart"),  # impl ... for Cart
         ("references", "src/store.rs:Cart", "?Vec"),
         ("references", "src/store.rs:Cart.new", "src/store.rs:Cart")],
    ),
}


@pytest.mark.parametrize("language", sorted(EXPECTED))
def test_a_fixture_repository_gives_exactly_its_nodes_and_edges(alice, language):
    nodes, edges = EXPECTED[language]
    report = index_fixture(alice, language)
    assert nodes_of(alice, language) == nodes
    assert edges_of(alice, language) == edges
    # Python's package has an empty __init__.py besides its two modules.
    assert report.files == report.parsed == (3 if language == "python" else 2)
    assert report.edges == len(edges)
    assert report.functions == sum(1 for node in nodes if node[1] == "function")
    assert report.classes == sum(1 for node in nodes if node[1] == "class")
