"""The parsed-module cache: lowered syntax trees (``syntax.py``) stored as signed plain data, so
that a later analysis of the same text neither parses it nor imports libcst.

An entry is keyed by the text's SHA-256, whether it is our own stub source, the parse limits
(``--max-tokens``/``--max-expr-depth``: a tree is only reused under the limits it was checked
against) and the build (``FORMAT``, the libcst version, the modules that shape the tree and
the Python that wrote it).
It lives in the analysed project's cache folder, ``.staticflops_cache/parsed/`` (library
files too: the key is their content, wherever they were read from).

A pull request controls that folder, so an entry is trusted only by its signature, under
the same rules as the results cache (``project/cache.py``):

* HMAC-SHA256 with the per-user secret kept outside the project (``STATICFLOPS_CACHE_DIR``,
  default ``~/.cache/staticflops``, file ``results-key``): a committed or planted entry cannot
  carry a valid one.  No secret, no parsed-module cache: slower, never wrong.
* The signature is checked before anything else is done with the bytes.  Only then are they
  read with ``marshal`` (~3x faster than JSON for these lists of numbers and strings), which
  is safe here because of that check alone: ``marshal`` does not defend against crafted input,
  but no bytes reach it that this user's staticflops did not write (a planted or edited entry
  fails the HMAC, and the key binds an entry to its text).  What ``marshal`` gives is plain
  data (lists, numbers, strings; a code object it could make would never be run, and none is
  ever written), turned into nodes by ``decode``, which builds only ``syntax`` classes by name
  and plain values (a block of statements on first read: a library file's unused function
  bodies are never turned into nodes).  Nothing is unpickled.
* The folder is reached from the project root one component at a time with ``O_NOFOLLOW``
  (a symbolic link anywhere on the way: no cache), entries are read non-blocking, regular and
  bounded, and written to a fresh ``O_EXCL`` file renamed into place.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import threading
from collections import deque
from functools import lru_cache
from itertools import chain, compress, islice, repeat
from operator import attrgetter
from pathlib import Path

from staticflops.cachefolder import (
    SUPPORTED, LinkInTheWay, open_folder, read_entry, sign, signed_payload, user_secret, write_entry,
)
from staticflops.frontend.syntax import FROM_TEXT, CSTNode, node_class

FORMAT = 3  # 3: segments of columns (``encode``); 2: stubbed signature annotations, blocks of every compound statement
FOLDER = (".staticflops_cache", "parsed")
SUFFIX = ".tree"  # an entry's file: <key>.tree
_MARSHAL_VERSION = 4  # marshal's format, which the key also holds with the Python that wrote it
MAX_ENTRY_BYTES = 64 * 1024 * 1024
# The modules whose code decides the lowered tree: a change to any of them is a new key.
_SHAPING_MODULES = ("source.py", "lowering.py", "parsed_cache.py", "syntax.py", "positions.py", "identifiers.py",
                    "parse_guard.py", "ast_lowering.py")

# The project root whose cache folder holds entries (set per analysis by ``load_source``):
# None, no cache (a git revision, text given to the API, no secret).  Process-wide, not a
# context variable: an analysis parses in more than one thread (api._with_deep_stack).  Two
# analyses of different projects in threads of one process may file a tree in the other's
# folder; entries are keyed by content and signed, so that costs nothing but the place.
_project_root: Path | None = None


def use_project(root: Path | None) -> None:
    global _project_root
    _project_root = root if SUPPORTED and root is not None and user_secret() is not None else None


def entry_key(text: str, internal: bool, parse_limits: tuple) -> str:
    digest = hashlib.sha256(_build().encode())
    digest.update(f"\0{int(internal)}\0{tuple(parse_limits)!r}\0".encode())
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def load(key: str, text: str | None = None, name: str = ""):
    """(module, positions) of a valid entry, or None.  ``text``: what the entry was parsed
    from, for the blocks and annotations it holds as stubs (lowered from it when first read);
    ``name``: its file's, for messages."""
    if _project_root is None:
        return None
    root = _project_root
    payload = signed_payload(_DOMAIN, key, _read(root, key + SUFFIX))
    if payload is None:
        return None

    def grown(module, positions):  # a stub lowered in this run: the entry is stored again with it
        with _lock:
            _pending[key] = (root, module, positions, threading.get_ident(), False)

    try:
        data = marshal.loads(payload)  # safe only because the signature was checked (module docstring)
        module, positions = decode(data, text, grown, name)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError, EOFError):
        return None  # signed by us but not readable by this code: parse again
    if data.get("whole") is True:  # parsed ahead (prefetch.py), every block lowered: stored again
        with _lock:  # when the analysis ends with only the blocks it read, which a later run decodes
            _pending[key] = (root, module, positions, threading.get_ident(), True)
    return module, positions


