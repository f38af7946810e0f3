"""The parsed-module cache: lowered syntax trees (``syntax.py``) stored as signed JSON, so that
a later analysis of the same text neither parses it nor imports libcst.

An entry is keyed by the text's SHA-256, whether it is our own stub source, the parse limits
(``--max-tokens``/``--max-expr-depth``: a tree is only reused under the limits it was checked
against) and the build (``FORMAT``, the libcst version and the modules that shape the tree).
It lives in the analysed project's cache folder, ``.staticflops_cache/parsed/`` (library
files too: the key is their content, wherever they were read from).

A pull request controls that folder, so an entry is trusted only by its signature, under
the same rules as the results cache (``project/cache.py``):

* HMAC-SHA256 with the per-user secret kept outside the project (``STATICFLOPS_CACHE_DIR``,
  default ``~/.cache/staticflops``, file ``results-key``): a committed or planted entry cannot
  carry a valid one.  No secret, no parsed-module cache: slower, never wrong.
* The format cannot run code when loaded: JSON (Python's C decoder), decoded into nodes by
  ``decode``, which builds only ``syntax`` classes by name and plain values (a block of
  statements on first read: a library file's unused function bodies are never turned into nodes).  Nothing is
  unpickled or unmarshalled, and the signature is checked before the JSON is even decoded.
* The folder is reached from the project root one component at a time with ``O_NOFOLLOW``
  (a symbolic link anywhere on the way: no cache), entries are read non-blocking, regular and
  bounded, and written to a fresh ``O_EXCL`` file renamed into place.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
from functools import lru_cache
from pathlib import Path

from staticflops.cachefolder import (
    SUPPORTED, LinkInTheWay, open_folder, read_entry, sign, signed_payload, user_secret, write_entry,
)
from staticflops.frontend.syntax import FROM_TEXT, CSTNode, node_class

FORMAT = 2  # 2: stubbed signature annotations ([-4, line, column]) and blocks of every compound statement
FOLDER = (".staticflops_cache", "parsed")
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
    payload = signed_payload(_DOMAIN, key, _read(root, f"{key}.json"))
    if payload is None:
        return None

    def grown(module, positions):  # a stub lowered in this run: the entry is stored again with it
        with _lock:
            _pending[key] = (root, module, positions, threading.get_ident(), False)

    try:
        data = json.loads(payload)
        module, positions = decode(data, text, grown, name)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError):
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
        payload = json.dumps(data, separators=(",", ":")).encode()
    except (ValueError, TypeError, RecursionError):
        return None
    return sign(_DOMAIN, key, payload) + b"\n" + payload if len(payload) <= MAX_ENTRY_BYTES else None


def store_bytes(key: str, data: bytes) -> None:
    """File ``entry_bytes``' entry in the current project's folder."""
    if _project_root is not None:
        _write_bytes(_project_root, key, data)


def _write_bytes(root: Path, key: str, data: bytes) -> None:
    folder = _open_folder(root, create=True)
    if folder is not None:
        write_entry(folder, f"{key}.json", data, "parsed-module cache")


def has_entry(key: str) -> bool:
    """Whether an entry (valid or not) is filed under ``key`` in the current project's folder."""
    if _project_root is None:
        return False
    folder = _open_folder(_project_root, create=False)
    if folder is None:
        return False
    try:
        os.stat(f"{key}.json", dir_fd=folder, follow_symlinks=False)
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


# --- the plain-data form: a node is [class index, line, column, field values...] (line 0: no
# position), a sequence is [-1, items...], bytes are [-2, latin-1 text], an indented block of a
# library file never lowered is [-3, line, column] (where it starts: lowered from the text when read),
# a parameter's or return's annotation never lowered [-4, line, column] (the same);
# strings, numbers, booleans and None are themselves.  The class table names each class and its
# fields.

