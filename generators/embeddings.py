"""RDF2Vec entity embeddings of a KB, reproducible to the byte and cached by fingerprint.

Walks: from every entity of the adjacency index (``sparql.adjacency``: every link between
non-literal terms over non-schema predicates), ``WALKS`` walks of ``DEPTH`` hops, each hop a
uniform choice among the node's links in both directions. A walk reads
``e<start> <step> e<next> <step> ...`` where a step is ``+<p>`` for a forward link and
``-<p>`` for an inverse one (predicate ids of the adjacency index), so the relation and its
direction are both words. A walk stops early only at a node without links (none exists in an
index built from links, but a hand-made index may have one). All walkers advance together with
numpy, and every draw comes from ``random_state.stream(seed, "embeddings/walks")``.

Training: gensim's skip-gram Word2Vec with ``workers=1``, ``seed=seed`` and a fixed
``hashfxn`` (Python's ``hash`` of a string is salted per process, and gensim seeds each
initial vector with it), so the same KB, seed and parameters give byte-identical vectors in
any process.

Cache: the float32 matrix (one row per entity of the adjacency index, in its order) is saved
as ``embeddings-<params>-seed<seed>.npy`` in the KB's ``StatsCache`` folder, written aside and
renamed into place. A cached file of the wrong shape is recomputed, never trusted.

Unknown entities (literals, IRIs only in schema triples or with no link at all) have no
vector: ``Embeddings.vectors`` gives them a zero row, and ``Embeddings.missing`` names them,
so a caller can tell "no vector" from "a vector". Cosine distance treats a zero row as
orthogonal to everything (distance 1): unrelated, neither near nor opposite.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from factforge.sparql.adjacency import Adjacency
from factforge.sparql.adjacency import adjacency as load_adjacency
from factforge.sparql.cache import StatsCache
from factforge.sparql.store import Store

from .random_state import stream


@dataclass(frozen=True)
class Params:
    vector_size: int = 64
    walks: int = 2       # per entity
    depth: int = 4       # hops per walk
    window: int = 4
    negative: int = 3
    epochs: int = 3
    sample: float = 1e-3  # gensim's down-sampling of frequent words (the predicates)

    def key(self) -> str:
        return (f"v{self.vector_size}-w{self.walks}-d{self.depth}-win{self.window}-n{self.negative}"
                f"-e{self.epochs}-s{self.sample:g}")


DEFAULT = Params()
VERSION = 1  # bump when walks or training change, so old cache files are not read


def stable_hash(text: str) -> int:
    """gensim's ``hashfxn``: the same number in every process (``hash`` is salted per process)."""
    return zlib.crc32(text.encode("utf-8"))


class Embeddings:
    """Entity vectors: ``index`` maps an entity IRI to its row of ``matrix`` (float32)."""

    def __init__(self, entities: list[str], matrix: np.ndarray):
        if len(entities) != matrix.shape[0]:
            raise ValueError(f"{len(entities)} entities but {matrix.shape[0]} vectors")
        self.entities = entities
        self.matrix = matrix
        self.index = {e: i for i, e in enumerate(entities)}

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1])

    def __contains__(self, entity: str) -> bool:
        return entity in self.index

    def vectors(self, entities: list[str]) -> np.ndarray:
        """One float32 row per entity, in order; a zero row for an entity without a vector."""
        rows = np.fromiter((self.index.get(e, -1) for e in entities), dtype=np.int64, count=len(entities))
        out = np.zeros((len(entities), self.dim), dtype=np.float32)
        known = rows >= 0
        out[known] = self.matrix[rows[known]]
        return out

    def missing(self, entities: list[str]) -> list[str]:
        """The entities of ``entities`` that have no vector (in order, without repeats)."""
        return list(dict.fromkeys(e for e in entities if e not in self.index))