def store(key: str, module, positions: dict) -> None:
    if _project_root is not None:
        _write(_project_root, key, module, positions)


def store_later(key: str, module, positions: dict) -> None:
    """Store the tree when the analysis ends (``store_pending``), with the blocks it
    lowered by then: the rest are stored as stubs, so a cold run neither lowers nor encodes
    the bodies of library functions it never calls."""
    if _project_root is not None:
        with _lock:
            _pending[key] = (_project_root, module, positions, threading.get_ident(), False)


def kept(key: str):
    """(module, positions) of the tree of this text that this thread (an analysis) parsed, or
    grew from an entry, and keeps for ``store_pending``; else None.  A text read twice by one
    analysis (a package's ``__init__.py`` run, then read again for its ``TYPE_CHECKING``
    imports) is then one tree, and its entry holds the blocks either read lowered (two trees:
    the last one kept would have been stored, and the next run would lower the other's blocks
    from the text again).  Not across threads: a lazy node is filled by one reader at a time."""
    with _lock:
        found = _pending.get(key)
    return found[1:3] if found is not None and found[3] == threading.get_ident() else None


def store_pending() -> None:
    """Write the trees ``store_later`` kept and the loaded ones a stub of was lowered in since
    (called once the last running analysis has ended: ``api.py``)."""
    with _lock:
        work = list(_pending.items())
        _pending.clear()
    for key, (root, module, positions, _, trim) in work:
        _write(root, key, module, positions, trim)


# Trees waiting for store_pending: key -> (project root, module, positions, thread that made it).
_pending: dict = {}
_lock = threading.Lock()


def _write(root: Path, key: str, module, positions: dict, trim: bool = False) -> None:
    data = entry_bytes(key, module, positions, trim=trim)
    if data is not None:
        _write_bytes(root, key, data)


def entry_bytes(key: str, module, positions: dict, whole: bool = False, trim: bool = False) -> bytes | None:
    """The signed entry of a tree (None: it cannot be stored).  ``whole``: every block and
    annotation still lowered on first read is lowered now and stored, not left a stub (the
    prefetching process's entries, ``prefetch.py``: it cannot know which the analysis reads);
    ``trim``: a tree decoded from such an entry, whose blocks never read are stored as stubs."""
    try:
        data = encode(module, positions, whole, trim)
        if whole:
            data["whole"] = True
        payload = marshal.dumps(data, _MARSHAL_VERSION)
    except (ValueError, TypeError, RecursionError):  # ValueError: nested too deeply for marshal
        return None
    return sign(_DOMAIN, key, payload) + b"\n" + payload if len(payload) <= MAX_ENTRY_BYTES else None


def store_bytes(key: str, data: bytes) -> None:
    """File ``entry_bytes``' entry in the current project's folder."""
    if _project_root is not None:
        _write_bytes(_project_root, key, data)


def _write_bytes(root: Path, key: str, data: bytes) -> None:
    folder = _open_folder(root, create=True)
    if folder is not None:
        write_entry(folder, key + SUFFIX, data, "parsed-module cache")


def has_entry(key: str) -> bool:
    """Whether an entry (valid or not) is filed under ``key`` in the current project's folder."""
    if _project_root is None:
        return False
    folder = _open_folder(_project_root, create=False)
    if folder is None:
        return False
    try:
        os.stat(key + SUFFIX, dir_fd=folder, follow_symlinks=False)
        return True
    except OSError:
        return False
    finally:
        os.close(folder)


def active() -> bool:
    """Whether trees are stored for the analysis under way (``use_project`` found a place)."""
    return _project_root is not None


# Where this process announces each library text it parses itself (``claim``): the write end
# of the pipe to the process parsing ahead (``prefetch.py``), which then leaves that text alone.
_claims: int | None = None


def send_claims_to(descriptor: int | None) -> None:
    global _claims
    _claims = descriptor


def claim(key: str) -> None:
    descriptor = _claims
    if descriptor is not None:
        try:  # one line, under PIPE_BUF: written whole or not at all; a full pipe only costs a duplicate parse
            os.write(descriptor, key.encode() + b"\n")
        except OSError:
            pass


