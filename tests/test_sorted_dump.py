"""The KB's sorted dump made from the load's quad table is the dump made by sorting the store's
lines as strings: the same bytes and the same line index, including where one term is a prefix of
another, for escaped and non-ASCII literals, and for a triple in two graphs."""
from __future__ import annotations

import numpy as np

from factforge.sparql import sorted_dump
from factforge.sparql.loading import load_files
from factforge.sparql.scan import kb_table
from factforge.sparql.store import open_store

from test_reference_kb import sorted_lines

EX = "http://example.org/"
TRICKY = f"""<{EX}a> <{EX}p> <{EX}b> .
<{EX}a> <{EX}p> <{EX}b/c> .
<{EX}a/b> <{EX}p> <{EX}a> .
<{EX}a> <{EX}pp> <{EX}a> .
<{EX}a> <{EX}name> "a" .
<{EX}a> <{EX}name> "a"@en .
<{EX}a> <{EX}name> "a"@en-gb .
<{EX}a> <{EX}name> "a"^^<{EX}type> .
<{EX}a> <{EX}name> "a b" .
<{EX}a> <{EX}name> "A \\"quoted\\" \\\\ back" .
<{EX}a> <{EX}name> "tab\\there" .
<{EX}a> <{EX}name> "\u00e9t\u00e9 \u5317\u4eac \U0001F600" .
<{EX}a> <{EX}name> "\\u00e9t\\u00e9" .
<{EX}a> <{EX}born> "1990-01-02"^^<http://www.w3.org/2001/XMLSchema#date> .
<{EX}a> <{EX}count> "007"^^<http://www.w3.org/2001/XMLSchema#integer> .
<{EX}z> <{EX}p> <{EX}a> .
"""
IN_A_GRAPH = f"""<{EX}a> <{EX}p> <{EX}b> <{EX}g> .
<{EX}b> <{EX}p> <{EX}a> <{EX}g> .
"""


def built(store, folder):
    folder.mkdir()
    sorted_dump._build(store, folder)
    with np.load(folder / sorted_dump.INDEX) as index:
        return (folder / sorted_dump.TEXT).read_bytes(), {k: index[k] for k in ("starts", "crcs", "crc_lines")}


def by_strings(store, folder):
    """The dump and index written from the store's lines sorted as strings (the definition)."""
    folder.mkdir()
    lines = sorted({f"{s} {p} {o} .\n" for s, p, o in store.triples()})
    sorted_dump._write(folder, [lines])
    with np.load(folder / sorted_dump.INDEX) as index:
        return (folder / sorted_dump.TEXT).read_bytes(), {k: index[k] for k in ("starts", "crcs", "crc_lines")}


def assert_same(one, two):
    assert one[0] == two[0]
    assert all(np.array_equal(one[1][k], two[1][k]) for k in ("starts", "crcs", "crc_lines"))


def test_the_dump_from_the_quad_table_is_the_store_sorted_as_strings(tmp_path):
    (tmp_path / "kb.nt").write_text(TRICKY, encoding="utf-8")
    (tmp_path / "g.nq").write_text(IN_A_GRAPH, encoding="utf-8")
    store = open_store(tmp_path / "store")
    load_files(store, [tmp_path / "kb.nt", tmp_path / "g.nq"], progress=False)
    assert kb_table(store) is not None  # the table is what this test is about
    table_made = built(store, tmp_path / "table")
    assert_same(table_made, by_strings(store, tmp_path / "strings"))
    assert table_made[0] == sorted_lines(store, ())
    assert table_made[0].count(f"<{EX}a> <{EX}p> <{EX}b> .\n".encode()) == 1  # in two graphs, one line


def test_the_dump_of_dbpedia50_from_the_quad_table_is_the_store_sorted_as_strings(dbpedia_store, tmp_path):
    assert kb_table(dbpedia_store) is not None
    assert_same(built(dbpedia_store, tmp_path / "table"), by_strings(dbpedia_store, tmp_path / "strings"))


