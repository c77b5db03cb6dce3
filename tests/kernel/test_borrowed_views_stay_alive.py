"""The views advance_chunk makes without reference counts (simcore.kernel.borrowed) point at arrays that live
to the end of the call: numba frees an array after its variable's last use, and a borrowed view does not
hold it, so every array borrowed from must be an argument, a view of one held to the end, or handed to
``keep_alive`` after the loop. Removing ``keep_alive`` made a 700-variant batch abort (malloc) and the batch
tests fail; this test catches a new scratch array added without it, before it corrupts anything."""
from __future__ import annotations

import ast
import inspect

from simcore.kernel import advance


def _names(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def test_every_array_advance_chunk_borrows_from_lives_to_the_end_of_the_call():
    tree = ast.parse(inspect.getsource(getattr(advance.advance_chunk, "py_func", advance.advance_chunk)))
    fn = tree.body[0]
    arguments = {a.arg for a in fn.args.args}
    borrowed_from = set()
    kept = set()
    views_of = {}  # name -> the names its value is a view of (slices and reshapes)
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "borrowed":
                borrowed_from |= _names(node.args[0])
            elif node.func.id == "keep_alive":
                kept |= _names(node.args[0])
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            base = value.func.value if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) else value
            if isinstance(base, ast.Subscript) and isinstance(base.value, ast.Name):
                views_of[node.targets[0].id] = base.value.id
    assert borrowed_from, "advance_chunk borrows no array: this test no longer checks anything"
    alive = arguments | kept
    for name in sorted(borrowed_from):
        root = name
        while root in views_of and root not in alive:
            root = views_of[root]
        assert root in alive, f"advance_chunk borrows {name!r}, which nothing holds to the end (add it to keep_alive)"