# --- the plain-data form.  A tree is cut into *segments*: the module's, and one per lazy node
# (``_LAZY``: a block of statements) holding that node's fields and every node inside down to
# the next lazy node.  A segment is a few flat lists, so that decoding it makes and fills all
# its nodes in C loops (``map``) rather than with a Python call and a list per node:
#   [kinds, lines, columns, values, scalars, tuple_refs, tuple_sizes, tuple_items, lazy, stubs, owner]
# * the segment's nodes are numbered 0, 1, ... (children before their parent); node i is of
#   class ``kinds[i]`` (an index in the entry's class table), at ``lines[i]``, ``columns[i]``
#   (line 0: no position);
# * ``values``: the nodes' field values one after the other, each node's in its class's field
#   order (none for a lazy node or a stub), each a *reference*: a string or None is itself, an
#   integer names an object: >= 0 the segment's node, < 0 True (-1), False (-2), or a number,
#   bytes or tuple of the segment;
# * ``scalars``: [reference, value] for each number or bytes value;
# * ``tuple_refs[j]`` names the tuple of ``tuple_sizes[j]`` items, the next ones of
#   ``tuple_items`` (references; no tuple holds a tuple: libcst's fields hold sequences of nodes);
# * ``lazy``: [i, segment] for each lazy node i, whose fields are decoded on first read;
#   ``stubs``: the nodes i that are a library file's block or annotation never lowered, lowered
#   from the text when read (the node's position says where it starts);
# * ``owner``: the references of the lazy node's fields (the module's segment: of the module).

def encode(module, positions: dict, whole: bool = False, trim: bool = False) -> dict:
    """``whole``: lower each block and annotation not read yet (else stored as a stub);
    ``trim``: an indented block decoded from an entry and never read is stored as a stub too
    (else decoded now and stored)."""
    block = node_class("IndentedBlock")
    classes: dict = {}  # class -> (its index in the table, whether its nodes are lazy)

    def segment(owner_fields) -> list:
        kinds, lines, columns, values, scalars = [], [], [], [], []
        tuple_refs, tuple_sizes, tuple_items, lazy, stubs = [], [], [], [], []

        def ref(item):
            kind = type(item)
            if kind is str or item is None:  # most leaves: names' and strings' text
                return item
            if kind is tuple:
                if tuple in map(type, item):
                    raise TypeError("cannot store a tuple inside a tuple")
                items = [ref(inner) for inner in item]
                reference = _FIRST_FREE - 1 - len(tuple_refs) - len(scalars)
                tuple_refs.append(reference)
                tuple_sizes.append(len(items))
                tuple_items.extend(items)
                return reference
            if isinstance(item, CSTNode):
                fields = item.__dict__
                found = classes.get(kind)
                if found is None:
                    found = classes[kind] = (len(classes), kind.__name__ in _LAZY)
                pending = fields.get("_pending")
                if pending is not None:
                    if pending[1] is FROM_TEXT and not whole or trim and kind is block and item in positions:
                        line, column = positions[item]
                        stubs.append(len(kinds))
                        kinds.append(found[0])
                        lines.append(line)
                        columns.append(column)
                        return len(kinds) - 1
                    for name in kind._fields[:1]:
                        getattr(item, name)  # decoded from an entry on first read: read it now
                if found[1]:
                    lazy.append([len(kinds), segment([fields[name] for name in kind._fields])])
                else:
                    values.extend([ref(fields[name]) for name in kind._fields])
                line, column = positions.get(item, _NOWHERE)
                kinds.append(found[0])  # numbered after the nodes inside it
                lines.append(line)
                columns.append(column)
                return len(kinds) - 1
            if kind is bool:
                return -1 if item else -2
            if kind is int or kind is float or kind is bytes:
                reference = _FIRST_FREE - 1 - len(tuple_refs) - len(scalars)
                scalars.append([reference, item])
                return reference
            raise TypeError(f"cannot store {kind.__name__}")

        owner = [ref(item) for item in owner_fields]
        return [kinds, lines, columns, values, scalars, tuple_refs, tuple_sizes, tuple_items, lazy, stubs, owner]

    tree = segment([module])
    return {"format": FORMAT, "classes": [[kind.__name__, list(kind._fields)] for kind in classes], "tree": tree}


_NOWHERE = (0, 0)
_FIRST_FREE = -2  # -1 and -2 are True and False
_CONSTANTS = {-1: True, -2: False}
_SCALARS = (int, float, bytes)
_END = object()
_new = object.__new__
_fields_of = attrgetter("_fields")