# --- walks ------------------------------------------------------------------------------------
def walks(index: Adjacency, *, seed: int = 0, n_walks: int = DEFAULT.walks, depth: int = DEFAULT.depth,
          progress: bool = False) -> list[list[str]]:
    """``n_walks`` random walks of ``depth`` hops from every entity, as token lists."""
    n = len(index.entities)
    rng = stream(seed, "embeddings/walks")
    out_deg = (index.out_ptr[1:] - index.out_ptr[:-1]).astype(np.int64)
    in_deg = (index.in_ptr[1:] - index.in_ptr[:-1]).astype(np.int64)
    degree = out_deg + in_deg
    node = np.tile(np.arange(n, dtype=np.int64), n_walks)  # walk w of entity i is row w*n + i
    nodes = np.full((node.size, depth + 1), -1, dtype=np.int64)
    steps = np.zeros((node.size, depth), dtype=np.int64)  # signed: +(p+1) forward, -(p+1) inverse
    nodes[:, 0] = node
    alive = degree[node] > 0
    for hop in tqdm(range(depth), desc="walks", disable=not progress, leave=False):
        u = rng.random(node.size)  # drawn for every walker, dead or alive: the stream never shifts
        here = node[alive]
        pick = np.minimum((u[alive] * degree[here]).astype(np.int64), degree[here] - 1)
        forward = pick < out_deg[here]
        nxt = np.empty(here.size, dtype=np.int64)
        step = np.empty(here.size, dtype=np.int64)
        link = index.out_ptr[here[forward]] + pick[forward]
        nxt[forward] = index.dst[link]
        step[forward] = index.pred[link].astype(np.int64) + 1
        link = index.in_ptr[here[~forward]] + pick[~forward] - out_deg[here[~forward]]
        nxt[~forward] = index.in_src[link]
        step[~forward] = -(index.in_pred[link].astype(np.int64) + 1)
        node[alive] = nxt
        nodes[alive, hop + 1] = nxt
        steps[alive, hop] = step
        alive &= degree[node] > 0
    entity_words = np.array([f"e{i}" for i in range(n)], dtype=object)
    m = len(index.predicates)
    step_words = np.array([f"-{p}" for p in range(m - 1, -1, -1)] + [""] + [f"+{p}" for p in range(m)],
                          dtype=object)  # step s is step_words[s + m]
    sentences = []
    for row_nodes, row_steps in zip(entity_words[np.maximum(nodes, 0)].tolist(),
                                    step_words[steps + m].tolist()):
        length = depth
        while length and not row_steps[length - 1]:
            length -= 1  # a walk that stopped early
        sentence = [row_nodes[0]]
        for hop in range(length):
            sentence += (row_steps[hop], row_nodes[hop + 1])
        sentences.append(sentence)
    return sentences


# --- training ---------------------------------------------------------------------------------
def train(index: Adjacency, *, seed: int = 0, params: Params = DEFAULT, progress: bool = False) -> np.ndarray:
    """The (entities x vector_size) float32 matrix, rows in the order of ``index.entities``."""
    from gensim.models import Word2Vec
    from gensim.models.callbacks import CallbackAny2Vec

    n = len(index.entities)
    if n == 0:
        return np.zeros((0, params.vector_size), dtype=np.float32)
    sentences = walks(index, seed=seed, n_walks=params.walks, depth=params.depth, progress=progress)
    bar = tqdm(total=params.epochs, desc="word2vec", disable=not progress, leave=False)

    class _Tick(CallbackAny2Vec):
        def on_epoch_end(self, model):
            bar.update(1)

    try:
        model = Word2Vec(sentences, vector_size=params.vector_size, window=params.window, min_count=1, sg=1,
                         negative=params.negative, sample=params.sample, epochs=params.epochs, workers=1,
                         seed=int(seed), hashfxn=stable_hash, callbacks=[_Tick()])
    finally:
        bar.close()
    rows = np.fromiter((model.wv.key_to_index.get(f"e{i}", -1) for i in range(n)), dtype=np.int64, count=n)
    matrix = np.zeros((n, params.vector_size), dtype=np.float32)
    matrix[rows >= 0] = model.wv.vectors[rows[rows >= 0]]
    return matrix


# --- cache ------------------------------------------------------------------------------------
def cache_path(store: Store, *, seed: int = 0, params: Params = DEFAULT) -> Path:
    digest = hashlib.sha256(f"{VERSION}:{params.key()}".encode()).hexdigest()[:12]
    return StatsCache(store).root / f"embeddings-{digest}-seed{int(seed)}.npy"


_MEMO: dict[tuple[str, int, Params], Embeddings] = {}


def entity_embeddings(store: Store, *, seed: int = 0, progress: bool = False,
                      params: Params = DEFAULT) -> Embeddings:
    """RDF2Vec vectors of every linked entity of the KB, from the cache when it has them."""
    path = cache_path(store, seed=seed, params=params)
    memo_key = (str(path), int(seed), params)
    if memo_key in _MEMO:
        return _MEMO[memo_key]
    index = load_adjacency(store, progress=progress)
    matrix = _read(path, (len(index.entities), params.vector_size))
    if matrix is None:
        matrix = train(index, seed=seed, params=params, progress=progress)
        try:
            _write(matrix, path)
        except OSError:
            pass  # a read-only cache still answers, it just trains again next time
    result = Embeddings(index.entities, matrix)
    if len(_MEMO) >= 4:
        _MEMO.pop(next(iter(_MEMO)))
    _MEMO[memo_key] = result
    return result


def _read(path: Path, shape: tuple[int, int]) -> np.ndarray | None:
    try:
        matrix = np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        return None
    if matrix.shape != shape or matrix.dtype != np.float32:
        return None
    return matrix


def _write(matrix: np.ndarray, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".npy.tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            np.save(out, np.ascontiguousarray(matrix, dtype=np.float32), allow_pickle=False)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)
