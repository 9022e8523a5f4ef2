"""One source file to the nodes and edges it declares, with tree-sitter (pure: no Django).

Each language has one query whose captures name what the graph keeps: definitions
(`function`, `class`, and `scope` for Rust's `impl`, which names methods without being a
node), imports, call sites and references to type-like names. The query runs in C; Python
only reads the captured nodes, so a large tree costs what it declares, not its size.

Targets are kept as written (`models.Model`, `./util`, `crate::store::Cart`): turning them
into files and definitions needs the whole project and is `engine.link`'s work.
"""

from bisect import bisect_right
from dataclasses import dataclass, field
from functools import cache

import tree_sitter_language_pack
from tree_sitter import Node, Query, QueryCursor

SIGNATURE_CHARS = 300
TARGET_CHARS = 200
QUALIFIED_CHARS = 400  # what is stored of a qualified name (models.CodeSymbol)

FUNCTION, CLASS, IMPORT = "function", "class", "import"
CONTAINS, CALLS, IMPORTS, INHERITS, REFERENCES = (
    "contains", "calls", "imports", "inherits", "references")


@dataclass(frozen=True)
class Symbol:
    kind: str  # function, class or import
    name: str
    qualified_name: str  # Class.method, Outer.inner (a "." in every language)
    signature: str
    line: int  # 1-based
    end_line: int
    parent: int | None  # index of the enclosing symbol in FileGraph.symbols; None: the file


@dataclass(frozen=True)
class Reference:
    kind: str  # calls, imports, inherits or references
    source: int | None  # index of the symbol it is made from; None: the file
    target: str  # as written in the source
    line: int


@dataclass
class FileGraph:
    path: str
    language: str
    symbols: list[Symbol] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)


_COMMON_CALLS = """
(call_expression function: [(identifier) @call (member_expression property: (property_identifier) @call) @callee])
(new_expression constructor: [(identifier) @call (member_expression property: (property_identifier) @call) @callee])
"""
_JAVASCRIPT = _COMMON_CALLS + """
(function_declaration body: (_)) @function
(generator_function_declaration) @function
(method_definition) @function
(variable_declarator name: (identifier) value: [(arrow_function) (function_expression)]) @function
(class_declaration) @class
(import_statement) @import
(export_statement source: (string)) @import
(call_expression function: (identifier) arguments: (arguments . (string))) @require
(identifier) @ref
"""
_TYPESCRIPT = _JAVASCRIPT + """
(abstract_class_declaration) @class
(interface_declaration) @class
(type_identifier) @ref
"""
QUERIES = {
    "python": """
(function_definition) @function
(class_definition) @class
(import_statement) @import
(import_from_statement) @import
(call function: [(identifier) @call (attribute attribute: (identifier) @call) @callee])
(identifier) @ref
""",
    "javascript": _JAVASCRIPT,
    "typescript": _TYPESCRIPT,
    "tsx": _TYPESCRIPT,
    "go": """
(function_declaration) @function
(method_declaration) @function
(type_spec type: [(struct_type) (interface_type)]) @class
(import_spec) @import
(call_expression function: [(identifier) @call (selector_expression field: (field_identifier) @call) @callee])
(type_identifier) @ref
""",
    "rust": """
(function_item) @function
(struct_item) @class
(enum_item) @class
(trait_item) @class
(impl_item) @scope
(use_declaration) @import
(mod_item !body) @import
(call_expression function: [(identifier) @call (field_expression field: (field_identifier) @call) @callee (scoped_identifier name: (identifier) @call) @callee])
(type_identifier) @ref
""",
}


@cache
def _query(language: str) -> tuple:
    grammar = tree_sitter_language_pack.get_language(language)
    return tree_sitter_language_pack.get_parser(language), Query(grammar, QUERIES[language])


def _text(node: Node | None) -> str:
    """A node's source as text PostgreSQL can store (no NUL, invalid UTF-8 replaced)."""
    if node is None:
        return ""
    return node.text.decode("utf-8", "replace").replace("\0", "\ufffd")


