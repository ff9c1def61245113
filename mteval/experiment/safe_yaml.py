"""Reading an experiment file safely: at most :data:`MAX_CONFIG_BYTES` of UTF-8, and YAML loaded
with PyYAML's pure-Python safe loader, refused before any Python object is built when it nests
more than :data:`MAX_FLOW_DEPTH` brackets, holds more than :data:`MAX_NODES` values or
:data:`MAX_CHARS` characters once its aliases are expanded ("billion laughs", recursive aliases),
or repeats a key in a mapping (YAML would keep the last value silently). Mappings remember the
line of each key (:class:`LinedMapping`, :func:`line_of`) for error messages.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import accumulate
from pathlib import Path
from typing import Any

import yaml

from mteval.errors import ConfigError, quote
from mteval.io.plain import not_regular

MAX_CONFIG_BYTES = 1 << 20  # an experiment file is read up to 1 MiB, and refused beyond
MAX_NODES = 100_000  # YAML nodes, aliases expanded
MAX_CHARS = 4 << 20  # characters of YAML scalars, aliases expanded
MAX_FLOW_DEPTH = 64  # nested [ ] / { } (deeper block nesting ends at Python's recursion limit)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_MERGE_TAG = "tag:yaml.org,2002:merge"


class LinedMapping(dict):  # type: ignore[type-arg]
    """A dict that remembers the line of each key (YAML and legacy files), for error messages."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lines: dict[Any, int] = {}


def line_of(mapping: Any, key: Any) -> int | None:
    return getattr(mapping, "lines", {}).get(key)


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader whose mappings are :class:`LinedMapping` (keys with their lines). The pure-
    Python loader, not libyaml's: libyaml recurses in C and crashes on deeply nested input."""


def _construct_map(loader: _Loader, node: yaml.MappingNode) -> Iterator[LinedMapping]:
    data = LinedMapping()
    yield data
    data.update(loader.construct_mapping(node))
    for key_node, _ in node.value:
        if isinstance(key_node, yaml.ScalarNode):
            data.lines.setdefault(loader.construct_object(key_node), key_node.start_mark.line + 1)


_Loader.add_constructor("tag:yaml.org,2002:map", _construct_map)


def read_config_text(path: Path) -> str:
    """The file's text: at most MAX_CONFIG_BYTES bytes of UTF-8."""
    try:
        kind = not_regular(path)
        if kind is not None:  # checked before opening: a FIFO would block
            raise ConfigError(f"is {kind}, expected an experiment file", path)
        with path.open("rb") as handle:
            raw = handle.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError("config file not found", path) from None
    except OSError as exc:
        raise ConfigError(f"cannot read config: {exc.strerror or exc}", path) from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"config file is larger than {MAX_CONFIG_BYTES >> 20} MiB; an experiment file "
                          "is small (is this the right file?)", path)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError("invalid UTF-8", path, raw[:exc.start].count(b"\n") + 1) from None


def _check_flow_depth(text: str, path: Path) -> None:
    """Refuse more than MAX_FLOW_DEPTH nested ``[``/``{`` (PyYAML's scanner is quadratic in that
    depth; brackets inside quoted strings count too, harmlessly for real files)."""
    brackets = _NOT_BRACKET.sub("", text)
    if brackets and max(accumulate(1 if c in "[{" else -1 for c in brackets)) > MAX_FLOW_DEPTH:
        raise ConfigError(f"bad YAML: nested too deeply (more than {MAX_FLOW_DEPTH} levels of [ or {{)", path)


def load_yaml(text: str, path: Path) -> Any:
    """Safe-load one YAML document, refusing alias bombs and duplicate keys before building it."""
    _check_flow_depth(text, path)
    loader = None
    try:
        loader = _Loader(text)  # checks that every character is printable
        node = loader.get_single_node()
        if node is None:
            return None
        _inspect(node, loader, path)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = str(getattr(exc, "problem", None) or exc)
        raise ConfigError(f"bad YAML: {clip(problem, 200)}", path, line) from None
    except RecursionError:
        raise ConfigError("bad YAML: nested too deeply", path) from None
    except (ValueError, OverflowError) as exc:  # e.g. a timestamp with month 13
        raise ConfigError(f"bad YAML value: {clip(str(exc), 200)}", path) from None
    finally:
        if loader is not None:
            loader.dispose()


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _inspect(root: yaml.Node, loader: _Loader, path: Path) -> None:
    """Walk the node graph with aliases expanded (children are counted when pushed, so the walk
    and its stack stop at MAX_NODES) and check every mapping once for duplicate keys."""
    nodes, chars = 1, 0
    checked: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.ScalarNode):
            chars += len(node.value)
            if chars > MAX_CHARS:
                raise ConfigError(f"the YAML holds more than {MAX_CHARS >> 20} Mi characters once its aliases are "
                                  "expanded (aliases repeating big values?); an experiment file is small", path,
                                  node.start_mark.line + 1)
            continue
        if isinstance(node, yaml.MappingNode):
            if id(node) not in checked:
                checked.add(id(node))
                _check_duplicate_keys(node, loader, path)
            children = [child for pair in node.value for child in pair]
        else:
            children = list(node.value)
        nodes += len(children)
        if nodes > MAX_NODES:
            raise ConfigError(f"the YAML holds more than {MAX_NODES} values once its aliases are expanded (an "
                              "alias bomb or a recursive alias?); an experiment file is small", path,
                              node.start_mark.line + 1)
        stack.extend(children)


def _check_duplicate_keys(node: yaml.MappingNode, loader: _Loader, path: Path) -> None:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE_TAG:
            continue
        key = loader.construct_object(key_node)
        line = key_node.start_mark.line + 1
        if key in seen:
            raise ConfigError(f"duplicate key {quote(key)} (first at line {seen[key]}); each key may appear "
                              "once", path, line)
        seen[key] = line