def encode(module, positions: dict, whole: bool = False, trim: bool = False) -> dict:
    """``whole``: lower each block and annotation not read yet (else stored as a stub);
    ``trim``: an indented block decoded from an entry and never read is stored as a stub too
    (else decoded now and stored)."""
    block = node_class("IndentedBlock")
    classes: dict = {}
    plain = {str, int, float, bool, type(None)}

    def value(item):
        kind = type(item)
        if kind in plain:  # most leaves: names' and strings' text
            return item
        if kind is tuple:
            return [-1, *map(value, item)]
        if isinstance(item, CSTNode):
            fields = item.__dict__
            pending = fields.get("_pending")
            if pending is not None:
                if pending[1] is FROM_TEXT and not whole:
                    line, column = positions[item]
                    return [_STUB_TAGS[kind.__name__], line, column]
                if trim and kind is block and item in positions:
                    line, column = positions[item]
                    return [_STUB_TAGS["IndentedBlock"], line, column]
                for name in kind._fields[:1]:
                    getattr(item, name)  # decoded from an entry on first read: read it now
            index = classes.get(kind)
            if index is None:
                index = classes[kind] = len(classes)
            line, column = positions.get(item, (0, 0))
            return [index, line, column, *[value(fields[name]) for name in kind._fields]]
        if kind is bytes:
            return [-2, item.decode("latin-1")]
        raise TypeError(f"cannot store {kind.__name__}")

    tree = value(module)
    return {"format": FORMAT, "classes": [[kind.__name__, list(kind._fields)] for kind in classes], "tree": tree}


def decode(data: dict, text: str | None = None, grown=None, name: str = ""):
    """(module, positions); ``text``: the entry's source, which its stubs are lowered from
    (without it, a stub read raises ``ValueError``); ``grown(module, positions)`` is called
    after each stub lowered; ``name``: the file's, for messages."""
    if data["format"] != FORMAT:
        raise ValueError("another format")
    table = []
    for name, names in data["classes"]:
        cls = node_class(name)
        if not all(type(field) is str and field.isidentifier() for field in names):
            raise ValueError("bad field name")
        cls._fields = tuple(names)
        table.append((cls, cls._fields, name in _LAZY))
    positions: dict = {}

    # value() is given lists only: a plain field is itself, checked inline (a call per field
    # cost ~a quarter of the decoding)
    def value(item):
        tag = item[0]
        if tag >= 0:  # a node, most items
            cls, fields, lazy = table[tag]
            node = cls.__new__(cls)
            if item[1]:
                positions[node] = (item[1], item[2])
            if lazy:  # its fields (and the nodes inside) are made on first read (``CSTNode.__getattr__``)
                node.__dict__["_pending"] = (fill, item)
            else:
                node.__dict__.update(zip(fields, [x if type(x) is not list else value(x) for x in item[3:]]))
            return node
        if tag == -1:
            return tuple([x if type(x) is not list else value(x) for x in item[1:]])
        if tag == -2:
            return item[1].encode("latin-1")
        if tag == -3 or tag == -4:
            return stub(item[1], item[2], block if tag == -3 else annotation)
        raise ValueError("bad tag")

    def fill(node, item):
        node.__dict__.update(zip(table[item[0]][1], [x if type(x) is not list else value(x) for x in item[3:]]))

    block, annotation = node_class("IndentedBlock"), node_class("Annotation")

    def stub(line, column, cls):
        if type(line) is not int or type(column) is not int:
            raise ValueError("bad stub")
        node = cls.__new__(cls)
        node.__dict__["_pending"] = (lower_stub, FROM_TEXT)
        positions[node] = (line, column)
        return node

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
    if type(tree) is not list or not isinstance(tree[0], int) or not 0 <= tree[0] < len(table):
        raise ValueError("not a tree")
    module = value(tree)
    return module, positions


# The nodes decoded on first read, with all they hold down to the next such node: a block of
# statements (a function's or class's body, a branch), the unit the interpreter runs or skips.
# Lazy nodes all through cost one ``__getattr__`` per node read (~4 us; a warm Llama run reads
# ~66,000): decoding a block's statements at once costs ~1 us per node.
_LAZY = frozenset({"IndentedBlock", "SimpleStatementSuite"})

# What a node lowered from the text on first read (``syntax.FROM_TEXT``) is stored as, never read.
_STUB_TAGS = {"IndentedBlock": -3, "Annotation": -4}


# --- the folder and the signature (the results cache's rules, see the module docstring)

_DOMAIN = b"parsed\n"  # an entry of the results cache never passes for a tree, nor the reverse


@lru_cache(maxsize=1)
def _build() -> str:
    """FORMAT, libcst's version (read from its files, not imported) and the shaping modules."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256(f"{FORMAT}".encode())
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