def _squeeze(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _unquote(text: str) -> str:
    return text.strip("\"'`")


def _is_type_like(name: str) -> bool:
    """CamelCase, as class and type names are written: Foo, HttpRequest (not FOO_BAR)."""
    return name[:1].isupper() and not name.isupper()


def _rust_use_paths(node: Node) -> list[str]:
    """`use a::{b::C, d as e, f::*}` as the paths it brings in: a::b::C, a::d, a::f. Walked
    with a stack: lists nested deeper than Python's recursion limit are still read."""
    paths, stack = [], [(node, "")]
    while stack:
        node, prefix = stack.pop()
        kind = node.type
        if kind == "use_as_clause":
            stack.append((node.child_by_field_name("path"), prefix))
        elif kind == "use_wildcard":
            paths.append(prefix + _text(node).removesuffix("*").rstrip(":"))
        elif kind == "scoped_use_list":
            path = node.child_by_field_name("path")
            inner = prefix + (_text(path) + "::" if path is not None else "")
            stack.append((node.child_by_field_name("list"), inner))
        elif kind == "use_list":
            stack += [(child, prefix) for child in reversed(node.named_children)]
        else:
            paths.append(prefix + _text(node))
    return paths


class _Extractor:
    """Reads one file's captures into a FileGraph."""

    def __init__(self, path: str, language: str, source: bytes):
        self.graph = FileGraph(path, language)
        self.language = language
        self.source = source
        parser, query = _query(language)
        self.tree = parser.parse(source)
        # In source order, outer first: tree-sitter hands a capture's nodes in no fixed
        # order (one file's imports came in six orders over 200 parses), and the graph of
        # a file must not change between two parses of it.
        self.captures = {
            name: sorted(nodes, key=lambda node: (node.start_byte, -node.end_byte))
            for name, nodes in QueryCursor(query).captures(self.tree.root_node).items()}
        # Definitions and Rust impls, outermost first: (start, end, symbol index or None,
        # qualified prefix, index of the enclosing entry).
        self.scopes: list[tuple[int, int, int | None, str, int | None]] = []
        # Per scope, the symbol it is or is in (a Rust impl is none); and the classes by
        # qualified name (the first of a name). Both were searched for: a Go method's
        # receiver type among every symbol, a method's owner up through every impl around
        # it, so a file of many methods cost the square of its size.
        self.symbol_in: list[int | None] = []
        self.classes: dict[str, int] = {}

    # -- definitions ----------------------------------------------------------------
    def _definition_name(self, node: Node) -> tuple[Node | None, str]:
        """(name node, prefix of the qualified name) of a definition; prefix for methods
        declared outside their type (Go receivers)."""
        if node.type == "variable_declarator":
            return node.child_by_field_name("name"), ""
        if node.type == "method_declaration":  # Go: func (s *Store) Save()
            receiver = node.child_by_field_name("receiver")
            types = [n for n in _descendants(receiver) if n.type == "type_identifier"]
            return node.child_by_field_name("name"), (_text(types[0]) + ".") if types else ""
        return node.child_by_field_name("name"), ""

    def _signature(self, node: Node) -> str:
        """The definition's text up to its body: `def f(a, b) -> int`, `func (s *S) M() error`."""
        body = node.child_by_field_name("body")
        if node.type == "variable_declarator":
            value = node.child_by_field_name("value")
            body = value.child_by_field_name("body") if value is not None else None
        end = body.start_byte if body is not None else node.end_byte
        text = self.source[node.start_byte:end].decode("utf-8", "replace")
        text = text.replace("\0", "\ufffd")
        return _squeeze(text.rstrip().removesuffix(":").removesuffix("=>").rstrip(), SIGNATURE_CHARS)

    def _enclosing(self, position: int) -> int | None:
        """Index in self.scopes of the innermost scope around a byte position: the last
        scope starting before it, or that scope's first ancestor still open there. An
        ancestor ends no sooner than its descendants, so the ancestors closed by then are
        passed in jumps (`self.jumps`), not one by one: a nesting thousands deep, closed
        before thousands of references, cost their product in steps."""
        at = bisect_right(self.starts, position) - 1
        if at < 0:
            return None
        if position < self.scopes[at][1]:
            return at
        for jump in reversed(self.jumps):
            up = jump[at]
            if up is not None and self.scopes[up][1] <= position:
                at = up
        return self.scopes[at][4]

    def _symbol_at(self, position: int) -> int | None:
        """The innermost symbol (not a Rust impl) around a byte position."""
        return self._symbol_of_scope(self._enclosing(position))

    def read_definitions(self) -> None:
        found = [(node, FUNCTION) for node in self.captures.get("function", [])]
        found += [(node, CLASS) for node in self.captures.get("class", [])]
        found += [(node, None) for node in self.captures.get("scope", [])]
        found.sort(key=lambda item: (item[0].start_byte, -item[0].end_byte))
        self.starts: list[int] = []
        stack: list[int] = []  # indexes into self.scopes, open around the current node
        for node, kind in found:
            while stack and self.scopes[stack[-1]][1] <= node.start_byte:
                stack.pop()
            parent = stack[-1] if stack else None
            outer = self.scopes[parent][3] if parent is not None else ""
            if kind is None:  # impl Trait for Type: names its methods Type.method
                impl_type = node.child_by_field_name("type")
                while impl_type is not None and impl_type.type == "generic_type":
                    impl_type = impl_type.child_by_field_name("type")
                prefix = _text(impl_type) + "."
                self._rust_impl_inherits(node, impl_type)
                self.scopes.append((node.start_byte, node.end_byte, None, prefix, parent))
                self.symbol_in.append(self._symbol_of_scope(parent))
            else:
                name_node, own_prefix = self._definition_name(node)
                name = _text(name_node)
                qualified = (own_prefix or outer) + name
                owner = self._symbol_of_scope(parent)
                # A Go method, or a method in a Rust impl, belongs to its type when the
                # file declares the type.
                if own_prefix:
                    owner = self._class_named(own_prefix[:-1], owner)
                elif parent is not None and self.scopes[parent][2] is None:
                    owner = self._class_named(outer[:-1], owner)
                self.graph.symbols.append(Symbol(
                    kind, name, qualified, self._signature(node) if kind == FUNCTION else "",
                    node.start_point[0] + 1, node.end_point[0] + 1, owner))
                index = len(self.graph.symbols) - 1
                # Only what is stored of the name: nested thousands deep, each name held
                # every name around it.
                self.scopes.append((node.start_byte, node.end_byte, index,
                                    qualified[:QUALIFIED_CHARS] + ".", parent))
                self.symbol_in.append(index)
                if kind == CLASS:
                    self.classes.setdefault(qualified, index)
                    self._class_bases(node, index)
            self.starts.append(node.start_byte)
            stack.append(len(self.scopes) - 1)
        # jumps[k][i]: the 2**k-th enclosing scope of scope i (None past the outermost).
        self.jumps = [[scope[4] for scope in self.scopes]]
        while any(up is not None for up in self.jumps[-1]):
            last = self.jumps[-1]
            self.jumps.append([None if up is None else last[up] for up in last])

    def _symbol_of_scope(self, at: int | None) -> int | None:
        """The symbol of a scope, or of the nearest enclosing one that is a symbol."""
        return self.symbol_in[at] if at is not None else None

    def _class_named(self, name: str, fallback: int | None) -> int | None:
        """The first class of this qualified name declared so far."""
        return self.classes.get(name, fallback)

    def _inherit(self, source: int | None, target: Node) -> None:
        if source is not None:
            self.inherited.update(n.start_byte for n in _descendants(target))
            self.graph.references.append(Reference(
                INHERITS, source, _squeeze(_text(target), TARGET_CHARS), target.start_point[0] + 1))

    def _class_bases(self, node: Node, index: int) -> None:
        if self.language == "python":
            bases = node.child_by_field_name("superclasses")
            for base in bases.named_children if bases is not None else []:
                if base.type in ("identifier", "attribute"):
                    self._inherit(index, base)
        elif self.language == "go":  # embedded fields and embedded interfaces
            for child in _descendants(node.child_by_field_name("type")):
                if child.type == "field_declaration" and child.child_by_field_name("name") is None:
                    self._inherit(index, child.child_by_field_name("type"))
                elif child.type == "type_elem":
                    for embedded in child.named_children:
                        self._inherit(index, embedded)
        elif self.language == "rust":  # trait A: B + C
            bounds = node.child_by_field_name("bounds")
            for bound in bounds.named_children if bounds is not None else []:
                self._inherit(index, bound)
        else:  # JS / TS: class A extends B implements C; interface I extends J
            for child in node.named_children:
                if child.type not in ("class_heritage", "extends_type_clause"):
                    continue
                for part in child.named_children:
                    clauses = part.named_children if part.type in (
                        "extends_clause", "implements_clause") else [part]
                    for base in clauses:
                        if base.type != "type_arguments":
                            self._inherit(index, base)
                if child.type == "extends_type_clause":
                    break

    def _rust_impl_inherits(self, node: Node, impl_type: Node | None) -> None:
        trait = node.child_by_field_name("trait")
        if trait is not None and impl_type is not None:
            # Only when the file declares the type: an edge needs a node to start from.
            self._pending_impls.append((_text(impl_type), trait))

    # -- imports --------------------------------------------------------------------
    def _import(self, node: Node, module: str, targets: list[str]) -> None:
        line = node.start_point[0] + 1
        self.graph.symbols.append(Symbol(
            IMPORT, _squeeze(module, TARGET_CHARS), _squeeze(module, TARGET_CHARS),
            _squeeze(_text(node), SIGNATURE_CHARS), line, node.end_point[0] + 1,
            self._symbol_at(node.start_byte)))
        for target in targets:
            self.graph.references.append(Reference(IMPORTS, None, _squeeze(target, TARGET_CHARS), line))

    def read_imports(self) -> None:
        for node in self.captures.get("import", []):
            getattr(self, f"_imports_{self.language.replace('tsx', 'typescript')}",
                    self._imports_javascript)(node)
        for node in self.captures.get("require", []):
            if _text(node.child_by_field_name("function")) == "require":
                source = _unquote(_text(node.child_by_field_name("arguments").named_children[0]))
                self._import(node, source, [source])

    def _imports_python(self, node: Node) -> None:
        if node.type == "import_statement":
            modules = [_text(n.child_by_field_name("name") if n.type == "aliased_import" else n)
                       for n in node.children_by_field_name("name")]
            self._import(node, ", ".join(modules), modules)
            return
        module = _text(node.child_by_field_name("module_name"))
        names = [_text(n.child_by_field_name("name") if n.type == "aliased_import" else n)
                 for n in node.children_by_field_name("name")]
        joiner = "" if module.endswith(".") else "."
        # `from a import b` may import module a.b or a name of a: engine.link tries both.
        self._import(node, module, [module + joiner + name for name in names] or [module])

    def _imports_javascript(self, node: Node) -> None:
        source = _unquote(_text(node.child_by_field_name("source")))
        self._import(node, source, [source])

    def _imports_go(self, node: Node) -> None:
        path = _unquote(_text(node.child_by_field_name("path")))
        self._import(node, path, [path])

    def _imports_rust(self, node: Node) -> None:
        if node.type == "mod_item":  # `mod store;`: the file of a child module
            name = _text(node.child_by_field_name("name"))
            self._import(node, name, ["self::" + name])
            return
        paths = _rust_use_paths(node.child_by_field_name("argument"))
        self._import(node, _text(node.child_by_field_name("argument")), paths)

    # -- calls and references ---------------------------------------------------------
    def read_uses(self) -> None:
        callees = set()
        # What is called, `obj.method` or a bare `f`: a called member ends where its name
        # ends. Read from the captures, since a node's parent is found by walking down
        # from the root, which made files nested thousands deep quadratic.
        members = {node.end_byte: node for node in self.captures.get("callee", [])}
        for name_node in self.captures.get("call", []):
            callees.add(name_node.start_byte)
            function = members.get(name_node.end_byte, name_node)
            self.graph.references.append(Reference(
                CALLS, self._symbol_at(name_node.start_byte),
                _squeeze(_text(function), TARGET_CHARS), name_node.start_point[0] + 1))
        definitions = {node.child_by_field_name("name").start_byte
                       for kind in ("function", "class") for node in self.captures.get(kind, [])
                       if node.child_by_field_name("name") is not None}
        imports = sorted((n.start_byte, n.end_byte) for n in self.captures.get("import", []))
        import_starts = [start for start, _ in imports]
        seen = set()
        for node in self.captures.get("ref", []):
            start = node.start_byte
            if start in callees or start in definitions or start in self.inherited:
                continue
            name = _text(node)
            if not _is_type_like(name) or name == "Self":  # Self: the impl's own type
                continue
            at = bisect_right(import_starts, start) - 1
            if at >= 0 and imports[at][1] > start:
                continue
            source = self._symbol_at(start)
            if (source, name) not in seen:  # once per definition and name
                seen.add((source, name))
                self.graph.references.append(Reference(REFERENCES, source, name,
                                                       node.start_point[0] + 1))

    def run(self) -> FileGraph:
        self._pending_impls = []
        self.inherited: set[int] = set()
        self.read_definitions()
        for type_name, trait in self._pending_impls:
            self._inherit(self._class_named(type_name, None), trait)
        self.read_imports()
        self.read_uses()
        self.graph.references.sort(key=lambda r: (r.line, r.kind, r.target))
        return self.graph


def _descendants(node: Node | None):
    if node is None:
        return
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.named_children))


def parse(path: str, language: str, source: bytes) -> FileGraph:
    """The symbols and references `source` declares; `language` is one of QUERIES."""
    return _Extractor(path, language, source).run()
