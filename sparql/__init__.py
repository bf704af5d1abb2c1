"""factforge's store layer: the KB in Oxigraph (embedded or behind any SPARQL endpoint),
its query templates, loaders and per-KB statistics."""
from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("factforge")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+source"
