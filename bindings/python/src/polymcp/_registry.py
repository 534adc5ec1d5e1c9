"""The catalogue of one Server: entries by tag, mirrored into every native
server that serves it (a Server may be served by several at once, e.g.
stdio and HTTP)."""

from __future__ import annotations

import itertools
import threading
from typing import Protocol

from ._handlers import Entry, Kind, ResourceEntry

__all__ = ["Registry", "Sink"]


class Sink(Protocol):
    """A native server kept in step with the catalogue."""

    def add(self, entry: Entry) -> None: ...

    def remove(self, tag: int) -> None: ...


def _slot(entry: Entry) -> tuple[Kind, bool, str]:
    template = isinstance(entry, ResourceEntry) and entry.is_template
    return entry.kind, template, entry.key


class Registry:
    """Entries by tag. Tags are never reused, so a call for an entry that
    was replaced or removed meanwhile cannot reach its successor."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tags = itertools.count(1)
        self._slots: dict[tuple[Kind, bool, str], int] = {}
        self._sinks: list[Sink] = []
        # Read without the lock on every call: replaced, never mutated in place.
        self.entries: dict[int, Entry] = {}

    def add(self, entry: Entry) -> Entry:
        with self._lock:
            entry.tag = next(self._tags)
            entries = dict(self.entries)
            old = self._slots.get(_slot(entry))
            if old is not None:
                entries.pop(old, None)  # the native side drops the old tag by itself
            entries[entry.tag] = entry
            self._slots[_slot(entry)] = entry.tag
            self.entries = entries
            sinks = list(self._sinks)
        for sink in sinks:
            sink.add(entry)
        return entry

    def remove(self, kind: Kind, key: str, template: bool = False) -> bool:
        with self._lock:
            tag = self._slots.pop((kind, template, key), None)
            if tag is None:
                return False
            entries = dict(self.entries)
            entries.pop(tag, None)
            self.entries = entries
            sinks = list(self._sinks)
        for sink in sinks:
            sink.remove(tag)
        return True

    def attach(self, sink: Sink) -> None:
        """Adds every entry to sink, then keeps it in step."""
        with self._lock:
            for entry in self.entries.values():
                sink.add(entry)
            self._sinks.append(sink)

    def detach(self, sink: Sink) -> None:
        with self._lock:
            if sink in self._sinks:
                self._sinks.remove(sink)