def decode(data: dict, text: str | None = None, grown=None, name: str = ""):
    """(module, positions); ``text``: the entry's source, which its stubs are lowered from
    (without it, a stub read raises ``ValueError``); ``grown(module, positions)`` is called
    after each stub lowered; ``name``: the file's, for messages."""
    if data["format"] != FORMAT:
        raise ValueError("another format")
    table = []
    for class_name, names in data["classes"]:
        cls = node_class(class_name)
        if not all(type(field) is str and field.isidentifier() and not hasattr(CSTNode, field) for field in names):
            raise ValueError("bad field name")  # (set with setattr: never a method, property or dunder of CSTNode's)
        cls._fields = tuple(names)
        table.append(cls)
    positions: dict = {}
    block, annotation = node_class("IndentedBlock"), node_class("Annotation")

    def build(segment) -> list:
        """Make and fill the segment's nodes; the values of its owner's fields."""
        kinds, lines, columns, values, scalars, tuple_refs, tuple_sizes, tuple_items, lazy, stubs, owner = segment
        classes = list(map(table.__getitem__, kinds))
        nodes = list(map(_new, classes))
        refs = dict(enumerate(nodes))
        refs.update(_CONSTANTS)
        for reference, value in scalars:
            if type(reference) is not int or reference > _FIRST_FREE or type(value) not in _SCALARS:
                raise ValueError("bad scalar")
            refs[reference] = value
        resolve = refs.get  # resolve(x, x): a reference's object; a string or None is itself
        if tuple_refs:  # each tuple takes the next tuple_sizes[j] items of one iterator
            items = map(resolve, tuple_items, tuple_items)
            refs.update(zip(tuple_refs, map(tuple, map(islice, repeat(items), tuple_sizes))))
            if next(items, _END) is not _END:
                raise ValueError("tuple items left over")
        names = list(map(_fields_of, classes))
        for index, _ in lazy:
            names[index] = ()
        for index in stubs:
            names[index] = ()
        # node i gets its class's fields, set from the next values in turn (setattr keeps them in
        # the object's own slots, shared keys, where a dict per node cost more time, and more
        # collector work, to build)
        flat = map(resolve, values, values)
        deque(map(setattr, chain.from_iterable(map(repeat, nodes, map(len, names))), chain.from_iterable(names), flat), 0)
        if next(flat, _END) is not _END:
            raise ValueError("values left over")
        positions.update(zip(compress(nodes, lines), zip(compress(lines, lines), compress(columns, lines))))
        for index, inner in lazy:  # its fields (and the nodes inside) are made on first read (``CSTNode.__getattr__``)
            nodes[index].__dict__["_pending"] = (fill, inner)
        for index in stubs:
            stub = nodes[index]
            if type(stub) not in (block, annotation) or stub not in positions:
                raise ValueError("bad stub")
            stub.__dict__["_pending"] = (lower_stub, FROM_TEXT)
        return list(map(resolve, owner, owner))

    def fill(node, segment):
        node.__dict__.update(zip(type(node)._fields, build(segment)))

    def lower_stub(node, _):
        if text is None:
            raise ValueError("a stub without its text")
        from staticflops.frontend.ast_lowering import FIELDS, Unsupported, block_body, signature_annotation
        from staticflops.frontend.libcst_route import fields_from_libcst

        kind = type(node).__name__
        lowered = block_body if kind == "IndentedBlock" else signature_annotation
        try:
            values = lowered(text, positions[node], positions)
        except Unsupported:  # a `match` in a body (or, were the key to collide, not a stub of this text)
            values = fields_from_libcst(text, name, kind, positions[node], positions)
        node.__dict__.update(zip(FIELDS[kind], values))
        if grown is not None:
            grown(module, positions)

    tree = data["tree"]
    if type(tree) is not list:
        raise ValueError("not a tree")
    module = build(tree)[0]
    if not isinstance(module, CSTNode):
        raise ValueError("not a tree")
    return module, positions


# The nodes decoded on first read, with all they hold down to the next such node: a block of
# statements (a function's or class's body, a branch), the unit the interpreter runs or skips.
# Lazy nodes all through cost one ``__getattr__`` per node read (~4 us; a warm Llama run reads
# ~66,000): decoding a block's statements at once costs ~1 us per node.
_LAZY = frozenset({"IndentedBlock", "SimpleStatementSuite"})


# --- the folder and the signature (the results cache's rules, see the module docstring)

_DOMAIN = b"parsed\n"  # an entry of the results cache never passes for a tree, nor the reverse


@lru_cache(maxsize=1)
def _build() -> str:
    """FORMAT, libcst's version (read from its files, not imported), the shaping modules and
    the Python (``marshal``'s data may differ between versions)."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256(f"{FORMAT}\0{_MARSHAL_VERSION}\0{sys.implementation.cache_tag}".encode())
    for name in _SHAPING_MODULES:
        digest.update(b"\0" + name.encode() + b"\0" + (here / name).read_bytes())
    for entry in sys.path:  # the libcst an import would find, found without importing it
        version = Path(entry or ".") / "libcst" / "_version.py"
        if version.is_file():
            digest.update(b"\0libcst\0" + version.read_bytes())
            break
    return digest.hexdigest()


def _open_folder(root: Path, create: bool) -> int | None:
    try:
        return open_folder(root, FOLDER, create)
    except LinkInTheWay:  # a symbolic link or a file on the way: no cache
        return None


def _read(root: Path, name: str) -> bytes | None:
    folder = _open_folder(root, create=False)
    return None if folder is None else read_entry(folder, name, MAX_ENTRY_BYTES)
