"""A TCP proxy in front of the Hub (olah) for the model pull's tests and benchmark: it
counts the bytes the Hub sends, can hold them at a byte count the test chooses (a pull
stopped at a known point, no timing), and can limit them to a rate (a token bucket:
the benchmark's stand-in for the internet link between a Spark and the Hub).
"""

from __future__ import annotations

import socket
import threading
import time

CHUNK = 16 << 10


class HubProxy:
    def __init__(self, upstream: tuple[str, int], rate: float | None = None):
        self.upstream, self.rate = upstream, rate
        self.down = 0
        self.hold_at: int | None = None
        self.held = threading.Event()
        self._release = threading.Event()
        self._lock = threading.Lock()
        self._tokens, self._stamp = 0.0, time.monotonic()
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def hold(self, at: int) -> None:
        """Send nothing past ``at`` bytes (counted since the last ``reset``)."""
        self.hold_at, self.held = at, threading.Event()
        self._release.clear()

    def release(self) -> None:
        self.hold_at = None
        self._release.set()

    def reset(self) -> None:
        with self._lock:
            self.down = 0

    def close(self) -> None:
        self._closed = True
        self.release()
        self.sock.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream)
            except OSError:
                client.close()
                continue
            threading.Thread(target=self._pump, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, True), daemon=True).start()

    def _take(self, n: int) -> None:
        """Wait for ``n`` tokens of the bucket (``rate`` bytes a second, a burst of one
        chunk)."""
        if self.rate is None:
            return
        while True:
            with self._lock:
                now = time.monotonic()
                self._tokens = min(CHUNK, self._tokens + (now - self._stamp) * self.rate)
                self._stamp = now
                if self._tokens >= n:
                    self._tokens -= n
                    return
                wait = (n - self._tokens) / self.rate
            time.sleep(wait)

    def _pump(self, source: socket.socket, sink: socket.socket, down: bool) -> None:
        try:
            while data := source.recv(CHUNK):
                if down:
                    while self.hold_at is not None and self.down + len(data) > self.hold_at:
                        room = max(0, self.hold_at - self.down)
                        if room:
                            sink.sendall(data[:room])
                            with self._lock:
                                self.down += room
                            data = data[room:]
                        self.held.set()
                        self._release.wait()
                        if self._closed:
                            return
                    self._take(len(data))
                sink.sendall(data)
                if down:
                    with self._lock:
                        self.down += len(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
