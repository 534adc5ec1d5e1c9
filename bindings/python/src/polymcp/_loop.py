"""The asyncio loop async handlers run on when the caller has none: one
daemon thread per process, started on first use."""

from __future__ import annotations

import asyncio
import threading

__all__ = ["LoopThread", "shared_loop", "stop_shared_loop"]


class LoopThread:
    """An event loop running forever on its own thread."""

    def __init__(self, name: str = "polymcp-asyncio") -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
        finally:
            self._drain()

    def _drain(self) -> None:
        tasks = [t for t in asyncio.all_tasks(self.loop) if not t.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            self.loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
        self.loop.run_until_complete(self.loop.shutdown_asyncgens())
        self.loop.close()

    def stop(self, timeout: float = 5.0) -> None:
        """Stops the loop, cancelling what still runs on it, and joins the thread."""
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()


_lock = threading.Lock()
_shared: LoopThread | None = None


def shared_loop() -> asyncio.AbstractEventLoop:
    """The process's binding-owned loop, started if needed."""
    global _shared
    with _lock:
        if _shared is None or not _shared.alive:
            _shared = LoopThread()
        return _shared.loop


def stop_shared_loop() -> None:
    global _shared
    with _lock:
        thread, _shared = _shared, None
    if thread is not None:
        thread.stop()