def test_the_dump_without_lines_is_the_same_copied_by_the_kernel_or_written_from_memory(tmp_path):
    """``write_without`` into a file (``os.copy_file_range``, the bytes never through Python) and into a
    buffer (no file: the ranges written from a map of the dump) give the kept lines in order, whichever
    lines go: the first, runs of neighbours, the last, none, all; what follows in the file goes after them."""
    import io
    import os

    (tmp_path / "kb.nt").write_text(TRICKY, encoding="utf-8")
    store = open_store(tmp_path / "store")
    load_files(store, [tmp_path / "kb.nt"], progress=False)
    text, _ = built(store, tmp_path / "dump")
    dump = sorted_dump.SortedDump(tmp_path / "dump")
    lines = text.splitlines(keepends=True)
    assert len(dump) == len(lines) > 6
    for skipped in ([], [0], [1, 2, 3], [0, len(lines) - 1], [len(lines) - 2, len(lines) - 1], range(len(lines))):
        expected = b"".join(line for n, line in enumerate(lines) if n not in set(skipped))
        memory = io.BytesIO()
        assert dump.write_without(skipped, memory) == len(lines) - len(set(skipped))
        assert memory.getvalue() == expected
        with open(tmp_path / "r.nt", "wb") as out:
            out.write(b"# before\n")
            assert dump.write_without(skipped, out) == len(lines) - len(set(skipped))
            assert out.tell() == len(b"# before\n") + len(expected)
            out.write(b"# after\n")
        assert (tmp_path / "r.nt").read_bytes() == b"# before\n" + expected + b"# after\n"
    with open(tmp_path / "k.nt", "wb") as out:  # the file was copied by the kernel where it has the call
        assert sorted_dump._copied_in_kernel(dump.path, [(0, 5), (7, 9)], out) == hasattr(os, "copy_file_range")
    assert (tmp_path / "k.nt").read_bytes() == (text[:5] + text[7:9] if hasattr(os, "copy_file_range") else b"")


def test_the_line_index_is_mapped_from_its_file_not_read_whole(tmp_path):
    """Opening the dump maps its line index (three arrays of a number a line: 160 MB at 10M triples),
    so a claims set that looks up a few thousand lines reads those pages, not the whole index; what the
    maps give is what ``np.load`` reads."""
    (tmp_path / "kb.nt").write_text(TRICKY, encoding="utf-8")
    store = open_store(tmp_path / "store")
    load_files(store, [tmp_path / "kb.nt"], progress=False)
    text, index = built(store, tmp_path / "dump")
    dump = sorted_dump.SortedDump(tmp_path / "dump")
    for name, array in (("starts", dump.starts), ("crcs", dump.crcs), ("crc_lines", dump.crc_lines)):
        assert isinstance(array, np.memmap) and str(array.filename) == str(tmp_path / "dump" / sorted_dump.INDEX)
        assert array.dtype == index[name].dtype and np.array_equal(array, index[name])
    lines = text.splitlines(keepends=True)
    assert dump.find([lines[3], lines[0], b"<x> <y> <z> .\n"]) == {lines[3]: 3, lines[0]: 0}


def test_an_index_numpy_cannot_map_is_read(tmp_path):
    """A compressed index (not what ``write_npz`` writes, but a valid .npz) is read whole, same arrays."""
    from factforge.sparql.cache import read_npz

    arrays = {"a": np.arange(5, dtype=np.int64), "b": np.array([3, 1], dtype=np.uint32), "e": np.zeros(0)}
    np.savez_compressed(tmp_path / "c.npz", **arrays)
    np.savez(tmp_path / "u.npz", **arrays)
    for name, mapped in (("c.npz", False), ("u.npz", True)):
        read = read_npz(tmp_path / name)
        assert sorted(read) == sorted(arrays)
        for key, array in arrays.items():
            assert read[key].dtype == array.dtype and np.array_equal(read[key], array)
        assert isinstance(read["a"], np.memmap) == mapped
